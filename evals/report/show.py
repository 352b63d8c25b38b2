"""`invoke show CASE`: one case of a run in the terminal: why it passed, failed or errored.

The question, the answer, each check's status and detail (failing ones first), what was
cited against what was retrieved, the judge's verdict, the error, and what the reply cost."""

from __future__ import annotations

import difflib
import sys
from typing import Any

from rich.console import Console
from rich.text import Text

from evals.cli import EXIT_OK
from evals.errors import InputError
from evals.numfmt import fmt_ms
from evals.report.data import citation_spans, is_sealed
from evals.report.safe import terminal_run, terminal_text
from evals.run.console import review_reasons
from evals.run.files import RunFile, read_run
from evals.run.latest import resolve_for_suite
from evals.run.precedents import decided_by
from evals.suite.folder import DEFAULT_CITATION_PATTERN

STATUS_STYLE = {
    "pass": "green",
    "fail": "bold red",
    "review": "bold yellow",
    "error": "bold magenta",
    "skip": "dim",
}
#: Failing checks first, then the undecided ones: they are what the reader came for.
CHECK_ORDER = {"error": 0, "fail": 1, "review": 2, "skip": 3, "pass": 4}


def plain(value: object) -> str:
    """Text from a run file made safe for a terminal: control characters (escape sequences
    included) become `?`, line breaks and tabs stay, a lone surrogate becomes U+FFFD."""
    return terminal_text("" if value is None else str(value))


def rows_of(run: RunFile, case_id: str) -> list[dict[str, Any]]:
    """The case's rows (one per epoch), or an error naming the ids that come closest."""
    if is_sealed(run.header):
        raise InputError(
            f"{run.path}: a sealed run keeps no case text or ids; nothing to show "
            "(`invoke report` gives its aggregates)"
        )
    rows = [r for r in run.rows if r.get("case") == case_id]
    if rows:
        return sorted(rows, key=lambda r: r.get("epoch", 0))
    ids = sorted({str(r.get("case")) for r in run.rows})
    close = difflib.get_close_matches(case_id, ids, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else f" ({len(ids)} case(s) in it)"
    # The run may be of another suite than the user's (runs/ holds every suite's runs).
    suite = run.header.get("suite")
    of = f"this run of the suite {plain(suite)}" if isinstance(suite, str) else "this run"
    raise InputError(
        f"{run.path}: no case {plain(case_id)!r} in {of}{hint} (--suite DIR picks the suite)"
    )


def cited_refs(row: dict[str, Any], pattern: str) -> list[str]:
    """The refs the system reported citing, else those the citation pattern finds in the answer."""
    if isinstance(row.get("cited"), list):
        return [str(c) for c in row["cited"]]
    spans = citation_spans(str(row.get("draft") or ""), pattern)
    return list(dict.fromkeys(ref for _, ref in spans if ref is not None))


def citation_lines(row: dict[str, Any], pattern: str) -> list[Text]:
    """What the answer cited, what the system retrieved, and any citation of neither."""
    cited = [plain(c) for c in cited_refs(row, pattern)]
    retrieved = [plain(r) for r in row.get("retrieved") or []]
    out = [
        Text("cited: ", style="bold") + Text(", ".join(cited) or "nothing"),
        Text("retrieved: ", style="bold") + Text(", ".join(retrieved) or "nothing"),
    ]
    stray = [c for c in cited if c not in retrieved]
    if stray and row.get("retrieved") is not None:
        out.append(Text(f"cited but never retrieved: {', '.join(stray)}", style="bold red"))
    return out


def judge_lines(row: dict[str, Any]) -> list[Text]:
    judge = row.get("judge")
    if not isinstance(judge, dict):
        return []
    v = judge.get("verdict") if isinstance(judge.get("verdict"), dict) else None
    head = f"judge ({plain(judge.get('model'))}"
    head += ", cached)" if judge.get("cached") else f", {judge.get('attempts')} attempt(s))"
    if v is None:
        return [Text(f"{head}: no verdict: {plain(judge.get('error'))}", style="bold magenta")]
    return [
        Text(
            f"{head}: score {plain(v.get('score'))}, grounded {plain(v.get('grounded'))}, "
            f"rubric_met {plain(v.get('rubric_met'))}"
        ),
        Text("reasoning: ", style="bold") + Text(plain(v.get("reasoning"))),
    ]


def question_lines(row: dict[str, Any]) -> list[Text]:
    """The judge's answer to each item the checks left undecided (--judge)."""
    asked = row.get("judge_questions")
    out = []
    for q in asked if isinstance(asked, list) else []:
        if not isinstance(q, dict):
            continue
        if q.get("error"):
            said = Text(f"error: {plain(q.get('error'))}", style="bold magenta")
        elif q.get("stated"):
            said = Text(f"stated: \u201c{plain(q.get('quote'))}\u201d")
        else:
            said = Text("not stated")
        where = " (asked of the passages)" if q.get("source") in ("sources", "passages") else ""
        per = "claim" if q.get("kind") == "claim" else "fact"
        out.append(
            Text(f"judge per {per}, {plain(q.get('check'))}: ", style="bold")
            + Text(f"{plain(q.get('statement'))}{where}: ")
            + said
        )
    return out


def precedent_lines(row: dict[str, Any]) -> list[Text]:
    """Who decided the case when a person's label did, and what the checks alone said."""
    p = row.get("precedent")
    if not isinstance(p, dict):
        return []
    return [
        Text(plain(decided_by(p)), style="bold")
        + Text(f": labelled {plain(p.get('label'))}; the checks alone said ")
        + Text(plain(p.get("checks_status")))
        + Text(f" ({plain(p.get('source'))})", style="dim"),
        Text("why: ", style="bold") + Text(plain(p.get("why"))),
    ]


def cost_line(row: dict[str, Any]) -> Text:
    usage = row.get("usage") if isinstance(row.get("usage"), dict) else {}
    cost = row.get("cost_usd")
    latency = row.get("latency_ms")
    # A replayed answer has no latency of its own: say nothing rather than "latency  ms".
    parts = [
        *([] if latency is None else [f"latency {fmt_ms(latency)}"]),
        f"tokens {plain(usage.get('prompt_tokens', 'n/a'))} in + "
        f"{plain(usage.get('completion_tokens', 'n/a'))} out",
        "cost unknown" if cost is None else f"cost ${cost:.6f}",
    ]
    if row.get("cached"):
        parts.append("answer from the cache")
    return Text("; ".join(parts), style="dim")


#: The most of an answer `show` prints: past it, a terminal shows nothing a person reads, and
#: laying out megabytes of text takes seconds.
SHOW_CHARS = 20_000


def answer_text(answer: str) -> Text:
    """The answer, its first SHOW_CHARS characters when longer, and how much was left out."""
    if len(answer) <= SHOW_CHARS:
        return Text(plain(answer))
    rest = len(answer) - SHOW_CHARS
    return Text(plain(answer[:SHOW_CHARS])) + Text(
        f" ... ({rest:,} more characters not shown: the whole answer is in the run file)",
        style="dim",
    )


def print_case(run: RunFile, row: dict[str, Any], console: Console) -> None:
    """One row, top to bottom: verdict, question, answer, checks, citations, judge, error."""
    status = str(row.get("status"))
    epoch = f" (epoch {row.get('epoch')})" if row.get("epoch") else ""
    score = row.get("score")
    console.rule(Text(f"{plain(row.get('case'))}{epoch}"), align="left")
    console.print(
        Text(status.upper(), style=STATUS_STYLE.get(status, ""))
        + Text(f"  score {'n/a' if score is None else f'{score:.3f}'}")
        + Text(f"  run {plain(run.run_id)}  model {plain(row.get('model'))}", style="dim")
    )
    if status == "review":
        console.print(
            Text("in review: ", style="bold yellow")
            + Text(review_reasons(row))
            + Text(" (not scored: a person, or the judge, decides)", style="dim")
        )
    for line in precedent_lines(row):
        console.print(line)
    turns = row.get("messages") if isinstance(row.get("messages"), list) else []
    for turn in turns:  # a conversation: every earlier turn, oldest first, then the question
        if isinstance(turn, dict):
            who = "customer" if turn.get("role") == "user" else "assistant (earlier reply)"
            console.print(Text(f"{who}: ", style="bold") + Text(plain(turn.get("content"))))
    console.print(Text("question: ", style="bold") + Text(plain(row.get("question"))))
    answer = row.get("draft")
    console.print(
        Text("answer: ", style="bold")
        + (answer_text(str(answer)) if answer is not None else Text("(no answer)", style="dim"))
    )
    if row.get("abstained"):
        console.print(Text("the system declined to answer (abstained)"))
    checks = row.get("checks") if isinstance(row.get("checks"), dict) else {}
    if checks:
        console.print(Text("checks:", style="bold"))
    ordered = sorted(checks.items(), key=lambda kv: CHECK_ORDER.get(str(kv[1].get("status")), 9))
    for name, res in ordered:
        st = str(res.get("status"))
        console.print(
            Text(f"  {st.upper():5} ", style=STATUS_STYLE.get(st, ""))
            + Text(f"{plain(name)}: ", style="bold")
            + Text(plain(res.get("detail")))
        )
    pattern = (run.header.get("settings") or {}).get("citation_pattern") or DEFAULT_CITATION_PATTERN
    for line in citation_lines(row, str(pattern)):
        console.print(line)
    for line in [*judge_lines(row), *question_lines(row)]:
        console.print(line)
    if row.get("error"):
        console.print(Text("error: ", style="bold magenta") + Text(plain(row.get("error"))))
    console.print(cost_line(row))


def cmd_show(
    case: str, run: str | None = None, console: Console | None = None, suite: str | None = None
) -> int:
    """`invoke show CASE [--run RUN] [--suite DIR]`: the case's rows in RUN (default: the
    newest run of the suite that ran to its end)."""
    console = console or Console(file=sys.stdout, highlight=False, soft_wrap=True)
    path = resolve_for_suite(run or "latest", suite, "--run RUN")
    rf = terminal_run(read_run(path))
    rows = rows_of(rf, case)
    console.print(Text(f"run file: {rf.path}", style="dim"))
    for row in rows:
        print_case(rf, row, console)
    return EXIT_OK
