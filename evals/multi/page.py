"""The comparison as one self-contained HTML page: the tables of the text report, the grid
of cases by runs (sortable, disagreements first), and a click (or Enter) on a cell that
shows every run's answer to the case side by side, with a word diff and each check's result.

Inline CSS and one inline script allowed by its hash (the report pages' policy): nothing is
fetched, and an injected script could not run. Strings from run files are escaped here and
set as text by the script.
"""

from __future__ import annotations

import base64
import hashlib
from importlib import resources
from pathlib import Path

from evals.multi.comparison import MultiComparison
from evals.multi.render import (
    best_sentence,
    figure_of,
    fmt_change,
    fmt_rate,
    fmt_score,
    to_data,
    worst_sentence,
)
from evals.report.page import asset, esc, json_script


def _own(name: str) -> str:
    try:
        return resources.files("evals.multi").joinpath("assets", name).read_text("utf-8")
    except (NotADirectoryError, FileNotFoundError):
        return (Path(__file__).parent / "assets" / name).read_text("utf-8")


def shell(title: str, body: str, js: str) -> str:
    """The page around `body`: the report's styles and this page's, and `js` by its hash."""
    css = asset("report.css") + _own("compare.css")
    digest = base64.b64encode(hashlib.sha256(js.encode()).digest()).decode()
    csp = (
        f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{digest}'; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{esc(csp)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>{css}</style></head>\n<body>\n{body}\n"
        f"<script>{js}</script></body></html>\n"
    )


def _runs_table(mc: MultiComparison) -> str:
    level = f"{1 - mc.alpha:.0%}"
    rows = "".join(
        f'<tr><th scope="row">{esc(r.key)}{" (baseline)" if k == mc.baseline else ""}</th>'
        f"<td>{esc(r.label)}</td><td>{esc(r.model)}</td><td><code>{esc(r.prompt_sha)}</code></td>"
        f"<td>{esc(fmt_rate(r))}</td><td>{r.n_scored}/{r.n_cases}</td><td>{esc(fmt_score(r))}</td>"
        f"<td>{r.n_error}</td><td>{r.n_review}</td></tr>"
        for k, r in enumerate(mc.runs)
    )
    return (
        '<table id="runs"><thead><tr><th>run</th><th>label</th><th>model</th><th>prompt</th>'
        f"<th>pass rate ({level} CI)</th><th>n</th><th>mean score ({level} CI)</th><th>error</th>"
        f"<th>review</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def _candidates_table(mc: MultiComparison) -> str:
    rows = "".join(
        f'<tr><th scope="row">{esc(mc.runs[c.run].key)} {esc(mc.runs[c.run].label)}</th>'
        f"<td>{c.comparison.stats.n_paired}</td><td>{esc(fmt_change(figure_of(c, 'pass rate')))}</td>"
        f"<td>{esc(fmt_change(figure_of(c, 'mean score')))}</td><td>{c.verdict.p_gate:.4g}</td>"
        f"<td>{c.verdict.p_holm:.4g}</td><td>{c.verdict.level:.3g}</td>"
        f'<td class="verdict" title="{esc(c.verdict.reason)}">{esc(c.verdict.verdict)}</td></tr>'
        for c in mc.candidates
    )
    return (
        '<table id="candidates"><thead><tr><th>candidate</th><th>paired</th>'
        "<th>pass rate B - A</th><th>mean score B - A</th><th>p</th><th>p (Holm)</th>"
        f"<th>level</th><th>verdict</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def _grid(mc: MultiComparison) -> str:
    head = "".join(
        f'<th data-key="{k}" aria-sort="none"><button class="sort" type="button">'
        f"{esc(r.key)}</button></th>"
        for k, r in enumerate(mc.runs)
    )
    rows = []
    for i, g in enumerate(mc.grid):
        cells = "".join(
            f'<td data-status="{esc(c.status)}"><button class="cell st-{esc(c.status)}" '
            f'type="button" data-case="{i}" data-run="{k}" aria-pressed="false" '
            f'aria-label="{esc(g.id)} in {esc(mc.runs[k].key)}: {esc(c.text)}">'
            f"{esc(c.text)}</button></td>"
            for k, c in enumerate(g.cells)
        )
        rows.append(
            f'<tr data-order="{i}" data-id="{esc(g.id)}" class="{"disagree" if g.disagree else "agree"}">'
            f"<td><code>{esc(g.id)}</code>{'' if g.same_case else ' (case file differs)'}</td>{cells}</tr>"
        )
    return (
        '<div class="grid-wrap"><table id="grid" class="grid"><thead><tr>'
        '<th data-key="case" aria-sort="none"><button class="sort" type="button">case</button></th>'
        f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def render_page(mc: MultiComparison) -> str:
    """The whole page (see the module docstring)."""
    base = mc.runs[mc.baseline]
    worst = worst_sentence(mc)
    n_bad = len(mc.disagreeing)
    body = (
        f"<h1>Compare: {len(mc.runs)} runs against {esc(base.key)} {esc(base.label)}</h1>"
        f"<h2>Runs</h2>{_runs_table(mc)}"
        f"<h2>Against the baseline (Holm over {len(mc.candidates)} candidates)</h2>"
        f"{_candidates_table(mc)}"
        f'<p id="best">{esc(best_sentence(mc))}</p>'
        + (f'<p id="worst">{esc(worst)}</p>' if worst else "")
        + f'<h2>Where the runs disagree (<span id="n-disagree">{n_bad}</span> of '
        f"{len(mc.grid)} cases)</h2>"
        '<p><label><input type="checkbox" id="only-disagree" checked> only the cases where '
        'the runs disagree</label> · <label>show <select id="grid-check">'
        '<option value="">each case\'s outcome</option>'
        + "".join(f'<option value="{esc(c.name)}">check {esc(c.name)}</option>' for c in mc.checks)
        + "</select></label> · sort by a column with its header · open a cell (click, or "
        "Enter) to see the answers side by side; Esc closes</p>"
        f"{_grid(mc)}"
        '<section id="detail" role="region" aria-live="polite" aria-labelledby="detail-title" '
        "hidden></section>" + json_script("compare-data", to_data(mc))
    )
    return shell(f"Compare {len(mc.runs)} runs", body, _own("compare.js"))
