"""The run flags as one object, and the plan pieces they choose: provider, judge, cases, settings."""

from __future__ import annotations

import dataclasses
import hashlib
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evals.checks.grading import grader_only
from evals.checks.loading import load_cases
from evals.cli import settings as load_settings
from evals.config import Settings
from evals.errors import InputError
from evals.providers.base import Provider
from evals.providers.local import ExtractiveModel
from evals.providers.modelid import check_pinned
from evals.providers.openai_compat import OpenAICompatProvider, from_settings
from evals.providers.replay import ReplayProvider
from evals.providers.target import TargetProvider, load_target
from evals.run.cost import batch_discount, price_for
from evals.run.plan import MAX_EPOCHS, BatchSettings, Grader
from evals.suite.case import Case
from evals.suite.caselist import CaseList
from evals.suite.folder import Suite, select_cases


@dataclass
class RunOptions:
    suite: str | None = None
    model: str | None = None
    answers: str | None = None
    label: str | None = None
    limit: int | None = None
    category: str | None = None
    case: str | None = None
    concurrency: int | None = None
    #: Processes that grade (None: one per core).
    workers: int | str | None = None
    #: --model given several times: one run per model.
    models: list[str] = field(default_factory=list)
    target: str | None = None
    no_cache: bool = False
    max_cost: float | None = None
    resume: str | None = None
    epochs: int = 1
    shard: str | None = None
    judge: str | None = None
    sealed: bool = False
    force: bool = False
    key_file: str | None = None
    #: Per-request timeout and SDK retries, overriding [tool.evals] timeout_s / max_retries.
    timeout_s: float | None = None
    max_retries: int | None = None
    #: --resend: re-sends of an attempt that ended in a transient error ([tool.evals] resend).
    resend: int | None = None
    #: Send the requests as one provider batch (OpenAI-compatible endpoints only).
    batch: bool = False


#: Past this, a failure is not transient: the run should stop, not keep asking.
MAX_RESEND = 10

_SHARD = re.compile(r"^(\d+)/(\d+)$")


def parse_shard(text: str | None) -> tuple[int, int] | None:
    """`I/N` with 1 <= I <= N."""
    if text is None:
        return None
    m = _SHARD.match(text.strip())
    if not m or not (1 <= int(m.group(1)) <= int(m.group(2))):
        raise InputError(f"--shard {text!r}: expected I/N with 1 <= I <= N, e.g. 2/4")
    return int(m.group(1)), int(m.group(2))


def in_shard(case_id: str, index: int, count: int) -> bool:
    """Deterministic: the same case always lands in the same shard, on any machine."""
    h = int.from_bytes(hashlib.sha256(case_id.encode("utf-8")).digest()[:8], "big")
    return h % count == index - 1


def make_provider(
    cfg: Settings,
    model: str | None = None,
    *,
    answers: str | None = None,
    target: str | None = None,
    withhold: bool = False,
) -> Provider:
    """Replay for --answers, the app for --target, the offline model for `local/...`,
    any other pinned id on the OpenAI-compatible endpoint. With `withhold`, the endpoint
    provider prints nothing the endpoint said (a sealed run)."""
    if answers:
        if not model:
            raise InputError("--answers needs --model: the pinned id of the system that wrote them")
        return ReplayProvider(check_pinned(model), Path(answers))
    if target:
        fn, identity = load_target(target, cfg.root)
        return TargetProvider(fn, identity, timeout_s=float(cfg.timeout_s))
    model = check_pinned(model or cfg.default_model)
    if model.startswith("local/extractive"):
        return ExtractiveModel(model)
    return from_settings(model, cfg, withhold=withhold)


def check_flags(opts: RunOptions, models: list[str]) -> None:
    if opts.target and models:
        raise InputError("--target and --model exclude each other: the target is the model")
    if opts.target and opts.answers:
        raise InputError("--target and --answers exclude each other")
    if opts.answers and len(models) > 1:
        raise InputError("--answers takes exactly one --model")
    if opts.epochs < 1:
        raise InputError(f"--epochs {opts.epochs}: must be 1 or more")
    if opts.epochs > MAX_EPOCHS:
        raise InputError(
            f"--epochs {opts.epochs}: at most {MAX_EPOCHS} (every attempt is planned up front)"
        )
    if opts.concurrency is not None and opts.concurrency < 1:
        raise InputError(f"--concurrency {opts.concurrency}: must be 1 or more")
    if opts.max_cost is not None and opts.max_cost < 0:
        raise InputError(f"--max-cost {opts.max_cost}: must be 0 or more")
    if opts.timeout_s is not None and opts.timeout_s <= 0:
        raise InputError(f"--timeout {opts.timeout_s}: must be more than 0 seconds")
    if opts.max_retries is not None and opts.max_retries < 0:
        raise InputError(f"--retries {opts.max_retries}: must be 0 or more")
    if opts.resend is not None and not 0 <= opts.resend <= MAX_RESEND:
        raise InputError(f"--resend {opts.resend}: must be 0 to {MAX_RESEND}")
    if opts.batch and (opts.target or opts.answers):
        flag = "--target" if opts.target else "--answers"
        raise InputError(
            f"--batch needs an OpenAI-compatible endpoint: {flag} is answered here, not by one"
        )


def settings_for(opts: RunOptions) -> Settings:
    """[tool.evals], with the flags that override it."""
    cfg = load_settings()
    over: dict[str, Any] = {}
    if opts.timeout_s is not None:
        over["timeout_s"] = opts.timeout_s
    if opts.max_retries is not None:
        over["max_retries"] = opts.max_retries
    if opts.resend is not None:
        over["resend"] = opts.resend
    return dataclasses.replace(cfg, **over) if over else cfg


def grader_for(judge: str | None, suite: Suite, cfg: Settings, use_cache: bool) -> Grader | None:
    if not judge:
        return None
    from evals.judge.client import make_judge  # the OpenAI SDK comes with it: only for --judge

    return make_judge(model=judge, suite=suite, settings=cfg, use_cache=use_cache)


def warn_unmatched_answers(provider: Provider, cases: Sequence[Case]) -> None:
    """Say which saved answers (--answers) name no case of the suite."""
    if isinstance(provider, ReplayProvider):
        line = provider.unmatched(set(ids_of(cases)))
        if line:
            print(line, file=sys.stderr, flush=True)


def ids_of(cases: Sequence[Case]) -> Iterator[str]:
    """Every case's id (a CaseList's without reading its files)."""
    return cases.ids() if isinstance(cases, CaseList) else (c.id for c in cases)


def selected_cases(
    suite: Suite, sel: dict[str, Any], cases: Sequence[Case] | None = None
) -> Sequence[Case]:
    """The cases a selection (--case, --category, --limit, --shard) keeps, in id order."""
    if cases is None:
        cases, _ = load_cases(suite)
    chosen = select_cases(
        cases, case_glob=sel.get("case"), category=sel.get("category"), limit=sel.get("limit")
    )
    shard = sel.get("shard")
    if shard and isinstance(chosen, CaseList):
        return chosen.where_id(lambda cid: in_shard(cid, shard["index"], shard["count"]))
    if shard:
        chosen = [c for c in chosen if in_shard(c.id, shard["index"], shard["count"])]
    return chosen


def graded_cases(chosen: Sequence[Case], judged: bool) -> tuple[Sequence[Case], tuple[str, ...]]:
    """The cases a run can score, and the ids of those it leaves out: without --judge, a
    case that only the judge grades (a rubric and nothing else) would be asked and then
    scored by nothing, so it is not run at all (no request, no cost) and the summary names it."""
    if judged:
        return chosen, ()
    if isinstance(chosen, CaseList):  # each case read once to decide, none held
        kept, left = chosen.split(lambda c: not grader_only(c))
        return kept, tuple(left.ids())
    only = [grader_only(c) for c in chosen]
    left_out = tuple(c.id for c, o in zip(chosen, only, strict=True) if o)
    return [c for c, o in zip(chosen, only, strict=True) if not o], left_out


def check_budget(opts: RunOptions, model: str, cfg: Settings) -> None:
    """--max-cost caps answers and judge together, so both need a price."""
    if opts.max_cost is None:
        return
    for who, m in (("", model), ("the judge ", opts.judge)):
        if m and price_for(m, cfg.prices) is None:
            raise InputError(
                f"--max-cost: no price for {who}{m!r} in [tool.evals.prices] "
                "(USD per million input and output tokens), so its cost cannot be estimated"
            )


def _pointer(*parts: str) -> str:
    """A JSON pointer (RFC 6901): `/` and `~` inside a part are escaped."""
    return "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in parts)


def _seconds(cfg: Settings, key: str, default: float) -> float:
    value = cfg.extra.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise InputError(
            f"{cfg.root / 'pyproject.toml'}: {_pointer('tool', 'evals', key)}: "
            f"{value!r} is not a number of seconds more than 0"
        )
    return float(value)


def batch_settings(provider: Provider, cfg: Settings) -> BatchSettings:
    """`--batch`: the endpoint must be OpenAI-compatible; the price table may give the batch
    discount; `[tool.evals] batch_poll_s` / `batch_poll_max_s` set the wait between checks."""
    if not isinstance(provider, OpenAICompatProvider):
        what = "the offline model" if provider.stamp().get("kind") == "local" else "not one"
        raise InputError(
            f"--batch needs an OpenAI-compatible endpoint: {provider.model!r} is {what}"
        )
    try:
        discount = batch_discount(provider.model, cfg.prices)
    except ValueError as exc:
        where = _pointer("tool", "evals", "prices", provider.model, "batch_discount")
        raise InputError(f"{cfg.root / 'pyproject.toml'}: {where}: {exc}") from None
    poll_s = _seconds(cfg, "batch_poll_s", 5.0)
    poll_max_s = max(poll_s, _seconds(cfg, "batch_poll_max_s", 60.0))
    if discount is None and price_for(provider.model, cfg.prices) is not None:
        print(
            f"warning: no batch_discount for {provider.model!r} in [tool.evals.prices]: "
            "batch costs are counted at the live price",
            file=sys.stderr,
        )
    return BatchSettings(poll_s=poll_s, poll_max_s=poll_max_s, discount=discount)
