"""Checks on sources: cited, resolvable, retrieved, precise."""

from __future__ import annotations

from evals.checks.base import (
    CheckInput,
    CheckResult,
    check,
    failed,
    passed,
    ratio,
    skipped,
)
from evals.checks.text import quote


@check()
def sources_cited(inp: CheckInput) -> CheckResult:
    sources = inp.case.expect.get("sources") or []
    if not sources:
        return skipped("no expect.sources")
    cited = set(inp.cited)
    missing = [s for s in sources if s not in cited]
    if missing:
        return ratio(len(sources) - len(missing), len(sources), f"not cited: {quote(missing)}")
    return ratio(len(sources), len(sources), f"all {len(sources)} sources cited")


@check()
def citations_resolve(inp: CheckInput) -> CheckResult:
    cited = inp.cited
    if not cited:
        return failed("the answer cites nothing")
    available = set(inp.retrieved)
    unknown = [c for c in cited if c not in available]
    if unknown:
        return failed(f"cited but not retrieved: {quote(unknown)}")
    return passed(f"{len(cited)} citations, all retrieved")


@check()
def retrieval_recall(inp: CheckInput) -> CheckResult:
    sources = inp.case.expect.get("sources") or []
    if not sources:
        return skipped("no expect.sources")
    got = set(inp.retrieved)
    missing = [s for s in sources if s not in got]
    if missing:
        return ratio(len(sources) - len(missing), len(sources), f"not retrieved: {quote(missing)}")
    return ratio(len(sources), len(sources), f"all {len(sources)} sources retrieved")


@check()
def citation_precision(inp: CheckInput) -> CheckResult:
    sources = set(inp.case.expect.get("sources") or [])
    cited = inp.cited
    if not cited:
        return skipped("no citations to judge (see citations_resolve)")
    retrieved = set(inp.retrieved)
    off = [c for c in cited if c not in retrieved or c not in sources]
    good = len(cited) - len(off)
    if off:
        return ratio(good, len(cited), f"cited refs not both retrieved and expected: {quote(off)}")
    return ratio(good, len(cited), f"all {len(cited)} citations expected and retrieved")
