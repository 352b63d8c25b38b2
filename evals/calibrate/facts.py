"""The judge per fact and per claim against people's labels: each labelled answer the
checks leave in review is asked item by item, as a run with --judge would, and the answers
are compared with what the person's label implies for each item (facts and claims apart).

A person labels the whole answer, so an item's label is derived: a correct answer states
every fact it was asked about (and its promises are backed); a wrong answer whose only
undecided item is one question, with no check failing, is wrong because of it. A wrong
answer with several undecided items does not say which one is missing: it is counted apart,
never guessed.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from evals.calibrate.grading import labelled_answers
from evals.calibrate.labelled import Labelled
from evals.calibrate.stats import agreement, cohen_kappa, kappa_interval
from evals.checks.base import CheckInput
from evals.checks.grading import grade
from evals.checks.questions import CLAIM, Question, open_questions
from evals.judge.client import Judge
from evals.judge.questions import ask_one
from evals.suite.case import Case
from evals.suite.folder import Suite


@dataclass(frozen=True)
class FactItem:
    """One question on one labelled answer: the label it implies and the judge's answer."""

    case: str
    source: str
    check: str
    item: str
    #: pass (stated, or backed), fail, or None when the answer's label does not say.
    human: str | None
    stated: bool | None
    quote: str | None
    error: str | None
    #: "fact" (a fact, figure or promise) or "claim" (a sentence no check could ground).
    kind: str = "fact"


@dataclass(frozen=True)
class FactWork:
    """One labelled answer with open questions, and the label each question's item gets."""

    inp: CheckInput
    answer: Labelled
    questions: list[Question]
    humans: list[str | None]


def fact_work(suite: Suite) -> list[FactWork]:
    """Every labelled answer of the suite that the checks leave with open questions."""
    cases, answers = labelled_answers(suite, [])
    by_id: dict[str, Case] = {c.id: c for c in cases}
    out = []
    for a in answers:
        case = by_id.get(a.case)
        if case is None:
            continue
        inp = CheckInput(case=case, reply=a.reply(), settings=suite.settings)
        results = grade(case, inp.reply, suite.settings)
        qs = open_questions(inp, results)
        if not qs:
            continue
        if a.label == "fail" and any(r.status == "fail" for r in results.values()):
            # A check already fails it: the open items are not why it is wrong.
            human: list[str | None] = [None] * len(qs)
        elif a.label == "pass":
            human = ["pass"] * len(qs)
        else:
            human = ["fail"] if len(qs) == 1 else [None] * len(qs)
        out.append(FactWork(inp, a, qs, human))
    return out


async def _ask(judge: Judge, work: list[FactWork], concurrency: int) -> list[FactItem]:
    sem = asyncio.Semaphore(max(concurrency, 1))

    async def one(w: FactWork) -> list[FactItem]:
        a = w.answer
        async with sem:
            found = []
            for q, human in zip(w.questions, w.humans, strict=True):
                out, d = await ask_one(judge, w.inp, q)
                quote = (out.verdict or {}).get("quote")
                found.append(
                    FactItem(
                        a.case, a.source, q.check, q.item, human, d.stated, quote, d.error, q.kind
                    )
                )
            return found

    try:
        done = await asyncio.gather(*(one(w) for w in work))
    finally:
        await judge.aclose()
    return [i for group in done for i in group]


def ask_facts(judge: Judge, suite: Suite, concurrency: int) -> list[FactItem]:
    """Ask the judge every open question of the suite's labelled answers."""
    work = fact_work(suite)
    return asyncio.run(_ask(judge, work, concurrency)) if work else []


def fact_lines(items: list[FactItem]) -> list[str]:
    """The per-fact and per-claim sections of `invoke calibrate`: agreement and kappa with
    its interval, each apart."""
    facts = [i for i in items if i.kind != CLAIM]
    claims = [i for i in items if i.kind == CLAIM]
    return [
        *_section(
            "judge per fact (labelled answers the checks leave in review, one question per item):",
            "no labelled answer leaves a fact, figure or promise in review",
            facts,
        ),
        *_section(
            "judge per claim (sentences claims_grounded leaves in review, asked of the passages):",
            "no labelled answer leaves a claim in review",
            claims,
        ),
    ]


def _section(head: str, empty: str, items: list[FactItem]) -> list[str]:
    if not items:
        return ["", head, f"  {empty}"]
    errors = [i for i in items if i.error is not None]
    open_ = [i for i in items if i.human is None and i.error is None]
    scored = [i for i in items if i.human is not None and i.error is None]
    pairs = [(str(i.human), "pass" if i.stated else "fail") for i in scored]
    n = len(pairs)
    agree, kappa, ci = agreement(pairs), cohen_kappa(pairs), kappa_interval(pairs)
    agreed = sum(h == j for h, j in pairs)
    kappa_text = (
        "undefined (every label and answer is one class)"
        if kappa is None
        else f"{kappa:.3f}" + (f" (95% CI {ci[0]:.2f} to {ci[1]:.2f})" if ci else "")
    )
    lines = [
        "",
        head,
        f"  {len(items)} question(s) on {len({(i.case, i.source) for i in items})} answer(s); "
        f"{n} with a label that decides the item, {len(open_)} on wrong answers with several "
        f"open items (not counted), {len(errors)} without a valid quoted answer (errors)",
        "  agreement: "
        + (f"{agree * 100:.1f}% ({agreed}/{n})" if agree is not None else "n/a (n = 0)"),
        f"  Cohen's kappa: {kappa_text}, n = {n}",
    ]
    wrong = [i for i in scored if i.human != ("pass" if i.stated else "fail")]
    for i in wrong:
        said = f'stated ("{i.quote}")' if i.stated else "not stated"
        lines.append(f"  disagrees: {i.case} ({i.source}) {i.item}: label {i.human}, judge {said}")
    # Grouped by why, most frequent first, as `report` groups a run's errors: one broken
    # judge is one line, not one per question.
    groups: dict[str, list[str]] = {}
    for i in errors:
        groups.setdefault(str(i.error), []).append(f"{i.case} ({i.source}) {i.item}")
    for reason, where in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        names = "; ".join(where[:3]) + ("; ..." if len(where) > 3 else "")
        lines.append(f"  error: {len(where)}x {reason}  ({names})")
    return lines
