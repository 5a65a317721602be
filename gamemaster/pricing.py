"""The one price table: US dollars per million tokens, by model family; and what each model
caches (the shortest cacheable prefix), which decides what a prompt's shared start holds.

List prices for standard (non-batch) calls. Cache writes cost 1.25x the input
price for the 5-minute TTL (what the API backend uses) and 2x for the 1-hour one,
cache reads 0.1x; the Message Batches API halves every figure. Update the table here when prices change; `gamemaster cost` and the
budget check read nothing else.
"""

from __future__ import annotations

PER_MILLION = {
    # family: (input, output)
    "haiku": (1.00, 5.00),
    "sonnet": (3.00, 15.00),
    "opus": (5.00, 25.00),
}
CACHE_WRITE_FACTOR = 1.25
CACHE_WRITE_1H_FACTOR = 2.0
CACHE_READ_FACTOR = 0.10
BATCH_FACTOR = 0.50
#: A model id whose family is not in the table is priced like this one; `cost` names such models.
FALLBACK_FAMILY = "sonnet"

#: The shortest prefix the API caches, in tokens, by model id prefix (the first matching counts).
#: A model it does not list gets the strictest figure: nothing is promised that the API might not keep.
MIN_CACHEABLE = (
    ("claude-opus-5", 512), ("claude-fable-5", 512), ("claude-mythos-5", 512),
    ("claude-sonnet-5", 1024), ("claude-opus-4-8", 1024),
    ("claude-opus-4-7", 4096), ("claude-opus-4-6", 4096), ("claude-opus-4-5", 4096), ("claude-haiku-4-5", 4096),
    ("claude-sonnet-4", 1024), ("claude-opus-4", 1024), ("claude-3-7-sonnet", 1024),
    ("claude-3-5-haiku", 2048), ("claude-3-haiku", 2048),
)
STRICTEST_MIN_CACHEABLE = 4096
#: Characters a token, for what is estimated before a call (a scene's cost, what a prompt caches).
CHARS_PER_TOKEN = 4


def minimum_cacheable(model: str | None) -> int | None:
    """The shortest prefix ``model`` caches, in tokens; None where no model id is named: none (the
    backend chooses) or an alias (``sonnet``, ``opus``: the backend decides which model it means)."""
    name = (model or "").lower()
    if not name.startswith("claude-"):
        return None
    return next((tokens for prefix, tokens in MIN_CACHEABLE if name.startswith(prefix)), STRICTEST_MIN_CACHEABLE)


USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def family(model: str | None) -> str:
    name = (model or "").lower()
    for known in PER_MILLION:
        if known in name:
            return known
    return FALLBACK_FAMILY


def is_priced(model: str | None) -> bool:
    name = (model or "").lower()
    return any(known in name for known in PER_MILLION)


def cost_usd(model: str | None, usage: dict[str, int], batch: bool = False) -> float:
    """What one call cost at list prices."""
    input_price, output_price = PER_MILLION[family(model)]
    total = (
        usage.get("input_tokens", 0) * input_price
        + usage.get("output_tokens", 0) * output_price
        + usage.get("cache_creation_input_tokens", 0) * input_price * CACHE_WRITE_FACTOR
        + usage.get("cache_read_input_tokens", 0) * input_price * CACHE_READ_FACTOR
    ) / 1_000_000
    return total * (BATCH_FACTOR if batch else 1.0)
