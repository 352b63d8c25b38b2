"""Entry functions that span features: `invoke run` (flags to one RunPlan; the sealed pile
or the visible suite) and `invoke validate` / `fmt` / `new`.

The top layer: may import every subpackage; nothing imports it.
"""
