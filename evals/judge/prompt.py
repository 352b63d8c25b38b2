"""What the judge is shown: the suite's judge prompt, then the case and the answer to grade."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from evals.errors import InputError, Problem
from evals.judge.verdict import Scale
from evals.reply import Reply
from evals.suite.case import Case
from evals.suite.folder import Suite

# Notes for the people who edit the prompt: `<!-- ... -->`, as in Markdown, never sent.
_COMMENT = re.compile(r"<!--.*?-->[ \t]*\n?", re.DOTALL)


def without_comments(text: str) -> str:
    """The prompt as the judge receives it: every `<!-- ... -->` comment taken out."""
    return _COMMENT.sub("", text).lstrip("\n")


@dataclass(frozen=True)
class JudgePrompt:
    """The suite's judge_prompt.txt: its text (the system message, comments taken out) and
    the SHA-256 of its bytes."""

    text: str
    sha: str
    path: str


def read_judge_prompt(suite: Suite) -> JudgePrompt:
    """Read the judge prompt from the suite; missing or unreadable is bad input."""
    path = suite.judge_prompt_path
    if not path.is_file():
        raise InputError(
            [
                Problem(
                    str(path),
                    "",
                    "judge_prompt.txt is missing: the judge's instructions live in the suite",
                )
            ]
        )
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError([Problem(str(path), "", f"not UTF-8 (byte {exc.start})")]) from None
    sent = without_comments(text)
    if "<!--" in sent:
        raise InputError([Problem(str(path), "", "a comment opened with <!-- is never closed")])
    if not sent.strip():
        what = "holds only comments" if text.strip() else "is empty"
        raise InputError([Problem(str(path), "", f"judge_prompt.txt {what}")])
    return JudgePrompt(text=sent, sha=hashlib.sha256(raw).hexdigest(), path=str(path))


def _passages(case: Case, reply: Reply) -> list[str]:
    """The passages the answer could use, with refs; refs the system reported without text too."""
    out = [f'<passage ref="{p["ref"]}">\n{p["text"]}\n</passage>' for p in case.retrieved]
    known = set(case.retrieved_refs)
    for ref in reply.retrieved or []:
        if ref not in known:
            out.append(
                f'<passage ref="{ref}">(retrieved by the system; text not available)</passage>'
            )
            known.add(ref)
    return out


def earlier_turns(case: Case) -> str:
    """A conversation's earlier turns as the judge reads them.

    They give the question its meaning ("and on Starter?"); what the assistant said in them
    is part of the conversation, not a source."""
    turns = "\n".join(f'<turn role="{m["role"]}">\n{m["content"]}\n</turn>' for m in case.messages)
    return f"<earlier_turns>\n{turns}\n</earlier_turns>"


def case_message(case: Case, reply: Reply, scale: Scale) -> str:
    """The user message: earlier turns, question, context, passages, the answer, facts, rubric
    and the scale."""
    expect = case.expect
    parts = []
    if case.messages:
        parts.append(earlier_turns(case))
    parts.append(f"<question>\n{case.question}\n</question>")
    if case.context:
        parts.append(
            "<customer_context>\n"
            + json.dumps(case.context, ensure_ascii=False, indent=1)
            + "\n</customer_context>"
        )
    passages = _passages(case, reply)
    parts.append(
        "<retrieved_passages>\n"
        + ("\n".join(passages) if passages else "(no passages were retrieved)")
        + "\n</retrieved_passages>"
    )
    parts.append(f"<answer_to_grade>\n{reply.answer}\n</answer_to_grade>")
    facts = expect.get("facts") or []
    parts.append(
        "<required_facts>\n"
        + ("\n".join(f"- {f}" for f in facts) if facts else "(none given)")
        + "\n</required_facts>"
    )
    parts.append(
        f"<rubric>\n{expect.get('rubric') or '(none given: judge against the facts)'}\n</rubric>"
    )
    if expect.get("abstain") is True:
        parts.append(
            "<expected_behaviour>The right answer declines or hands over to a person.</expected_behaviour>"
        )
    elif expect.get("abstain") is False:
        parts.append(
            "<expected_behaviour>The right answer answers; declining is wrong.</expected_behaviour>"
        )
    parts.append(f"<scale>score is {scale.describe()}</scale>")
    return "\n\n".join(parts)


def messages_for(
    prompt: JudgePrompt, case: Case, reply: Reply, scale: Scale
) -> list[dict[str, Any]]:
    """The first request's messages: the judge prompt as system message, the case as user message."""
    return [
        {"role": "system", "content": prompt.text},
        {"role": "user", "content": case_message(case, reply, scale)},
    ]


def retry_message(problem: str, scale: Scale) -> str:
    """The correction sent after an unusable reply: what was wrong and what is wanted."""
    return (
        f"Your previous reply could not be used: {problem}. "
        "Reply again with only one JSON object, no other text, with exactly these fields: "
        f"score ({scale.describe()}), grounded (true or false), rubric_met (true or false), "
        "reasoning (a string; length is not a problem)."
    )
