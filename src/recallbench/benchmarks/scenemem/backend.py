"""Building a scenario's env: backends differ only in the factory ``make_env(name, **kwargs)``.

Factories: ``--env-factory module:function`` from the command line (any env with robosuite's
API), or a name the suite gives in ``env_args["env_factory"]`` that an installed package
registered under the ``recallbench.env_factories`` entry points (a suite never names code); names
starting with "Recallbench" go to the built-in world; anything else to ``robosuite.make`` (after
``import robocasa`` when installed, so RoboCasa kitchens register). Then the card's five loading
steps run identically for every backend, the model's file references checked first
(``model_files.safe_model_xml``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from recallbench.benchmarks.scenemem.model_files import safe_model_xml
from recallbench.benchmarks.scenemem.spec import (
    Scenario,
    check_fixture_names,
    load_start_state,
    registered_env_factories,
)
from recallbench.loader import load_attr

BUILTIN_PREFIX = "Recallbench"


def robocasa_available() -> bool:
    try:
        import robocasa  # noqa: F401  - registers RoboCasa's kitchen envs with robosuite
    except ImportError:
        return False
    return True


def _robosuite_make(env_name: str, **kwargs: Any) -> Any:
    import robosuite

    robocasa_available()
    return robosuite.make(env_name, **kwargs)


def _import_callable(ref: str) -> Callable[..., Any]:
    factory: Callable[..., Any] = load_attr(ref)
    return factory


def check_factory_reference(ref: str, flag: str = "--env-factory") -> None:
    """A --env-factory that cannot be imported is a one-line error before any work; ``flag``:
    how the command spells the option (``--scenemem-env-factory`` on ``recallbench run``)."""
    if ":" not in ref:
        raise ValueError(f"{flag} must be 'module:function' or 'file.py:function': {ref!r}")
    try:
        factory = _import_callable(ref)
    except (ImportError, AttributeError, OSError, ValueError) as exc:
        raise ValueError(f"{flag} {ref}: {type(exc).__name__}: {exc}") from None
    if not callable(factory):
        raise ValueError(f"{flag} {ref}: not callable")


def resolve_factory(
    env_name: str, env_factory: str | None = None, registered: str | None = None
) -> Callable[..., Any]:
    """``env_factory``: a command-line ``module:function``; ``registered``: an entry-point name."""
    if env_factory:
        return _import_callable(env_factory)
    if registered:
        return registered_env_factories()[registered].load()
    if env_name.startswith(BUILTIN_PREFIX):
        from recallbench.world.env import make_env  # the built-in MuJoCo home

        return make_env
    return _robosuite_make


def env_kwargs(scenario: Scenario, cameras: bool = True) -> tuple[str, dict[str, Any], bool]:
    """The env name, the kwargs passed to the factory, and whether robosuite builds it.

    For robosuite, exactly as the card builds it: ``has_renderer=False``,
    ``has_offscreen_renderer=True`` and ``use_camera_obs=True`` whatever env_args say, plus
    ``ignore_done`` so max_steps, not robosuite's horizon, ends a rollout. ``cameras=False``
    (``--no_camera_obs``, for policies that read no images: two 256x256 cameras cost ~0.35 s a
    step) turns camera observations and the offscreen renderer off. Other factories get
    env_kwargs unchanged (they render only the cameras a policy asks for).
    """
    kw = dict(scenario.env_args.get("env_kwargs", {}))
    env_name = kw.pop("env_name", scenario.env_args.get("env_name"))
    factory_ref = scenario.env_factory or scenario.env_args.get("env_factory")
    is_robosuite = not factory_ref and not env_name.startswith(BUILTIN_PREFIX)
    if is_robosuite:
        kw.update(
            has_renderer=False,
            has_offscreen_renderer=cameras,
            use_camera_obs=cameras,
            ignore_done=True,
        )
    return env_name, kw, is_robosuite


def make_scenario_env(scenario: Scenario, cameras: bool = True) -> Any:
    env_name, kw, _ = env_kwargs(scenario, cameras)
    factory = resolve_factory(env_name, scenario.env_factory, scenario.env_args.get("env_factory"))
    return factory(env_name, **kw)


def load_start(env: Any, scenario: Scenario) -> None:
    """The card's five steps, in order, or the layout will not match unified_model.xml."""
    env.set_ep_meta(scenario.ep_meta)
    env.reset()
    xml = env.edit_model_xml(scenario.xml_path.read_text())
    env.reset_from_xml_string(safe_model_xml(xml, scenario.xml_path, scenario.trusted))
    env.sim.reset()
    model = env.sim.model
    state = load_start_state(scenario, 1 + int(model.nq) + int(model.nv))
    env.sim.set_state_from_flattened(state)
    env.sim.forward()


def check_against_model(env: Any, scenario: Scenario) -> None:
    """Fixture names must exist in the compiled model (the XML check cannot see generated names)."""
    model = env.sim.model
    check_fixture_names(
        scenario.spec,
        scenario.root / "eval_spec.json",
        lambda name: _id(model.body_name2id, name) is not None,
        lambda name: _joint_type(model, name),
    )


# mujoco's mjtJoint order: mjJNT_FREE, mjJNT_BALL, mjJNT_SLIDE, mjJNT_HINGE
_JOINT_TYPES = ("free", "ball", "slide", "hinge")


def _id(lookup: Callable[[str], int], name: str) -> int | None:
    try:
        i = lookup(name)  # raw mujoco returns -1, robosuite raises
    except (ValueError, KeyError):
        return None
    return i if i >= 0 else None


def _joint_type(model: Any, name: str) -> str | None:
    j = _id(model.joint_name2id, name)
    if j is None:
        return None
    return _JOINT_TYPES[int(model.jnt_type[j])]
