"""Reading many records at once without the cyclic garbage collector's passes over them."""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def no_cycle_collection() -> Iterator[None]:
    """Pause CPython's cyclic garbage collector while many small objects are made and kept.

    Every few hundred new containers the collector walks the objects still alive; a listing that
    keeps tens of thousands of parsed memories (dicts, lists, models) spent about a third of its
    time in passes that found nothing, and an index build, which makes millions of short-lived
    ones (each line's parsed JSON, its rows), a tenth: records hold no cycles, and reference
    counting frees them. The collector is on again afterwards if it was before."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
