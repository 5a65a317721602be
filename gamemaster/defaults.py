"""The empty list and dict the state and reply models start their fields with.

pydantic asks a field's default factory for its signature (``inspect.signature``) when it builds
the model. For a builtin such as ``list`` that parses the builtin's text signature with
``tokenize``, whose first use compiles a large regular expression: about 6 ms of every command's
start-up. A plain function's signature comes from its code object, and the default is the same.
"""

from __future__ import annotations


def empty_list() -> list:
    return []


def empty_dict() -> dict:
    return {}
