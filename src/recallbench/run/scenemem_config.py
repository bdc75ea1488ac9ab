"""A SceneMem run's config as a run folder holds it: made whole for a new run (``normalise``),
recorded in the manifest (``record``) and read back, checked, for a resume (``resume_config``).

``benchmarks.scenemem.options.ScenememConfig`` declares the fields; an option whose ``resume``
key is not its own name is recorded under that key (``thresholds``: approach_dist, open_qpos,
with the card's restore_dist), ``policy_args`` is the card's --policy-arg, and the options that
say how the command runs (workers, run_dir, resume, overwrite) are not recorded.
"""

from __future__ import annotations

from dataclasses import asdict, fields, replace
from pathlib import Path
from typing import Any

from recallbench.agents.registry import NoMeaning, target, valid_names
from recallbench.agents.vla import absolute_policy, policy_kind
from recallbench.benchmarks.options import Option
from recallbench.benchmarks.scenemem.options import OPTIONS, ScenememConfig
from recallbench.benchmarks.scenemem.policy import card_eval_dirs
from recallbench.benchmarks.scenemem.success import Thresholds
from recallbench.errors import InputError, UsageError
from recallbench.loader import is_reference
from recallbench.run.manifest import read_manifest
from recallbench.run.runner import Flags, kebab_flags

_RUNNING = ("workers", "run_dir", "resume", "overwrite")  # how the command runs: not recorded


def default_run_dir(out: str | Path) -> Path:
    out = Path(out)
    return out.with_name(f"{out.stem}_run")


def policy_target(spec: str, flag: str = "--policy") -> str:
    """The ``module:Class`` a --policy runs as: a reference as given (the card's form), or what
    a registered name means on SceneMem."""
    if is_reference(spec):
        return spec
    try:
        return target(spec, "scenemem")
    except NoMeaning as exc:
        raise UsageError(flag, str(exc)) from None
    except ValueError:
        raise UsageError(flag, f"unknown policy {spec!r}: use module:Class, "
                               f"path/to/file.py:Class or one of "
                               f"{', '.join(valid_names('scenemem'))}") from None


def normalise(config: ScenememConfig) -> ScenememConfig:
    """A new run's config: the card's default for every option not given, absolute paths, and
    the import paths the policy needs, so a resume works from anywhere."""
    assert config.data_dir and config.policy and config.out
    card = Thresholds()
    return replace(
        config,
        data_dir=str(Path(config.data_dir).resolve()),
        out=str(Path(config.out).resolve()),
        policy=absolute_ref(config.policy),
        policy_args=_absolute_files(config.policy_args),
        # served and lerobot: policies never see more than observations
        observation_only=bool(config.observation_only) or policy_kind(config.policy) != "card",
        seed=0 if config.seed is None else config.seed,
        approach_dist=card.approach_dist if config.approach_dist is None
        else config.approach_dist,
        open_qpos=card.open_qpos if config.open_qpos is None else config.open_qpos,
        camera_obs=config.camera_obs is not False,
        env_factory=absolute_ref(config.env_factory) if config.env_factory else None,
        trust_suite=bool(config.trust_suite),
        trust_policy=bool(config.trust_policy),
        policy_paths=config.policy_paths or [str(Path.cwd())],
        eval_dirs=config.eval_dirs or card_eval_dirs(config.data_dir),
    )


def absolute_ref(ref: str) -> str:
    """``file.py:Name`` (or a transport's path, ``lerobot:FOLDER``) with an absolute path, so a
    resume works from anywhere."""
    if policy_kind(ref) != "card":
        return absolute_policy(ref) or ref
    module_ref, sep, name = ref.rpartition(":")
    if sep and module_ref.endswith(".py"):
        return f"{Path(module_ref).resolve()}:{name}"
    return ref


def _absolute_files(args: dict[str, Any]) -> dict[str, Any]:
    """The obs_map file a served policy's requests follow, by absolute path ("raw" stays)."""
    value = args.get("obs_map")
    if isinstance(value, str) and value != "raw":
        return {**args, "obs_map": str(Path(value).resolve())}
    return dict(args)


def _nested(option: Option) -> bool:
    """Recorded inside another setting (``thresholds``), not under its own name."""
    return bool(option.resume) and option.resume != option.name


def record(config: ScenememConfig) -> dict[str, Any]:
    """The manifest's ``config``: everything that moves the numbers (the worker reads its
    settings from it too)."""
    out: dict[str, Any] = {}
    nested = {o.name: o.resume for o in OPTIONS if _nested(o)}
    for name, value in asdict(config).items():
        if name in _RUNNING:
            continue
        if name in nested:
            out.setdefault(nested[name], asdict(Thresholds()))[name] = value
        else:
            out[name] = value
    return out


def from_record(recorded: dict[str, Any]) -> ScenememConfig:
    """The config a manifest recorded (``record``'s inverse)."""
    known = {f.name for f in fields(ScenememConfig)} - set(_RUNNING)
    values = {k: v for k, v in recorded.items() if k in known}
    for o in OPTIONS:
        if _nested(o):
            values[o.name] = (recorded.get(o.resume) or {}).get(o.name)
    return ScenememConfig(**values)


def resume_config(run_dir: Path, given: ScenememConfig | None = None,
                  flags: Flags = kebab_flags) -> ScenememConfig:
    """The recorded config; every ``resume`` option given again must agree with it (results
    must not drift), and so must --out and --shard (the run and its part). ``flags`` names an
    option as the command spells it."""
    manifest = run_dir / "manifest.json"
    if not manifest.exists():  # read_manifest would call it unreadable
        raise InputError(run_dir, None, "no run to finish here (no manifest.json); start one "
                                        "without --resume")
    try:
        config = from_record(read_manifest(run_dir)["config"])
    except ValueError as exc:  # cut short or edited by hand
        raise InputError(manifest, None, f"not valid JSON ({exc})") from None
    except (KeyError, TypeError, AttributeError) as exc:
        raise InputError(manifest, "config", "field missing") from exc
    if not config.eval_dirs:  # recorded before the data root stopped going on sys.path
        eval_dirs = card_eval_dirs(str(config.data_dir))
        roots = {str(Path(d).parent) for d in eval_dirs}
        config = replace(config, eval_dirs=eval_dirs,
                         policy_paths=[p for p in config.policy_paths if p not in roots])
    if given is not None:
        _check_given(config, given, manifest, flags)
    return config


def _comparable(name: str, value: Any) -> Any:
    if name in ("data_dir", "out"):
        return str(Path(value).resolve())
    if name in ("policy", "env_factory"):
        return absolute_ref(value)
    return value


def _check_given(config: ScenememConfig, given: ScenememConfig, manifest: Path,
                 flags: Flags) -> None:
    checks = [(o.name, f"config.{o.resume}.{o.name}" if _nested(o) else f"config.{o.name}")
              for o in OPTIONS if o.resume]
    checks += [("out", "config.out"), ("shard", "config.shard")]  # which run, which part of it
    for name, where in checks:
        value = getattr(given, name)
        if value is None:
            continue
        value, used = _comparable(name, value), getattr(config, name)
        if used != value:
            raise InputError(manifest, where, f"the run used {used!r}; {flags(name)} {value!r} "
                                              "would change results")
