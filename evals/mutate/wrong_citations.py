"""Mutants that break an answer's citations: removed, moved to another ref, pointing nowhere."""

from __future__ import annotations

from evals.checks.citations import supports
from evals.mutate.answer import Answer, CaseContext
from evals.mutate.registry import Variant, operator
from evals.mutate.text import splice, tidy
from evals.suite.case import Case


@operator("citations_removed", "mutant", "every citation removed")
def citations_removed(case: Case, ans: Answer, ctx: CaseContext) -> list[Variant]:
    # The rule is a source after every figure: an answer without figures of its own may
    # stand uncited, so taking its citations away does not make it wrong.
    own = [f for f in ans.figures if (f.kind, f.value) not in ctx.given_values]
    if not ans.cites or not any(f.kind != "number" for f in own):
        return []
    text = tidy(splice(ans.text, [(c.start, c.end, "") for c in ans.cites]))
    return [Variant("citations_removed", text, f"removed {len(ans.cites)} citation(s)")]


def _never(_: object) -> bool:
    return False


@operator("citation_moved", "mutant", "one citation moved to another retrieved ref")
def citation_moved(case: Case, ans: Answer, ctx: CaseContext) -> list[Variant]:
    if not ans.cites:
        return []
    sources = set(case.expect.get("sources") or []) | set(case.expect.get("may_cite") or [])
    cited = {c.ref for c in ans.cites}
    # moving to another expected source would not make the answer wrong
    targets = [r for r in ctx.retrieved_refs if r not in sources and r not in cited]
    targets += [r for r in ctx.retrieved_refs if r not in sources and r in cited]
    # move a citation of an expected source first: that is where a wrong attribution hurts
    order = sorted(ans.cites, key=lambda c: c.ref not in sources)
    passages = {r.get("ref"): str(r.get("text") or "") for r in case.retrieved}
    for c in order:
        # A wrong attribution: a passage that does not back the cited sentence (moving to
        # one that does, "SSO is Enterprise-only [pricing#plans]", is no mistake).
        claim = ans.text[max(0, ans.text.rfind(". ", 0, c.start) + 1) : c.start]
        target = next(
            (r for r in targets if r != c.ref and not supports(passages.get(r, ""), claim, _never)),
            None,
        )
        if target is None:
            continue
        text = ans.text[: c.ref_start] + target + ans.text[c.ref_end :]
        if ctx.cite.fullmatch(text[c.start : c.end + len(target) - len(c.ref)]) is None:
            continue  # the target ref cannot be written in the suite's citation format
        return [Variant("citation_moved", text, f"citation {c.ref} -> {target}")]
    return []


@operator(
    "citation_unretrieved", "mutant", "one citation pointing to a ref that was never retrieved"
)
def citation_unretrieved(case: Case, ans: Answer, ctx: CaseContext) -> list[Variant]:
    if not ans.cites:
        return []
    c = ans.cites[0]
    known = set(ctx.retrieved_refs)
    # the first made-up ref that the suite's citation pattern still reads as a citation
    for fake in (f"{c.ref}-archived", f"{c.ref}-old", f"{c.ref}x", f"{c.ref}9", "x" + c.ref):
        if fake in known:
            continue
        marker = ans.text[c.start : c.ref_start] + fake + ans.text[c.ref_end : c.end]
        m = ctx.cite.fullmatch(marker)
        if m and (m.group(1) if m.re.groups else m.group(0)) == fake:
            text = ans.text[: c.start] + marker + ans.text[c.end :]
            note = f"citation {c.ref} -> {fake} (never retrieved)"
            return [Variant("citation_unretrieved", text, note)]
    return []
