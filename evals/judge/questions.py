"""The judge per fact and per claim: each fact, figure or promise the checks left in review,
and each sentence of the answer `claims_grounded` could not ground, is put to the judge as
one question with structured output, and its quote is checked against the text.

A quote that is not in the answer (for a promise, in the passages and the ticket; for a
claim, in one current passage or customer turn), or that sits in a negated clause, makes
that check an error: the judge's word alone never decides. Valid answers are cached like
case verdicts.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, Protocol

from evals.checks import CheckResult
from evals.checks.base import CheckInput
from evals.checks.questions import (
    CLAIM,
    SOURCES,
    Decision,
    Question,
    open_questions,
    quote_problem,
    settle,
)
from evals.checks.things import archived
from evals.judge.asking import JudgeOutcome, Request, ask
from evals.judge.cache import package_version
from evals.judge.prompt import earlier_turns
from evals.judge.verdict import parse_reply, schema_sha, wire_schema
from evals.providers.modelid import endpoint_name
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.schemas import SCHEMA_DIR

if TYPE_CHECKING:
    from openai import AsyncOpenAI

    from evals.judge.cache import VerdictCache
    from evals.suite.folder import Suite


class Judge(Protocol):
    """What asking a question needs of the judge (evals.judge.client.Judge)."""

    model: str
    suite: Suite
    client: AsyncOpenAI
    cache: VerdictCache | None
    endpoint: str | None
    temperature: float
    max_attempts: int

    def mask(self, text: str) -> str: ...

    def cost_of(self, out: JudgeOutcome) -> float | None: ...


SCHEMA_FILE = SCHEMA_DIR / "judge_question.schema.json"

#: The system message of every question (its SHA-256 is part of each cache key).
INSTRUCTIONS = """You check one statement against a text, for an evaluation of a support assistant.
Say whether the text states the statement. Other words with the same meaning count; a text
that only mentions the same terms, states something else, or denies it does not state it.
When it does, copy into "quote" the exact words of the text that state it (a contiguous
passage; mark a cut with "..."). When it does not, set stated to false and quote to "".
Reply with one JSON object: stated (true or false), quote (a string), reasoning (a sentence)."""


@cache
def question_schema() -> dict[str, Any]:
    """schemas/judge_question.schema.json."""
    return json.loads(SCHEMA_FILE.read_text("utf-8"))


def instructions_sha() -> str:
    return hashlib.sha256(INSTRUCTIONS.encode("utf-8")).hexdigest()


def question_message(case: Case, reply: Reply, q: Question) -> str:
    """The user message: the conversation, the text the quote must come from, the statement."""
    parts = []
    if case.messages:
        parts.append(earlier_turns(case))
    parts.append(f"<customer_question>\n{case.question}\n</customer_question>")
    if q.kind == CLAIM:
        # A retired passage backs no claim (its quote would not hold): it is not offered.
        passages = "\n".join(
            f'<passage ref="{p["ref"]}">\n{p["text"]}\n</passage>'
            for p in case.retrieved
            if not archived(str(p.get("text") or ""))
        )
        parts.append(f"<answer>\n{reply.answer}\n</answer>")
        parts.append(f"<text>\n{passages or '(no passages)'}\n</text>")
        parts.append(
            "Do the passages state this sentence of the answer? (The customer's own words "
            "count too. An action the answer says the assistant took, or an outcome it "
            "promises, is stated only where a passage says it is done so.)\n"
            f"<statement>\n{q.statement}\n</statement>\n"
            "Quote the passage sentence that does."
        )
    elif q.source == SOURCES:
        passages = "\n".join(
            f'<passage ref="{p["ref"]}">\n{p["text"]}\n</passage>' for p in case.retrieved
        )
        parts.append(f"<answer>\n{reply.answer}\n</answer>")
        parts.append(f"<text>\n{passages or '(no passages)'}\n</text>")
        parts.append(
            "Does the text (the passages above; the customer's own words count too) back "
            f"this promise the answer makes?\n<statement>\n{q.item}\n</statement>\n"
            "Quote the words of the passages or the customer that back it."
        )
    else:
        parts.append(f"<text>\n{reply.answer}\n</text>")
        others = [p for p in q.phrasings if p != q.statement]
        also = f"\n(also written as: {'; '.join(others)})" if others else ""
        parts.append(
            f"Does the text state this?\n<statement>\n{q.statement}{also}\n</statement>\n"
            "Quote the words that do."
        )
    return "\n\n".join(parts)


def _check(content: str | None) -> tuple[dict[str, Any] | None, str]:
    data, problem = parse_reply(content, question_schema())
    if data is None:
        return None, problem
    if data["stated"] and not data["quote"].strip():
        return None, "stated is true but quote is empty: copy the words that state it"
    return {"stated": data["stated"], "quote": data["quote"], "reasoning": data["reasoning"]}, ""


def _retry(problem: str) -> str:
    return (
        f"Your previous reply could not be used: {problem}. Reply again with only one JSON "
        "object, no other text, with exactly these fields: stated (true or false), quote (the "
        'exact words of the text that state it, or "" when stated is false), reasoning (a string).'
    )


@dataclass
class Asked:
    """Every question asked for one answer, its decisions and what they cost."""

    pairs: list[tuple[Question, Decision]] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)
    outcomes: list[JudgeOutcome] = field(default_factory=list)


async def ask_one(judge: Judge, inp: CheckInput, q: Question) -> tuple[JudgeOutcome, Decision]:
    """One question to the judge, from the cache when an earlier run asked it; an answer is
    cached only when it is valid and its quote holds."""
    messages = [
        {"role": "system", "content": INSTRUCTIONS},
        {"role": "user", "content": question_message(inp.case, inp.reply, q)},
    ]
    schema = question_schema()
    key = _cache_key(
        judge, messages, schema, "judge-claim" if q.kind == CLAIM else "judge-question"
    )
    if judge.cache is not None and (hit := judge.cache.get(key)) is not None:
        out = JudgeOutcome(hit, None, 0, cached=True)
        return out, decision(inp, q, out)
    out = await ask(
        judge.client,
        Request(
            model=endpoint_name(judge.model),
            messages=messages,
            response_format={
                "type": "json_schema",
                "json_schema": {"name": "answer", "schema": wire_schema(schema), "strict": True},
            },
            temperature=judge.temperature,
            max_attempts=judge.max_attempts,
            check=_check,
            retry=_retry,
            mask=judge.mask,
            **judge.budgeted(),
        ),
    )
    if out.verdict is not None:
        out.verdict["reasoning"] = judge.mask(out.verdict["reasoning"])
    d = decision(inp, q, out)  # the quote as the judge gave it is what is tested
    if out.verdict is None:
        return out, d
    # A judge can quote a secret (an echoed key) as readily as it writes one in its
    # reasoning: the quote is masked before it is cached, recorded or built into a detail.
    raw = out.verdict["quote"]
    quote = out.verdict["quote"] = judge.mask(raw)
    d = Decision(d.stated, judge.mask(d.quote), judge.mask(d.error) if d.error else None)
    # A cached answer is decided again from its stored (masked) quote: one whose quote held a
    # secret would not decide alike, so it is asked again instead.
    if d.error is None and quote == raw and judge.cache is not None:
        judge.cache.put(key, out.verdict)
    return out, d


def _cache_key(
    judge: Judge, messages: list[dict[str, Any]], schema: dict[str, Any], kind: str
) -> str:
    key = {
        "kind": kind,
        "evals": package_version(),
        "endpoint": judge.endpoint,
        "model": judge.model,
        "schema_sha": schema_sha(schema),
        "temperature": judge.temperature,
        "messages": messages,
    }
    text = json.dumps(key, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def decision(inp: CheckInput, q: Question, out: JudgeOutcome) -> Decision:
    """What one reply decides: an error unless valid and, when stated, quoted from the text."""
    if out.verdict is None:
        return Decision(None, error=out.error or "no answer")
    v = out.verdict
    if not v["stated"]:
        return Decision(False)
    problem = quote_problem(inp, q, v["quote"])
    if problem is not None:
        return Decision(None, v["quote"], problem)
    return Decision(True, v["quote"])


async def ask_all(judge: Judge, inp: CheckInput, questions: list[Question]) -> Asked:
    """Ask each question in turn: a case's few questions share its place in the run's
    concurrency."""
    done = Asked()
    for q in questions:
        out, d = await ask_one(judge, inp, q)
        done.pairs.append((q, d))
        done.outcomes.append(out)
        done.records.append(
            {
                **q.to_json(),
                "stated": d.stated,
                "quote": (out.verdict or {}).get("quote"),
                "reasoning": (out.verdict or {}).get("reasoning"),
                "error": d.error,
                "attempts": out.attempts,
                "cached": out.cached,
            }
        )
    return done


async def decide(
    judge: Judge, case: Case, reply: Reply, results: dict[str, CheckResult]
) -> tuple[dict[str, CheckResult], dict[str, Any]]:
    """The results with every check in review put to the judge, item by item, and the row
    fields that record it (`judge_questions`, and their tokens and cost)."""
    inp = CheckInput(case=case, reply=reply, settings=judge.suite.settings)
    questions = open_questions(inp, results)
    if not questions:
        return results, {}
    asked = await ask_all(judge, inp, questions)
    out = dict(results)
    for name in {q.check for q in questions}:
        settled = settle(inp, name, asked.pairs)
        if settled is not None:
            out[name] = settled
    return out, {
        "judge_questions": asked.records,
        "usage": _usage(asked.outcomes),
        "cost_usd": _cost(judge, asked.outcomes),
    }


def _usage(outcomes: list[JudgeOutcome]) -> dict[str, int] | None:
    used = [o.usage for o in outcomes if o.usage is not None]
    if not used:
        return None
    total: dict[str, int] = {}
    for u in used:
        for k, v in u.items():
            total[k] = total.get(k, 0) + v
    return total


def _cost(judge: Judge, outcomes: list[JudgeOutcome]) -> float | None:
    costs = [judge.cost_of(o) for o in outcomes]
    return None if any(c is None for c in costs) else sum(c for c in costs if c is not None)
