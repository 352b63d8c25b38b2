"""Project settings from `[tool.evals]` in pyproject.toml, with defaults."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evals.errors import InputError

DEFAULT_MODEL = "local/extractive@2026-11-01"


@dataclass(frozen=True)
class Settings:
    """Project-wide settings; every one has a default so a bare checkout works."""

    root: Path
    default_model: str = DEFAULT_MODEL
    suite: str = "evals"
    runs_dir: str = "runs"
    cache: str = ".evals-cache/cache.sqlite"
    concurrency: int = 8
    timeout_s: float = 60.0
    max_retries: int = 4
    #: Re-sends of an attempt whose failure was transient (after the SDK's own retries).
    resend: int = 2
    #: The wait before the first re-send, doubled before each next (at least the Retry-After).
    resend_wait_s: float = 1.0
    temperature: float = 0.0
    kappa_floor: float = 0.6
    base_url: str | None = None
    prices: dict[str, dict[str, float]] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def runs_path(self) -> Path:
        return self.root / self.runs_dir

    @property
    def cache_path(self) -> Path:
        return self.root / self.cache


def find_root(start: Path | None = None) -> Path:
    """The nearest directory at or above `start` holding a pyproject.toml (else `start`)."""
    here = (start or Path.cwd()).resolve()
    for d in (here, *here.parents):
        if (d / "pyproject.toml").is_file():
            return d
    return here


def load_settings(root: Path | None = None) -> Settings:
    """Read `[tool.evals]`; unknown keys are kept in `extra` for features that own them."""
    root = find_root(root)
    path = root / "pyproject.toml"
    table: dict[str, Any] = {}
    if path.is_file():
        try:
            table = tomllib.loads(path.read_text("utf-8")).get("tool", {}).get("evals", {})
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise InputError(f"{path}: cannot read [tool.evals]: {exc}") from None
    known = {f for f in Settings.__dataclass_fields__ if f not in ("root", "extra")}
    kwargs = {k: v for k, v in table.items() if k in known}
    extra = {k: v for k, v in table.items() if k not in known}
    return Settings(root=root, extra=extra, **kwargs)
