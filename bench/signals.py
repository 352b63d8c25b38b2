"""Each review signal of the claim and fact checks, run alone on every labelled answer of a suite:
how many correct answers it flags (its cost: each would wait for a person) beside how many
wrong ones (what it catches), whatever the other checks say. A signal that flags more
correct answers than wrong ones is not kept.

    .venv/bin/python bench/signals.py evals evals/labelled/rotaboard-*.jsonl
    .venv/bin/python bench/signals.py bench/suites/polder bench/suites/polder/answers.jsonl
    .venv/bin/python bench/signals.py bench/suites/pedalo bench/suites/pedalo/answers.jsonl

Exit 0 always: this measures.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evals.checks.actions import acts  # noqa: E402
from evals.checks.answer import fact_states  # noqa: E402
from evals.checks.base import CheckInput, is_refusal  # noqa: E402
from evals.checks.conditions import day_drops, unconditional_amounts  # noqa: E402
from evals.checks.grounding import _reading, _unsupported, promises  # noqa: E402
from evals.checks.inverted import inversions  # noqa: E402
from evals.checks.loading import load_cases  # noqa: E402
from evals.reply import Reply  # noqa: E402
from evals.suite.folder import open_suite  # noqa: E402


def _signals() -> dict[str, Callable[[CheckInput], bool]]:
    def read(inp: CheckInput) -> tuple[str | None, tuple[str, ...]]:
        return _reading(inp)

    return {
        "dropped days (opening times)": lambda i: bool(day_drops(i.answer, read(i)[1], read(i)[0])),
        "amount given as unconditional": lambda i: bool(
            unconditional_amounts(i.answer, read(i)[1], read(i)[0])
        ),
        "policy inverted (included vs charged)": lambda i: bool(
            inversions(i.answer, read(i)[1], read(i)[0])
        ),
        "assistant's own action or promise": lambda i: bool(acts(i.answer, i.lang)),
        "hand-over promising for someone else": lambda i: (
            is_refusal(i) and bool(promises(i.answer))
        ),
        "thing no passage names": lambda i: bool(_unsupported(i)[0]),
        "fact: its words there (inflected, compounds)": lambda i: _unsure(i, "its words"),
        "fact: retired in other words": lambda i: _unsure(i, "no longer applies"),
        "fact: taken off in other words": lambda i: _unsure(i, "takes it off"),
        "fact: a no without a yes": lambda i: _unsure(i, "open with a yes"),
    }


def _unsure(inp: CheckInput, note: str) -> bool:
    """Whether a fact of the case is left undecided for this reason (facts_present review)."""
    if not inp.case.expect.get("facts"):
        return False
    return any(s.state == "unsure" and note in s.note for s in fact_states(inp))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("suite")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    suite = open_suite(Path(args.suite))
    cases = {c.id: c for c in load_cases(suite)[0]}
    signals = _signals()
    flagged: dict[str, Counter[str]] = {name: Counter() for name in signals}
    labels: Counter[str] = Counter()
    for name in args.files:
        for line in Path(name).read_text("utf-8").split("\n"):
            if not line.strip():
                continue
            rec = json.loads(line)
            inp = CheckInput(cases[rec["case"]], Reply(answer=rec["answer"]), suite.settings)
            labels[rec["label"]] += 1
            for signal, fires in signals.items():
                if fires(inp):
                    flagged[signal][rec["label"]] += 1
    print(f"{labels['pass']} correct and {labels['fail']} wrong labelled answers")
    print("| signal | correct answers flagged | wrong answers flagged |")
    print("|---|---:|---:|")
    for signal, c in flagged.items():
        print(f"| {signal} | {c['pass']} | {c['fail']} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
