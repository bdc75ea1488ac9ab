"""Default wall-clock limits per case, declared once (a light module: option declarations and the
command line's help read it without loading a simulator)."""

DEFAULT_TEST_TIMEOUT = 3600.0  # s per SceneMem test: a hung policy must not hang the run
DEFAULT_CASE_TIMEOUT = 900.0  # s per FindingDory case (its agent call and LL rollout)

# World-size fields a SceneMem suite hands the built-in world (ep_meta.json's recallbench_world,
# env_args.json's env_kwargs). The generator makes 10 (kitchen) or 16 (home) objects plus its
# distractors, and a home's metadata lists (rooms, doorways, walls, fixtures, receptacles,
# objects) hold at most a few dozen entries; a world asked for 1,000 objects holds ~400 (its
# surfaces are full) and builds in ~3 s, while 100,000 made every test of a scenario run to its
# timeout. So these bounds sit far above anything generated and far below a hang (docs/scenemem.md).
MAX_WORLD_OBJECTS = 1_000
MAX_WORLD_LIST = 5_000  # entries in each list of ep_meta.json's recallbench_world
MAX_CAMERA_SIDE = 4_096  # px: an env_kwargs camera width or height
