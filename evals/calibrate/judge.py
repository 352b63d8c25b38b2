"""`invoke calibrate`: how often the judge agrees with people, as agreement and Cohen's kappa."""

from __future__ import annotations

import asyncio
import dataclasses
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.calibrate.facts import ask_facts, fact_lines
from evals.calibrate.floors import ALPHA as FLOOR_ALPHA
from evals.calibrate.grading import labelled_answers
from evals.calibrate.labelled import LABELLED_DIR
from evals.calibrate.stats import LABELS, agreement, cohen_kappa, confusion, kappa_interval
from evals.checks.loading import load_cases
from evals.cli import EXIT_ERROR, EXIT_FAIL, EXIT_OK, suite_at
from evals.cli import settings as load_settings
from evals.config import Settings
from evals.errors import InputError, Problem
from evals.judge.client import Judge, JudgeOutcome, family_warning, make_judge
from evals.judge.verdict import Scale
from evals.reply import Reply
from evals.run.files import read_run
from evals.run.latest import resolve_for_suite
from evals.suite.case import Case, parse_json_value
from evals.suite.folder import Suite
from evals.suite.jsonl import jsonl_lines

# -- inputs --------------------------------------------------------------------------------


@dataclass
class Item:
    """One labelled answer: the person's label and what the judge said of it."""

    case: str
    human: str
    verdict: dict[str, Any] | None = None
    error: str | None = None
    #: The run's checks could not decide this answer (row status `review`): exactly where a
    #: judge would be asked to decide, so its agreement there is shown apart.
    in_review: bool = False

    def judge_label(self, scale: Scale) -> str | None:
        if self.verdict is None:
            return None
        return "pass" if scale.passes(self.verdict) else "fail"


def read_labels(path: Path) -> dict[str, str]:
    """A JSONL of {"case", "label"}; every bad line is reported at once."""
    if not path.is_file():
        raise InputError([Problem(str(path), "", "labels file does not exist")])
    labels: dict[str, str] = {}
    problems: list[Problem] = []
    try:
        # utf-8-sig: a file saved by a spreadsheet or Notepad often starts with a BOM.
        text = path.read_text("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError([Problem(str(path), "", f"not UTF-8 text ({exc.reason})")]) from None
    for n, line in enumerate(jsonl_lines(text), 1):
        if not line.strip():
            continue
        where = f"line {n}"
        try:  # strict and safe: a line nested thousands deep or a 5,000-digit number
            rec = parse_json_value(line)  # is a problem on that line, not a crash
        except ValueError as exc:
            problems.append(
                Problem(str(path), where, str(exc).replace(" at line 1, column ", " at column "))
            )
            continue
        if not isinstance(rec, dict) or not isinstance(rec.get("case"), str):
            problems.append(
                Problem(str(path), where, 'needs {"case": "<id>", "label": "pass"|"fail"}')
            )
            continue
        label = rec.get("label")
        if isinstance(label, str) and label.strip().lower() in LABELS:
            rec["label"] = label.strip().lower()  # "PASS", " pass " are the same label
        if rec.get("label") not in LABELS:
            problems.append(
                Problem(
                    str(path), f"{where}/label", f"{rec.get('label')!r} is not 'pass' or 'fail'"
                )
            )
            continue
        if rec["case"] in labels:
            problems.append(Problem(str(path), where, f"case {rec['case']!r} is labelled twice"))
            continue
        labels[rec["case"]] = rec["label"]
    if problems:
        raise InputError(problems)
    if not labels:
        raise InputError([Problem(str(path), "", "no labels in the file")])
    return labels


def reference_work(cases: list[Case]) -> list[tuple[Case, Reply, str]]:
    """Cases with a `human` label, each paired with its `reference` answer."""
    problems = [
        Problem(str(c.path), "/human", "a human label needs a `reference` answer to judge")
        for c in cases
        if "human" in c.data and "reference" not in c.data
    ]
    if problems:
        raise InputError(problems)
    return [
        (c, Reply(answer=c.data["reference"]), c.data["human"]["label"])
        for c in cases
        if "human" in c.data
    ]


def labelled_work(suite: Suite, judge: Judge) -> list[tuple[Case, Reply, str, str]]:
    """The suite's labelled answers (labelled/*.jsonl: people's labels of real answers, of
    both kinds) to the cases the judge grades, each with where its label is kept."""
    cases, items = labelled_answers(suite, [])
    by_id = {c.id: c for c in cases}
    return [
        (by_id[a.case], a.reply(), a.label, a.source)
        for a in items
        if a.source.startswith(f"{LABELLED_DIR}/") and judge.applies_to(by_id[a.case])
    ]


def _run_rows(
    run_path: Path, labels: dict[str, str], labels_path: str
) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The run's header and its first-epoch row of every labelled case."""
    rf = read_run(run_path)
    rows = {r["case"]: r for r in rf.rows if not r.get("epoch")}
    missing = [
        Problem(labels_path, "", f"case {cid!r} is not in run {rf.run_id}")
        for cid in labels
        if cid not in rows
    ]
    if missing:
        raise InputError(missing)
    return rf.header, rows


async def _judge_all(
    judge: Judge, work: list[tuple[Case, Reply]], concurrency: int
) -> list[JudgeOutcome]:
    sem = asyncio.Semaphore(max(concurrency, 1))

    async def one(case: Case, reply: Reply) -> JudgeOutcome:
        async with sem:
            return await judge.judge(case, reply)

    try:
        return await asyncio.gather(*(one(c, r) for c, r in work))
    finally:
        await judge.aclose()


def judge_now(judge: Judge, work: list[tuple[Case, Reply, str]], cfg: Settings) -> list[Item]:
    """Judge each (case, reply, human label) now, concurrently, one Item per input in order."""
    outs = asyncio.run(_judge_all(judge, [(c, r) for c, r, _ in work], cfg.concurrency))
    return [Item(c.id, h, o.verdict, o.error) for (c, _, h), o in zip(work, outs, strict=True)]


# -- the command ---------------------------------------------------------------------------


def _verdict_text(v: dict[str, Any] | None, scale: Scale) -> str:
    if v is None:
        return "no verdict"
    return (
        f"{'pass' if scale.passes(v) else 'fail'} (score {v['score']} on {scale.lo}-{scale.hi}, "
        f"{'grounded' if v['grounded'] else 'not grounded'}, "
        f"{'rubric met' if v['rubric_met'] else 'rubric not met'})"
    )


def render(
    items: list[Item], scale: Scale, floor: float, judge_model: str
) -> tuple[list[str], float | None]:
    """The printed report and kappa over the items the judge gave a verdict on."""
    scored = [i for i in items if i.verdict is not None]
    pairs = [(i.human, i.judge_label(scale) or "") for i in scored]
    kappa, agree, table = cohen_kappa(pairs), agreement(pairs), confusion(pairs)
    ci = kappa_interval(pairs)
    errors = [i for i in items if i.verdict is None]
    n = len(pairs)
    agreed = sum(h == j for h, j in pairs)
    lines = [
        f"judge {judge_model}: {len(items)} labelled, {n} with a verdict, {len(errors)} without",
        f"n = {n}",
        "agreement: "
        + (f"{agree * 100:.1f}% ({agreed}/{n})" if agree is not None else "n/a (n = 0)"),
        "Cohen's kappa: "
        + (
            f"{kappa:.3f}" + (f" (95% CI {ci[0]:.2f} to {ci[1]:.2f})" if ci else "")
            if kappa is not None
            else "undefined (every label and verdict is one class)"
        )
        + f" (floor {floor:g}, n = {n})",
        "",
        f"{'':12}{'judge pass':>12}{'judge fail':>12}",
        f"{'human pass':12}{table['pass']['pass']:>12}{table['pass']['fail']:>12}",
        f"{'human fail':12}{table['fail']['pass']:>12}{table['fail']['fail']:>12}",
    ]
    lines += review_lines(items, scale)
    disagree = [i for i in scored if i.human != i.judge_label(scale)]
    lines += ["", f"disagreements: {len(disagree)}"]
    for i in disagree:
        assert i.verdict is not None
        where = " (in review in the run)" if i.in_review else ""
        lines.append(f"  {i.case}{where}: human {i.human}, judge {_verdict_text(i.verdict, scale)}")
        lines += [f"    {ln}" for ln in str(i.verdict["reasoning"]).splitlines() or [""]]
    if errors:
        lines += ["", f"without a verdict (not counted): {len(errors)}"]
        lines += error_lines(errors)
    return lines, kappa


def error_lines(errors: list[Item]) -> list[str]:
    """Answers without a verdict grouped by why, most frequent first, as `report` groups a
    run's errors: `  12x HTTP 429 after 3 attempts  (a (human pass), b (human fail), ...)`."""
    groups: dict[str, list[str]] = {}
    for i in errors:
        groups.setdefault(i.error or "no verdict", []).append(f"{i.case} (human {i.human})")
    out = []
    for reason, who in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        names = ", ".join(who[:5]) + (", ..." if len(who) > 5 else "")
        out.append(f"  {len(who)}x {reason}  ({names})")
    return out


def review_lines(items: list[Item], scale: Scale) -> list[str]:
    """How the judge did on the answers the run's checks left in review; [] when none."""
    review = [i for i in items if i.in_review]
    if not review:
        return []
    judged = [i for i in review if i.verdict is not None]
    agreed = sum(i.human == i.judge_label(scale) for i in judged)
    return [
        "",
        f"in review in the run (the checks could not decide): {len(review)} labelled, "
        f"{len(judged)} with a verdict; the judge agrees with people on {agreed} of "
        f"{len(judged)} (counted in the figures above like any other label)",
    ]


def cmd_calibrate(
    suite: str | None = None,
    run: str | None = None,
    labels: str | None = None,
    judge: str | None = None,
    use_cache: bool = True,
) -> int:
    """Compare judge verdicts with human labels; exit 1 below the kappa floor, 3 on judge errors."""
    cfg = load_settings()
    if labels and not run:
        raise InputError("--labels labels a run's drafts: give --run RUN too")
    if run and not labels:
        raise InputError('--run needs --labels FILE (a JSONL of {"case", "label"})')
    if not run and not judge:
        raise InputError("calibrating on the suite's reference answers needs --judge MODEL")
    if run:
        assert labels is not None
        label_map = read_labels(Path(labels))
        path = resolve_for_suite(run, suite, "--run RUN")
        header, rows = _run_rows(path, label_map, labels)
        model_under_test = str(header.get("model"))
        if judge:
            s = suite_at(suite)
            by_id = {c.id: c for c in load_cases(s)[0]}
            unknown = [
                Problem(labels, "", f"case {cid!r} is not in suite {s.path}")
                for cid in label_map
                if cid not in by_id
            ]
            if unknown:
                raise InputError(unknown)
            j = make_judge(judge, s, cfg, use_cache)
            scale, judge_model = j.scale, judge
            drafted = [
                (cid, h) for cid, h in label_map.items() if rows[cid].get("draft") is not None
            ]
            work = [(by_id[cid], _row_reply(rows[cid]), h) for cid, h in drafted]
            items = [
                dataclasses.replace(i, in_review=rows[i.case].get("status") == "review")
                for i in judge_now(j, work, cfg)
            ]
            items += [
                Item(cid, h, None, "the run has no draft for this case (its row is an error)")
                for cid, h in label_map.items()
                if rows[cid].get("draft") is None
            ]
        else:
            stamp = header.get("judge")
            if not stamp:
                raise InputError(
                    f"run {header.get('run_id')} was not judged: give --judge MODEL to judge its drafts now"
                )
            lo, hi = stamp.get("scale", [1, 5])
            scale, judge_model = Scale(lo, hi, stamp.get("threshold", 3)), str(stamp.get("model"))
            items = [_row_item(cid, h, rows[cid]) for cid, h in label_map.items()]
    else:
        assert judge is not None
        s = suite_at(suite)
        work = reference_work(load_cases(s)[0])
        j = make_judge(judge, s, cfg, use_cache)
        more = labelled_work(s, j)
        if not work and not more:
            raise InputError(
                "no case has a `human` label and labelled/ holds no answer to a case the judge "
                'grades: add {"label": "pass"|"fail"} to cases with a `reference`, label a '
                "run's answers (`invoke label`), or give --run and --labels"
            )
        scale, judge_model, model_under_test = j.scale, judge, cfg.default_model
        work += [(c, r, h) for c, r, h, _ in more]
        items = judge_now(j, work, cfg)
        # A labelled answer is named by where its label is kept: a case has several.
        for item, (_, _, _, where) in zip(items[len(items) - len(more) :], more, strict=True):
            item.case = f"{item.case} ({where})"
    if (warn := family_warning(judge_model, model_under_test)) is not None:
        print(warn, file=sys.stderr)
    items.sort(key=lambda i: i.case)
    lines, kappa = render(items, scale, cfg.kappa_floor, judge_model)
    bounds = kappa_bounds(items, scale)
    code = _exit(items, kappa, bounds, cfg.kappa_floor)
    facts_failed = False
    if judge:
        s = suite_at(suite)
        facts = ask_facts(make_judge(judge, s, cfg, use_cache), s, cfg.concurrency)
        lines += fact_lines(facts)
        facts_failed = any(f.error is not None for f in facts)
    incomplete = any(i.verdict is None for i in items)
    conclusion = _conclusion(code, kappa, bounds, cfg.kappa_floor, incomplete)
    if facts_failed:
        conclusion += "; some questions per fact or claim have no valid quoted answer (exit 3)"
        code = EXIT_ERROR
    print("\n".join([*lines, "", conclusion]))
    return code


#: The floor is decided on kappa's bounds, each one-sided at the floors' level (the two-sided
#: 1 - 2 alpha interval): on the point estimate a true kappa of 0.58 "met" a floor of 0.6 35-47%
#: of the time.


def kappa_bounds(items: list[Item], scale: Scale) -> tuple[float, float] | None:
    """Kappa's bounds over the items the judge gave a verdict on (None: undefined)."""
    pairs = [(i.human, i.judge_label(scale) or "") for i in items if i.verdict is not None]
    return kappa_interval(pairs, alpha=2 * FLOOR_ALPHA)


def _exit(
    items: list[Item], kappa: float | None, bounds: tuple[float, float] | None, floor: float
) -> int:
    """3 when a label has no verdict or the floor lies within kappa's bounds, 1 when even the
    upper bound is below it (or kappa is undefined), 0 when the lower bound meets it."""
    if any(i.verdict is None for i in items):
        return EXIT_ERROR
    if kappa is None or bounds is None:
        return EXIT_FAIL
    if bounds[0] >= floor:
        return EXIT_OK
    return EXIT_FAIL if bounds[1] < floor else EXIT_ERROR


def _conclusion(
    code: int,
    kappa: float | None,
    bounds: tuple[float, float] | None,
    floor: float,
    incomplete: bool = False,
) -> str:
    if incomplete:
        return "incomplete: some labels have no judge verdict (exit 3)"
    if kappa is None or bounds is None:
        return (
            "kappa is undefined when every label and verdict is the same: label answers of both "
            "kinds (e.g. a run's drafts with --run and --labels) (exit 1)"
        )
    low, high = bounds
    where = f"bounds {low:.2f} to {high:.2f}, one-sided 95% each"
    if code == EXIT_FAIL:
        return (
            f"kappa {kappa:.3f} is below the floor {floor:g}, even its upper bound ({where}) "
            "(exit 1)"
        )
    if code == EXIT_OK:
        return f"kappa {kappa:.3f} meets the floor {floor:g} at its lower bound ({where})"
    return (
        f"kappa {kappa:.3f} cannot be told from the floor {floor:g} ({where}): label more "
        "answers of both kinds (exit 3)"
    )


def _row_reply(row: dict[str, Any]) -> Reply:
    return Reply(
        answer=row["draft"],
        retrieved=row.get("retrieved"),
        cited=row.get("cited"),
        abstained=row.get("abstained"),
    )


def _row_item(cid: str, human: str, row: dict[str, Any]) -> Item:
    review = row.get("status") == "review"
    j = row.get("judge")
    if not isinstance(j, dict):
        why = "the judge did not grade this case in the run"
        if review:
            why += " (its checks could not decide it: the row is in review)"
        return Item(cid, human, None, why, review)
    return Item(
        cid,
        human,
        j.get("verdict"),
        j.get("error") or (None if j.get("verdict") else "no verdict"),
        review,
    )
