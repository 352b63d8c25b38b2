"""`no_forbidden`: the answer claims none of the case's forbidden claims (`must_not_contain`)
and states none of its retired figures (`forbidden_figures`) as current; a figure named to
correct, contrast or deny it, retired by its own source, or a step of the answer's own
arithmetic is no claim."""

from __future__ import annotations

from evals.checks.base import CheckInput, CheckResult, check, errored, failed, passed, skipped
from evals.checks.clauses import claims, stated_text
from evals.checks.equations import inside_working
from evals.checks.expectations import items
from evals.checks.forbidden import denied, named_to_correct, passage_limit
from evals.checks.given import counts_of, given_figures
from evals.checks.retired import retired_by_its_source
from evals.checks.thing_counts import parse_expected, thing_counts
from evals.checks.things import archived
from evals.checks.values import parse_figures, parse_one
from evals.checks.worked import step_of_later, worked_input


@check()
def no_forbidden(inp: CheckInput) -> CheckResult:
    phrases = inp.case.expect.get("must_not_contain") or []
    banned = inp.case.expect.get("forbidden_figures") or []
    if not phrases and not banned:
        return skipped("no expect.must_not_contain or expect.forbidden_figures")
    # Asked, under "it is not true that" or supposed: no claim (stated_text keeps offsets).
    said = stated_text(inp.answer, inp.lang, aside=True, given=given_figures(inp.case))
    hits = [f'"{p}"' for p in phrases if claims(said, p, lang=inp.lang, synonyms=inp.synonyms)]
    figs = parse_figures(said, inp.lang) if banned else []
    # The figures the case expects: a forbidden one that is a step to them is no claim.
    expected = [
        f
        for it in (items(inp.case.expect.get("figures")) if banned else [])
        for f in map(parse_one, it.alternatives)
        if f is not None
    ]
    # The current passages the answer cites: a floor or cap one of them gives, restated, is
    # no claim.
    cited_texts = [
        text
        for r in inp.case.retrieved
        if r.get("ref") in inp.cited and not archived(text := str(r.get("text") or ""))
    ]
    for text in banned:
        want = parse_expected(text)
        if want is None:
            return errored(f"expect.forbidden_figures {text!r}: not a figure the parser reads")
        for fig in [f for f in figs if f.same(want)] + thing_counts(said, want, inp.lang):
            # Named to correct it ("archived", "no longer"), denied ("50 €, not 300 €"), or
            # a step of the answer's own arithmetic ("444 € + 360 € = 804 €").
            if (
                not named_to_correct(inp.answer, fig.start, inp.lang)
                and not denied(inp.answer, fig, inp.lang)
                and not retired_by_its_source(inp, fig)
                and not worked_input(inp.answer, fig, figs, inp.lang)
                and not inside_working(inp.answer, fig, figs, inp.lang)
                and not passage_limit(inp.answer, fig, cited_texts, inp.lang)
                and not step_of_later(
                    inp.answer,
                    fig,
                    figs,
                    lambda f: counts_of(inp.answer, f, inp.case),
                    expected,
                    inp.lang,
                )
            ):
                hits.append(f'"{fig.text}" (as a current figure)')
                break
    if hits:
        return failed(f"forbidden claim: {', '.join(hits)}")
    n = len(phrases) + len(banned)
    return passed(f"none of {n} forbidden claims (named to correct them is allowed)")
