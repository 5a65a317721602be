"""Adopting a studio written elsewhere: ``gamemaster doctor`` and ``gamemaster import``.

Studios written by hand or by a Game Master outside this toolkit drift from seed 001's
format in the same few ways. ``drift`` reads such files tolerantly and says, per file
and line, what differs and what the fix does; ``fix`` backs up ``state/`` and rewrites
it in the canonical format without losing a value; ``importer`` makes a workspace of a
state folder from elsewhere.

Nothing that ``next``, ``prompt`` or ``apply`` import may import this package: it is
loaded only by the commands that need it.
"""
