"""SceneMem's defaults, declared once, in a module that imports nothing (the command line's
flags and help read them without loading numpy or robosuite)."""

# The card's step budget per test, when its eval_spec.json gives none.
DEFAULT_MAX_STEPS = 1500
