"""recallbench: evaluation harness for memory in embodied agents."""

__version__ = "0.1.0"
