"""How far `invoke calibrate --checks --suggest --apply` settles the example suite's
disagreements, and whether its edits hold on labelled answers it never saw.

    .venv/bin/python bench/suggest_heldout.py [--suite evals]

Every run works on a copy of the suite's data in a temporary folder; the suite itself is
never written.

(a) All labels: the disagreements (false alarms, misses) and answers in review before and
    after the edits offered with every labelled answer present.
(b) Held out: the labelled answers (labelled/*.jsonl) are split in two halves by a hash; the
    edits are drawn with half A's labels only (the cases' own drafts stay, as they are part
    of the case files), then half B is put back and graded. B's figures before and after
    say whether the edits made unseen answers worse. Two splits: by the hash of the case id
    (B's cases were edited only through their drafts and suite-wide synonyms), and by the
    hash of case id and answer (B holds unseen answers to the very cases edited).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evals.calibrate.grading import calibrate_checks  # noqa: E402
from evals.calibrate.suggest import apply, suggest  # noqa: E402
from evals.suite.folder import open_suite  # noqa: E402

DATA = ("cases", "labelled", "prompt.txt", "judge_prompt.txt", "suite.toml", "synonyms.toml")
KINDS = ("false_alarm", "miss", "review")
NAMES = {"false_alarm": "false alarms", "miss": "misses", "review": "in review"}
Key = tuple[str, str]  # (case id, where: "labelled/x.jsonl:12", "known_right[0]")


def copy_suite(src: Path, dst: Path) -> Path:
    """The suite's data (not the harness beside it) copied to `dst`."""
    dst.mkdir(parents=True)
    for name in DATA:
        if (src / name).is_dir():
            shutil.copytree(src / name, dst / name)
        elif (src / name).is_file():
            shutil.copy2(src / name, dst / name)
    return dst


def kinds(suite: Path) -> dict[Key, str]:
    """How the checks stand on each labelled answer: agree, false_alarm, miss, review, ..."""
    with contextlib.redirect_stderr(io.StringIO()):
        c = calibrate_checks(open_suite(suite))
    return {(g.item.case, g.item.source): g.kind for g in c.graded}


def tally(found: dict[Key, str], keep: Callable[[Key], bool] = lambda k: True) -> Counter[str]:
    return Counter(v for k, v in found.items() if keep(k))


def line(name: str, before: Counter[str], after: Counter[str], n: int) -> str:
    parts = [f"{NAMES[k]} {before[k]} -> {after[k]}" for k in KINDS]
    return f"  {name} ({n} answers): " + ", ".join(parts)


def run_suggest(suite: Path) -> tuple[int, int, float]:
    """Edits offered and written, disagreements left, seconds."""
    start = time.perf_counter()
    with contextlib.redirect_stderr(io.StringIO()):
        found = suggest(open_suite(suite))
        apply(found)
    return len(found.proposals), len(found.left), time.perf_counter() - start


def labelled_lines(suite: Path) -> dict[str, list[str]]:
    return {
        p.name: p.read_text("utf-8").split("\n")
        for p in sorted((suite / "labelled").glob("*.jsonl"))
    }


def half_a(text: str, by: str) -> bool:
    """Whether a labelled line falls in half A of the split `by` (case | answer)."""
    rec = json.loads(text)
    key = rec["case"] if by == "case" else rec["case"] + "\n" + rec["answer"]
    return hashlib.sha256(key.encode("utf-8")).digest()[0] % 2 == 0


def held_out(src: Path, tmp: Path, by: str) -> None:
    """Draw the edits with half A's labels, then grade half B before and after them."""
    work = copy_suite(src, tmp / f"held-out-{by}")
    files = labelled_lines(work)
    in_b: set[Key] = set()
    for name, lines in files.items():
        kept = []
        for n, text in enumerate(lines, 1):
            if not text.strip():
                continue
            if half_a(text, by):
                kept.append(text)
            else:
                in_b.add((json.loads(text)["case"], f"labelled/{name}:{n}"))
        (work / "labelled" / name).write_text("".join(t + "\n" for t in kept), "utf-8")
    before = kinds(src)
    offered, left, secs = run_suggest(work)
    for name, lines in files.items():  # half B back, as it was
        (work / "labelled" / name).write_text("\n".join(lines), "utf-8")
    after = kinds(work)
    b_before = tally(before, lambda k: k in in_b)
    b_after = tally(after, lambda k: k in in_b)
    worse = [k for k in in_b if before[k] == "agree" and after[k] != "agree"]
    settled = [k for k in in_b if before[k] != "agree" and after[k] == "agree"]
    print(f"(b) held out, split by {by} hash: {offered} edits drawn from half A in {secs:.1f} s")
    print(line("half B", b_before, b_after, len(in_b)))
    print(f"  half B: {len(settled)} settled without being seen, {len(worse)} made worse")
    for k in worse:
        print(f"    worse: {k[1]} ({k[0]}): {before[k]} -> {after[k]}")
    a = {k for k in after if k not in in_b}
    print(
        line(
            "half A and the drafts",
            tally(before, a.__contains__),
            tally(after, a.__contains__),
            len(a),
        )
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--suite", default=str(ROOT / "evals"))
    src = Path(ap.parse_args().suite)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        work = copy_suite(src, tmp / "all")
        before = kinds(work)
        offered, left, secs = run_suggest(work)
        after = kinds(work)
        print(f"(a) all labels: {offered} edits offered in {secs:.1f} s, {left} disagreements left")
        print(line("every answer", tally(before), tally(after), len(before)))
        for by in ("case", "answer"):
            held_out(src, tmp, by)


if __name__ == "__main__":
    main()
