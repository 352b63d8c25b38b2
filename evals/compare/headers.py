"""Two run headers side by side: what differs between the runs, and whether they may be paired."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from evals.errors import InputError
from evals.run.files import RunFile


@dataclass
class HeaderField:
    name: str
    a: str
    b: str

    @property
    def differs(self) -> bool:
        return self.a != self.b


@dataclass
class RunInfo:
    path: str
    run_id: str
    created: str
    model: str
    complete: bool
    truncated: bool
    n_rows: int
    n_error_rows: int
    n_review_rows: int  # rows a check left undecided; read like errors, counted apart
    epochs: int
    warnings: list[str]


def check_pairable(a: RunFile, b: RunFile) -> None:
    """Refuse pairs that cannot be compared: a sealed run only pairs with the same sealed pile."""
    sa, sb = a.header.get("sealed") or None, b.header.get("sealed") or None
    if bool(sa) != bool(sb):
        sealed, plain = (a, b) if sa else (b, a)
        raise InputError(
            f"cannot pair a sealed run with an unsealed one: {sealed.path} is sealed, {plain.path} is not"
        )
    if sa and sb and sa.get("digest") != sb.get("digest"):
        raise InputError(
            f"cannot pair runs over different sealed piles: {a.path} has sealed digest "
            f"{sa.get('digest')}, {b.path} has {sb.get('digest')}"
        )


def run_info(run: RunFile) -> RunInfo:
    """What the diff shows about one run: id, model, epochs, error rows, completeness."""
    epochs = max((int(r.get("epoch") or 0) + 1 for r in run.rows), default=1)
    return RunInfo(
        path=str(run.path),
        run_id=run.run_id,
        created=str(run.header.get("created", "")),
        model=str(run.header.get("model", "")),
        complete=run.complete,
        truncated=run.truncated,
        n_rows=len(run.rows),
        n_error_rows=sum(1 for r in run.rows if r.get("status") == "error"),
        n_review_rows=sum(1 for r in run.rows if r.get("status") == "review"),
        epochs=epochs,
        warnings=list(run.warnings),
    )


def _show(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    return str(value)


def _judge(value: Any) -> str:
    if not value:
        return "none"
    if isinstance(value, dict):
        return _show(
            {k: v for k, v in value.items() if k in ("model", "prompt_sha", "scale")} or value
        )
    return _show(value)


def header_fields(a: dict[str, Any], b: dict[str, Any]) -> list[HeaderField]:
    """The stamps that say what differs between two runs; settings and versions key by key."""
    ga, gb = a.get("git") or {}, b.get("git") or {}

    def commit(g: dict[str, Any]) -> str:
        return _show(g.get("commit")) + (" (dirty)" if g.get("dirty") else "")

    def sealed(h: dict[str, Any]) -> str:
        s = h.get("sealed")
        return _show(s.get("digest")) if isinstance(s, dict) and s else "none"

    out = [
        HeaderField("created", _show(a.get("created")), _show(b.get("created"))),
        HeaderField("model", _show(a.get("model")), _show(b.get("model"))),
        HeaderField("provider", _show(a.get("provider")), _show(b.get("provider"))),
        HeaderField("prompt sha", _show(a.get("prompt_sha")), _show(b.get("prompt_sha"))),
        HeaderField("suite digest", _show(a.get("suite_digest")), _show(b.get("suite_digest"))),
        HeaderField("judge", _judge(a.get("judge")), _judge(b.get("judge"))),
        HeaderField("git commit", commit(ga), commit(gb)),
        HeaderField("label", _show(a.get("label")), _show(b.get("label"))),
        HeaderField("sealed", sealed(a), sealed(b)),
    ]
    for group in ("settings", "versions"):
        sa, sb = a.get(group) or {}, b.get(group) or {}
        for key in sorted(set(sa) | set(sb)):
            fa, fb = _show(sa.get(key)), _show(sb.get(key))
            if fa != fb:
                out.append(HeaderField(f"{group}.{key}", fa, fb))
    return out
