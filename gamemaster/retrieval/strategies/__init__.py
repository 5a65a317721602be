"""Retrieval strategies, one module each; ``selection`` in ``state/world.json`` names one.

A strategy module defines ``STRATEGY``, an object with a ``name`` and
``select(stream, query, settings) -> Selection`` (see ``..base``). Adding a
strategy is adding a module here.
"""
