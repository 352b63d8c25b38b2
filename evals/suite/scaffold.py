"""A new, empty suite folder: cases/, a starter prompt, a commented suite.toml, a judge prompt.

Used by `invoke init DIR` and by `invoke import` when it creates the suite it imports into.
"""

from __future__ import annotations

import json
from pathlib import Path

from evals.errors import InputError, Problem
from evals.suite.folder import SuiteSettings

PROMPT_TXT = """\
You are the support assistant of our product. Each message holds one customer question,
what we know about the customer, and passages from our documentation. Every passage has a
reference such as pricing#plans.

Rules:
1. Answer only from the passages. Invent nothing they do not state.
2. Put the source right after every figure (price, percentage, time, date, duration,
   limit) in the form [doc:REF], using the passage's reference.
3. Answer every question in the message, in the language the customer wrote in.
4. When the passages do not answer the question, say so briefly and hand it over with
   "I'll hand this over to a colleague."
5. Keep it short: at most 120 words.
"""


def _phrase_list(phrases: tuple[str, ...]) -> str:
    """The phrase list as commented TOML lines, one phrase a line."""
    items = "".join(f"#   {json.dumps(p, ensure_ascii=False)},\n" for p in phrases)
    return f"# refusal_phrases = [\n{items}# ]\n"


def suite_toml() -> str:
    """The starter suite.toml: every setting commented out at its default, the built-in
    refusal phrases written out (a list given replaces them) and the calibration floors."""
    d = SuiteSettings()
    return f"""\
# Settings of this suite. Every line is optional; the values shown are the defaults.
#
# The files of a suite:
#   cases/            one case per file, cases/ID.json (`invoke new ID --suite DIR` writes one)
#   prompt.txt        the system prompt sent with every case; its SHA-256 stamps every row
#   judge_prompt.txt  the LLM judge's instructions (used with `invoke run --judge MODEL`)
#   checks.py         optional: the suite's own checks, `from evals.checks import check`
#   synonyms.toml     optional: phrasings that mean the same in this suite

# How an answer cites a passage; one group captures the ref.
# citation_pattern = '{d.citation_pattern}'

# Phrases that mark a reply as declining or handing over. A list here replaces the
# built-in one, which is this (keep the lines you want and add your own). Each language
# read has its own hand-over phrases besides ("passo la sua richiesta a un collega", "vou
# passar o seu pedido"; `invoke validate --help` names the languages): those count in its
# cases whatever this list says, so list only your prompt's own wording:
{_phrase_list(d.refusal_phrases)}
# How many characters after a figure its citation may stand.
# figure_window = {d.figure_window}

# The judge's score scale, and the score at or below which a verdict fails.
# judge_scale = [{d.judge_scale[0]}, {d.judge_scale[1]}]
# judge_threshold = {d.judge_threshold}

# Also judge cases that have expect.facts but no rubric.
# judge_on_facts = {str(d.judge_on_facts).lower()}

# Checks of checks.py that every case runs on top of the checks its expect implies (a
# case's own `checks` list would replace those); one case: expect.add_checks.
# add_checks = []

# What an answer gets in which the assistant says it acted on the account or promises an
# outcome, and one that drops a condition a passage attaches, in every case that does not
# say (expect.own_action, expect.dropped_condition): "fail" for an assistant that can act
# on no account.
# own_action = "{d.own_action}"
# dropped_condition = "{d.dropped_condition}"

# The floors of `invoke calibrate --checks`: the share of answers labelled wrong that the
# checks fail (sensitivity) and of answers labelled right that they pass (specificity),
# below which it exits 1.
# [calibration]
# min_sensitivity = {d.min_sensitivity}
# min_specificity = {d.min_specificity}

# Settings for the suite's own checks in checks.py (they read settings.extra["checks"]).
# [checks]

# The prompts (paths relative to this folder) and pinned models `invoke matrix` runs
# when it is given no --prompt and no --model.
# [matrix]
# prompts = ["prompt.txt"]
# models = ["local/extractive@2026-11-01"]
"""


SUITE_TOML = suite_toml()

# Sent verbatim as the judge's system message, so it explains itself in sentences that are
# instructions to the judge as well: there is no comment syntax to hide a line from it.
JUDGE_PROMPT_TXT = """\
You grade one reply written by a support assistant that answers from documentation.
This is a starting point: the team that owns the cases rewrites it for their product, to
say what the assistant is for and what makes a reply wrong.

You receive, in the user message: the customer's question, what we know about the
customer, the documentation passages the assistant was given (each with its ref), the
assistant's reply, the facts a correct reply must contain, a rubric, whether the right
behaviour is to answer or to hand over, and the score scale.

How to judge:
- Use only the passages as the truth. Do not use what you believe about other products.
- Every figure must be followed by a citation [doc:REF] to a passage that states it; a
  figure the question itself gives needs none.
- The reply must answer every question, in the language of the question.
- When the passages do not answer the question, a short, polite hand-over is correct and
  guessing is wrong.
- Ignore harmless differences in wording, order and punctuation.

Fields of your verdict:
- grounded: true only when every claim in the reply is supported by a passage or by the
  question. Declining or handing over is grounded.
- rubric_met: true only when every point of the rubric is met and every required fact is
  present. Without a rubric, judge against the facts.
- score: an integer on the given scale; the lowest means wrong or harmful, the highest
  correct, complete, grounded and cited.
- reasoning: one or two sentences saying why.
"""

FILES = {
    "prompt.txt": PROMPT_TXT,
    "suite.toml": SUITE_TOML,
    "judge_prompt.txt": JUDGE_PROMPT_TXT,
}


def refuse_existing(path: Path) -> None:
    """A new suite never lands on something that exists: no file is ever overwritten."""
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise InputError(
            [Problem(str(path), "", "already exists; a new suite is not written over it")]
        )


def create_suite(path: Path) -> list[Path]:
    """Write the empty suite at `path` (created; an existing empty folder is used); returns
    what was written. Refuses, writing nothing, when `path` exists and is not empty."""
    refuse_existing(path)
    written: list[Path] = []
    try:
        (path / "cases").mkdir(parents=True, exist_ok=True)
        written.append(path / "cases")
        for name, text in FILES.items():
            with open(path / name, "x", encoding="utf-8") as fh:
                fh.write(text)
            written.append(path / name)
    except OSError as exc:
        raise InputError([Problem(str(path), "", f"cannot write: {exc.strerror or exc}")]) from None
    return written
