"""Would a small embedding model tell a fact said in other words from a wrong answer?

For every labelled answer under bench/suites/ that `facts_present` fails with a fact
"missing", the highest similarity (WordLlama, the 256-dimension l2_supercat model that ships
inside the `wordllama` wheel) between a missing phrasing and any sentence of the answer;
then, per threshold, how many correct and how many wrong answers such a signal would move
from fail to review. A signal worth keeping moves many correct answers and few wrong ones.

    pip install --target /tmp/wl wordllama   # not a dependency of the harness
    PYTHONPATH=/tmp/wl .venv/bin/python bench/embedding_signal.py

The wheel's own weights are loaded with downloads disabled (it would otherwise look for its
tokenizer on Hugging Face). Exit 0 always; exit 2 when wordllama is not installed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evals.checks.expectations import items  # noqa: E402
from evals.checks.grading import grade  # noqa: E402
from evals.checks.loading import load_cases  # noqa: E402
from evals.checks.text import sentences  # noqa: E402
from evals.reply import Reply  # noqa: E402
from evals.suite.folder import open_suite  # noqa: E402


def main() -> int:
    try:
        import wordllama
        from wordllama import WordLlama
    except ImportError:
        print("wordllama is not installed: see this script's docstring")
        return 2
    model = WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)
    scores: dict[str, list[float]] = {"pass": [], "fail": []}
    for suite in sorted(p for p in (ROOT / "bench" / "suites").iterdir() if p.is_dir()):
        opened = open_suite(suite)
        cases = {c.id: c for c in load_cases(opened)[0]}
        for line in (suite / "answers.jsonl").read_text("utf-8").splitlines():
            rec = json.loads(line)
            case = cases.get(rec["case"])
            if case is None:
                continue
            got = grade(case, Reply(answer=rec["answer"]), opened.settings).get("facts_present")
            if got is None or got.status != "fail" or "missing" not in got.detail:
                continue
            said = [s for _, s in sentences(rec["answer"])] or [rec["answer"]]
            missing = [
                a
                for it in items(case.expect.get("facts"))
                for a in it.alternatives
                if a.casefold() in got.detail.casefold()
            ]
            best = max((float(model.similarity(a, s)) for a in missing for s in said), default=0.0)
            scores[rec["label"]].append(best)
    right, wrong = scores["pass"], scores["fail"]
    print(f"facts_present 'missing' fails: {len(right)} correct answers, {len(wrong)} wrong ones")
    for t in (0.2, 0.3, 0.4, 0.5):
        moved_right = sum(s >= t for s in right)
        moved_wrong = sum(s >= t for s in wrong)
        print(
            f"  similarity >= {t:.1f}: {moved_right} of {len(right)} correct and "
            f"{moved_wrong} of {len(wrong)} wrong answers would go from fail to review"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
