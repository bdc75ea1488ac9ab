"""FindingDory's defaults, declared once, in a module that imports nothing (the command line's
flags and help read them without loading numpy)."""

# The published frame budget K: the agent is offered 96 frames of the day.
DEFAULT_FRAMES = 96
