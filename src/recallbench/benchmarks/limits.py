"""Default wall-clock limits per case, declared once (a light module: option declarations and the
command line's help read it without loading a simulator)."""

DEFAULT_TEST_TIMEOUT = 3600.0  # s per SceneMem test: a hung policy must not hang the run
DEFAULT_CASE_TIMEOUT = 900.0  # s per FindingDory case (its agent call and LL rollout)
