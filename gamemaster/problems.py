"""Problems found in state files, reported as ``file:line: reason``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    file: str
    line: int | None
    reason: str
    warning: bool = False

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        prefix = "warning: " if self.warning else ""
        return f"{where}: {prefix}{self.reason}"


class GamemasterError(Exception):
    """A problem the user can fix; the CLI prints it and exits 1."""

    def __init__(self, message: str, problems: list[Problem] | None = None):
        super().__init__(message)
        self.problems = problems or []


class StateError(GamemasterError):
    """A state file that cannot be read as the contract says."""


def described(error: dict) -> str:
    """One of a pydantic ``ValidationError``'s ``errors()`` as ``field.part: message``."""
    loc = ".".join(str(p) for p in error["loc"])
    return f"{loc}: {error['msg']}" if loc else error["msg"]


def describe_validation_error(exc, only: dict | None = None) -> str:
    """Every error of a ``ValidationError`` as ``field: message``, joined; ``only`` one of ``exc.errors()``."""
    return "; ".join(described(error) for error in ([only] if only is not None else exc.errors()))
