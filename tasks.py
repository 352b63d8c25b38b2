"""invoke tasks: parse flags, call the evals package, set the exit code. Nothing else."""

from __future__ import annotations

import sys

from invoke import Exit, task

# invoke turns off writing bytecode (so no tasks.pyc lands beside tasks.py); the package's
# own modules would then be compiled from source on every command, about a quarter of an
# offline run. Python's own setting (-B, PYTHONDONTWRITEBYTECODE) still decides.
sys.dont_write_bytecode = bool(sys.flags.dont_write_bytecode)

from evals.cli import guarded  # noqa: E402 - after the bytecode setting above
from evals.taskflags import LongFlagTask, ManyPositionalTask, ReportTask  # noqa: E402 - typed flags, -h, exit 2


def _done(code: int) -> None:
    if code:
        raise Exit(code=code)


@task(help={"suite": "suite folder (default: evals)"})
def validate(c, suite=None):
    """Validate every case file (and the sealed pile's integrity); exit 2 on any problem.

    Languages read (expect.language): da, de, en, es, fr, it, nl, pt.
    """
    from evals.commands.suite import cmd_validate

    _done(guarded(lambda: cmd_validate(suite)))


@task(help={"suite": "suite folder", "check": "change nothing; exit 1 if a file would change"})
def fmt(c, suite=None, check=False):
    """Rewrite case files in canonical form."""
    from evals.commands.suite import cmd_fmt

    _done(guarded(lambda: cmd_fmt(suite, check)))


@task(help={"suite": "suite folder"})
def new(c, id, suite=None):  # noqa: A002 - the flag users type is `invoke new ID`
    """Write a valid case skeleton to cases/ID.json (never overwrites)."""
    from evals.commands.suite import cmd_new

    _done(guarded(lambda: cmd_new(suite, id)))


@task(
    positional=["dir"],
    help={"dir": "the folder to create (refused when it exists and is not empty)"},
)
def init(c, dir):  # noqa: A002 - the word users type is `invoke init DIR`
    """Create an empty suite: cases/, prompt.txt, a commented suite.toml, judge_prompt.txt."""
    from evals.commands.suite import cmd_init

    _done(guarded(lambda: cmd_init(dir)))


@task(
    iterable=["model"],
    help={
        "suite": "suite folder (default: evals)",
        "model": "pinned model id, e.g. openai/gpt-4o-mini@2024-07-18 (default: the offline "
        "model); give it several times for one run file per model",
        "answers": "JSONL of saved answers to evaluate instead of calling a model (needs --model)",
        "target": "your application as module:function (sync or async), instead of a model",
        "label": "a label for the run file name",
        "limit": "run only the first N cases",
        "category": "run only cases of this category",
        "case": "run only cases whose id matches this glob",
        "concurrency": "requests in flight (default 8, or [tool.evals] concurrency)",
        "workers": "processes that run the checks (default: one per core)",
        "no_cache": "neither read nor write the answer cache",
        "max_cost": "stop starting cases once the estimated cost would pass this many USD",
        "resume": "continue an interrupted run file (path, run id or 'latest')",
        "epochs": "run every case K times (default 1)",
        "shard": "run only slice I of N (I/N, 1-based), e.g. 2/4; join with `invoke merge`",
        "judge": "grade with the LLM judge on this pinned model",
        "sealed": "run the sealed held-out pile (aggregates only)",
        "force": "with --sealed: run past the pile's budget (recorded)",
        "key_file": "with --sealed: the pile's key file",
        "timeout": "seconds per request (and per --target call) before it is retried or "
        "abandoned (default [tool.evals] timeout_s)",
        "retries": "retries per request, with backoff (default [tool.evals] max_retries)",
        "resend": "re-send an attempt that still ended in a transient error (timeout, 429, "
        "5xx, dropped connection) up to N more times (default 2, [tool.evals] resend)",
        "batch": "send the requests as one provider batch (OpenAI-compatible Batch API, "
        "24 h window, batch price); see docs/batch.md",
    },
)
def run(
    c,
    suite=None,
    model=None,
    answers=None,
    target=None,
    label=None,
    limit=None,
    category=None,
    case=None,
    concurrency=None,
    workers=None,
    no_cache=False,
    max_cost=None,
    resume=None,
    epochs=1,
    shard=None,
    judge=None,
    sealed=False,
    force=False,
    key_file=None,
    timeout=None,
    retries=None,
    batch=False,
    resend=None,
):
    """Send every case to the model, check the answers, write a stamped run file."""
    from evals.commands.run import RunOptions, cmd_run

    _done(
        guarded(
            lambda: cmd_run(
                RunOptions(
                    suite=suite,
                    models=list(model or []),
                    answers=answers,
                    target=target,
                    label=label,
                    limit=limit,
                    category=category,
                    case=case,
                    concurrency=concurrency,
                    workers=workers,
                    no_cache=bool(no_cache),
                    max_cost=max_cost,
                    resume=resume,
                    epochs=epochs,
                    shard=shard,
                    judge=judge,
                    sealed=bool(sealed),
                    force=bool(force),
                    key_file=key_file,
                    timeout_s=timeout,
                    max_retries=retries,
                    batch=bool(batch),
                    resend=resend,
                )
            )
        )
    )


@task(
    help={
        "base": "git ref to compare with (default: the merge base of HEAD and main)",
        "suite": "suite folder (default: evals)",
        "fail_on_weakened": "exit 1 when any expectation was weakened",
    }
)
def review(c, base=None, suite=None, fail_on_weakened=False):
    """Markdown summary of what this change does to the eval, weakened expectations first."""
    from evals.review.command import cmd_review

    _done(guarded(lambda: cmd_review(base, suite, fail_on_weakened)))


@task(
    name="import",
    help={
        "file": "the golden set: JSONL (golden or rubric) or CSV",
        "suite": "suite to import into, created when missing (default: a new suite, "
        "suites/FILE-NAME)",
        "chunks": "CSV with chunk_id,text: the passages for expected_chunk_ids",
        "format": "auto (default), golden, rubric, csv or case",
        "answers_out": "where saved answers go (default: in the suite folder, FILE.answers.jsonl)",
        "claims": "CSV with case_id,claim,support_chunk_ids: the saved answers' claims",
    },
)
def import_(c, file, suite=None, chunks=None, format="auto", answers_out=None, claims=None):  # noqa: A002
    """Convert an existing golden set into validated case files (never overwrites)."""
    from evals.interchange.importers import cmd_import

    _done(guarded(lambda: cmd_import(file, suite, chunks, format, answers_out, claims)))


@task(
    help={
        "format": "jsonl (one canonical case object per line)",
        "out": "output file (default: stdout)",
        "suite": "suite folder (default: evals)",
        "force": "replace an existing --out file",
    }
)
def export(c, format="jsonl", out=None, suite=None, force=False):  # noqa: A002
    """Write the suite's cases as one JSONL file; `invoke import` reads it back."""
    from evals.interchange.export import cmd_export

    _done(guarded(lambda: cmd_export(format, out, suite, force)))


@task(help={"force": "replace a different existing pre-commit hook"})
def install_hooks(c, force=False):
    """Install a git pre-commit hook that runs validate and fmt --check on staged case files."""
    from evals.review.hooks import cmd_install_hooks

    _done(guarded(lambda: cmd_install_hooks(force)))


@task(
    help={
        "suite": "suite folder (default: evals)",
        "case": "only cases whose id matches this glob",
        "from_run": "also mutate the drafts that passed in this run (path, run id, latest "
        "(the newest run of --suite), baseline)",
        "format": "md (default) or json",
        "judge": "also run and mutate the LLM judge with this pinned model",
        "workers": "processes that grade (default: one per core)",
    }
)
def mutate(c, suite=None, case=None, from_run=None, format="md", judge=None, workers=None):  # noqa: A002
    """Run each case's checks on known-wrong variants of its good answers; exit 1 on a survivor."""
    from evals.mutate.command import cmd_mutate

    _done(guarded(lambda: cmd_mutate(suite, case, from_run, format, judge, workers)))


@task(
    klass=ReportTask,
    positional=["run"],
    help={
        "run": "run file: a path, a run id, 'latest' (default) or 'baseline'",
        "html": "also write a self-contained HTML report to this file",
        "review": "list the rows flagged needs_review (question, answer, verdict, reasoning) and the rows in review (the checks that could not decide, and why)",
        "a": "comparison: run A (before), with --b and --html",
        "b": "comparison: run B (after)",
        "suite": "suite folder whose newest run `latest` means (default: evals)",
    },
)
def report(c, run=None, html=None, review=False, a=None, b=None, suite=None):
    """A run's rates with n, errors, judge coverage, cost and latency; --html for the page."""
    from evals.report.command import cmd_report

    _done(guarded(lambda: cmd_report(run or None, a=a, b=b, html=html, review=review, suite=suite)))


@task(
    klass=ReportTask,
    positional=["run"],
    help={
        "run": "run file: a path, a run id, 'latest' (default) or 'baseline'",
        "suite": "suite folder whose labelled/ gets the labels and whose newest run `latest` "
        "means (default: the run's suite; the configured one for latest)",
        "port": "port on 127.0.0.1 (default 8765; 0: any free port)",
        "no_browser": "print the page's address instead of opening a browser",
        "sample": "passing answers drawn as spot checks after the review rows and failures "
        "(default 5)",
        "seed": "seed of the spot-check sample (default 0: the same run gives the same sample)",
        "by": "who labels (default: git's user.name, else the login name)",
    },
)
def label(c, run=None, suite=None, port=8765, no_browser=False, sample=5, seed=0, by=None):
    """Label a run's answers right or wrong on a local page; labels go to the suite's labelled/.

    The page (served on 127.0.0.1 only, nothing fetched from elsewhere) shows one answer at a
    time: rows the checks could not decide (review) first, then failures, then --sample passes
    as spot checks. Each shows the ticket and earlier turns, the answer with every citation
    linked to its passage and every figure marked as the checks read it, the passages, each
    check's verdict and detail, and the judge's verdict.

    Keys: r right, w wrong, s skip, u undo the last step (a label is removed from the file),
    e write a reason (Esc returns to the keys). Each label is appended to
    labelled/<run id>.jsonl the moment it is given, as
    {case, answer, label, why, case_sha, answer_sha, run, by, at, cited, retrieved}. Answers
    already labelled are not asked again. A labelled answer decides later runs that meet it
    for the same case content (docs/labelling.md). Ctrl-C stops the server.
    """
    from evals.label.command import cmd_label

    _done(
        guarded(
            lambda: cmd_label(
                run or None,
                suite_dir=suite,
                port=port,
                no_browser=no_browser,
                sample=sample,
                seed=seed,
                by=by,
            )
        )
    )


@task(
    positional=["case"],
    help={
        "case": "the case id",
        "run": "run file: a path, a run id, 'latest' (default) or 'baseline'",
        "suite": "suite folder whose newest run `latest` means (default: evals)",
    },
)
def show(c, case, run=None, suite=None):
    """One case of a run: question, answer, each check's status and detail, citations, errors."""
    from evals.report.show import cmd_show

    _done(guarded(lambda: cmd_show(case, run, suite=suite)))


@task(
    help={
        "suite": "suite folder (default: evals)",
        "run": "judge verdicts from this run file (path, run id, latest, baseline); needs --labels",
        "labels": 'JSONL of {"case": ID, "label": "pass"|"fail"} for the run\'s drafts',
        "judge": "pinned judge model: judge now (the references, or the run's drafts)",
        "no_cache": "ask the judge again instead of reusing cached verdicts",
        "checks": "measure the deterministic checks instead of the judge: grade the references, "
        "known_right/known_wrong drafts and labelled/*.jsonl answers; no model",
        "format": "with --checks: md (default) or json",
        "suggest": "with --checks: print each disagreement's fix as a diff of the case file or "
        "synonyms.toml, with the labelled answers it fixes; a fix that breaks another is left out",
        "apply": "with --checks --suggest: write the suggested changes (case files in canonical form)",
        "workers": "with --checks: processes that grade (default: one per core)",
    }
)
def calibrate(
    c,
    suite=None,
    run=None,
    labels=None,
    judge=None,
    no_cache=False,
    checks=False,
    format=None,  # noqa: A002
    suggest=False,
    apply=False,
    workers=None,
):
    """Judge vs human labels (kappa, confusion matrix); --checks: the checks vs labelled answers."""

    def body() -> int:
        from evals.errors import InputError

        if (suggest or apply) and not checks:
            raise InputError("--suggest and --apply apply to --checks")
        if apply and not suggest:
            raise InputError("--apply writes what --suggest offers: give both")
        if checks:
            if run or labels or judge or no_cache:
                raise InputError(
                    "--checks calls no model: --run, --labels, --judge and --no-cache do not apply"
                )
            if suggest:
                if format is not None:
                    raise InputError("--format applies to the calibration, not to --suggest")
                from evals.calibrate.command import cmd_suggest

                return cmd_suggest(suite, apply)
            from evals.calibrate.command import cmd_calibrate_checks

            return cmd_calibrate_checks(suite, format or "md", workers)
        if workers is not None:
            raise InputError("--workers applies to --checks")
        if format is not None:
            raise InputError("--format applies to --checks")
        from evals.calibrate.judge import cmd_calibrate

        return cmd_calibrate(suite, run, labels, judge, not no_cache)

    _done(guarded(body))


@task(
    help={
        "suite": "suite folder (default: evals)",
        "ids": "comma-separated case ids to seal",
        "fraction": "seal this share of each category, drawn at random (e.g. 0.2)",
        "seed": "seed for --fraction (default: random, recorded in the manifest)",
        "key_file": "file holding the seal key, outside the repository (default: $EVAL_SEAL_KEY)",
        "budget": "sealed runs allowed before --force is needed (default 10)",
        "new_key": "print a fresh key and exit; nothing is written",
        "allow_exposed": "seal even when a chosen case's text is found in another file",
    }
)
def seal(
    c,
    suite=None,
    ids=None,
    fraction=None,
    seed=None,
    key_file=None,
    budget=None,
    new_key=False,
    allow_exposed=False,
):
    """Move cases from cases/ into the encrypted held-out pile in sealed/."""
    from evals.seal.sealing import cmd_new_key, cmd_seal

    if new_key:
        _done(cmd_new_key())
        return
    _done(
        guarded(
            lambda: cmd_seal(
                suite,
                ids=ids,
                fraction=fraction,
                seed=seed,
                key_file=key_file,
                budget=budget,
                allow_exposed=allow_exposed,
            )
        )
    )


@task(
    help={
        "suite": "suite folder",
        "key_file": "file holding the seal key (default: $EVAL_SEAL_KEY)",
    }
)
def unseal(c, suite=None, key_file=None):
    """Retire the sealed pile: its cases go back to cases/ marked revealed, never to be sealed again."""
    from evals.seal.sealing import cmd_unseal

    _done(guarded(lambda: cmd_unseal(suite, key_file=key_file)))


@task(
    klass=LongFlagTask,
    help={
        "a": "run A (before): a path, a run id, 'baseline' (default) or 'latest'",
        "b": "run B (after): a path, a run id, 'baseline' or 'latest' (default)",
        "format": "md, json or text (default: text on a terminal, md when piped or with --out)",
        "all": "list unchanged cases too",
        "fail_on": "significant (default): exit 1 if B is worse at one-sided level --alpha; "
        "noninferior: exit 1 unless B is within --margin; strict: exit 1 on any case that "
        "went down and is not known to be flaky (old name: regression); never. "
        "Exit 3 when errors decide it. See docs/diff.md",
        "alpha": "significance level, and 1 - alpha is the intervals' level (default 0.05)",
        "margin": "largest acceptable drop for --fail-on noninferior, in pass-rate units "
        "(default 0.05 = 5 points)",
        "out": "write the report to this file instead of stdout",
        "suite": "suite folder whose newest run `latest` means (default: evals)",
    },
)
def diff(
    c,
    a=None,
    b=None,
    format_=None,
    all_=False,
    fail_on="significant",
    alpha="0.05",
    margin="0.05",
    out=None,
    suite=None,
):
    """Compare two runs case by case; exit 1 when the gate fails, 3 when inconclusive, 2 on bad files."""
    from evals.compare.command import cmd_diff

    _done(guarded(lambda: cmd_diff(a, b, format_, all_, fail_on, alpha, out, margin, suite)))


@task(
    help={
        "run": "a run file in runs/ (path, run id, or 'latest') to mark as the release baseline",
        "suite": "suite folder whose newest run `latest` means (default: evals)",
        "force": "make it the baseline although it stopped early or has error rows",
    }
)
def baseline(c, run, suite=None, force=False):
    """Point runs/BASELINE at a committed run file; `invoke diff` compares against it."""
    from evals.compare.baseline import cmd_baseline

    _done(guarded(lambda: cmd_baseline(run, suite, force)))


@task(
    klass=ManyPositionalTask,
    positional=["runs"],
    iterable=["gate"],
    help={
        "runs": "two or more runs of one suite: paths, run ids, 'baseline' or 'latest'",
        "baseline": "the run the others are compared with (default: the first RUN)",
        "gate": "exit 1 when this candidate is worse than the baseline, 3 when it cannot be "
        "decided ('all': every candidate)",
        "format": "text (default on a terminal), md (default otherwise) or json",
        "alpha": "family-wise significance level; 1 - alpha is the intervals' level (default 0.05)",
        "out": "write the report to this file instead of stdout",
        "html": "also write the comparison as one HTML page to this file",
        "all": "list every case in the grid, not only those where the runs disagree",
    },
)
def compare(
    c, runs, baseline=None, gate=None, format_=None, alpha="0.05", out=None, html=None, all_=False
):
    """Compare several runs side by side: Holm-adjusted paired tests against the baseline, "best"
    only when significant, and the cases where the runs disagree. See docs/many-runs.md."""
    from evals.multi.command import cmd_compare

    refs = runs if isinstance(runs, list) else [runs]
    _done(
        guarded(
            lambda: cmd_compare(refs, baseline, format_, list(gate or []), alpha, out, html, all_)
        )
    )


@task(
    iterable=["prompt", "model"],
    help={
        "suite": "suite folder (default: evals)",
        "prompt": "a system prompt file; give it several times (default: the suite's "
        "[matrix] prompts, else its prompt.txt)",
        "model": "a pinned model id; give it several times (default: the suite's [matrix] "
        "models, else the default model)",
        "label": "the start of every combination's label (default: matrix)",
        "limit": "run only the first N cases",
        "category": "run only cases of this category",
        "case": "run only cases whose id matches this glob",
        "concurrency": "requests in flight (default 8, or [tool.evals] concurrency)",
        "no_cache": "neither read nor write the answer cache",
        "max_cost": "stop starting cases once the whole matrix would pass this many USD",
        "resume": "keep complete combinations of the last matrix, continue an interrupted one",
        "gate": "exit 1 when a combination is worse than the first, 3 when that cannot be decided",
        "format": "text (default) or md for the comparison",
        "html": "also write the comparison as one HTML page to this file",
    },
)
def matrix(
    c,
    suite=None,
    prompt=None,
    model=None,
    label=None,
    limit=None,
    category=None,
    case=None,
    concurrency=None,
    no_cache=False,
    max_cost=None,
    resume=False,
    gate=False,
    format_="text",
    html=None,
):
    """Run the suite over prompts x models (one run file each), then compare them all."""
    from evals.multi.matrix import MatrixOptions, cmd_matrix

    opts = MatrixOptions(
        suite=suite,
        prompts=list(prompt or []),
        models=list(model or []),
        label=label,
        limit=limit,
        category=category,
        case=case,
        concurrency=concurrency,
        no_cache=bool(no_cache),
        max_cost=max_cost,
        resume=bool(resume),
        gate=bool(gate),
        fmt=format_,
        html=html,
    )
    _done(guarded(lambda: cmd_matrix(opts)))


@task(
    help={
        "format": "text (default), md or json",
        "html": "also write a page with the chart of the baselines to this file",
        "out": "write the table to this file instead of stdout",
    },
)
def history(c, format_="text", html=None, out=None):
    """The baselines committed over git history, oldest first, each against the one before."""
    from evals.multi.history_command import cmd_history

    _done(guarded(lambda: cmd_history(format_, html, out)))


@task(
    positional=["files"],
    help={
        "files": "the shard run files: several paths or a glob in one argument, "
        "e.g. 'runs/*_shard-*.jsonl' or 'a.jsonl,b.jsonl'",
        "out": "the merged run file to write (never overwritten)",
        "suite": "refuse a shard of another suite than this folder",
    },
)
def merge(c, files, out=None, suite=None):
    """Join the shard files of one run (same stamps, every shard once) into one run file."""
    from evals.run.merge import cmd_merge

    _done(guarded(lambda: cmd_merge([files], out, suite)))
