"""gamemaster: run a studio of AI characters scene by scene."""

__version__ = "0.1.0"
