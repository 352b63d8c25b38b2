"""The history page: the committed baselines' pass rates as an inline SVG chart, and a table.

Self-contained (the report pages' shell: inline CSS, no script, nothing fetched). Every
string from git or a run file is escaped.
"""

from __future__ import annotations

from evals.multi.history import Release
from evals.report.page import esc, page

W, H, LEFT, RIGHT, TOP, BOTTOM = 760, 300, 64, 48, 20, 64
VERDICT_COLOUR = {
    "PASS": "#2e7d4f",
    "FAIL": "#c62828",
    "INCONCLUSIVE": "#d08700",
    "NOT PAIRED": "#6b7280",
    None: "#1f4e8c",
}


def _x(i: int, n: int) -> float:
    span = W - LEFT - RIGHT
    return LEFT + (span / 2 if n == 1 else i * span / (n - 1))


def _y(rate: float) -> float:
    return TOP + (1.0 - rate) * (H - TOP - BOTTOM)


def chart(items: list[Release]) -> str:
    """Pass rate per release (oldest left) with its interval as a bar and the gate's verdict
    against the release before as the point's colour; each point's title says it all."""
    n = len(items)
    parts = [
        f'<svg id="history-chart" class="chart" viewBox="0 0 {W} {H}" width="100%" role="img" '
        f'aria-label="pass rate of {n} committed baselines, oldest first" '
        'xmlns="http://www.w3.org/2000/svg">'
    ]
    for frac in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = _y(frac)
        parts.append(
            f'<line x1="{LEFT}" y1="{y:.1f}" x2="{W - RIGHT}" y2="{y:.1f}" class="grid" '
            f'stroke="#d0d5db"/><text x="{LEFT - 8}" y="{y + 4:.1f}" text-anchor="end" '
            f'class="tick" font-size="11">{int(frac * 100)}%</text>'
        )
    points = [
        (_x(i, n), _y(r.figures.pass_rate), r)
        for i, r in enumerate(items)
        if r.figures.pass_rate is not None
    ]
    if len(points) > 1:
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y, _ in points)
        parts.append(f'<polyline points="{path}" fill="none" stroke="#1f4e8c" stroke-width="2"/>')
    for i, r in enumerate(items):
        x = _x(i, n)
        parts.append(
            f'<text x="{x:.1f}" y="{H - BOTTOM + 18}" text-anchor="middle" font-size="11" '
            f'class="tick">{esc(r.commit[:7])}</text><text x="{x:.1f}" y="{H - BOTTOM + 32}" '
            f'text-anchor="middle" font-size="10" class="tick">{esc(r.date[:10])}</text>'
        )
    for x, y, r in points:
        f = r.figures
        if f.pass_ci is not None:
            lo, hi = _y(f.pass_ci[0]), _y(f.pass_ci[1])
            parts.append(
                f'<line x1="{x:.1f}" y1="{hi:.1f}" x2="{x:.1f}" y2="{lo:.1f}" stroke="#1f4e8c" '
                'stroke-width="6" stroke-opacity="0.25" class="interval"/>'
            )
        ci = (
            ""
            if f.pass_ci is None
            else f" (95% CI {100 * f.pass_ci[0]:.1f} to {100 * f.pass_ci[1]:.1f})"
        )
        title = (
            f"{r.commit[:10]} {r.date[:10]}: pass rate {100 * (f.pass_rate or 0):.1f}%{ci}, "
            f"n {f.n_scored}/{f.n_cases}; model {f.model}, prompt {f.prompt_sha}; "
            f"vs before: {r.verdict or 'first baseline'}"
        )
        parts.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="6" class="release" '
            f'fill="{VERDICT_COLOUR.get(r.verdict, "#6b7280")}" data-verdict="{esc(r.verdict or "")}">'
            f"<title>{esc(title)}</title></circle>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _rate(p: int, s: int) -> str:
    return f"{100 * p / s:.0f}% <small>({p}/{s})</small>" if s else "–"


def render_history_page(items: list[Release]) -> str:
    """The whole page: the chart, the releases table, the per-check table."""
    rows = []
    for r in items:
        f = r.figures
        ci = "" if f.pass_ci is None else f" ({100 * f.pass_ci[0]:.1f} to {100 * f.pass_ci[1]:.1f})"
        rate = "n/a" if f.pass_rate is None else f"{100 * f.pass_rate:.1f}%{ci}"
        rows.append(
            f"<tr><td>{esc(r.date[:10])}</td><td><code>{esc(r.commit[:10])}</code></td>"
            f"<td>{esc(r.subject)}</td><td><code>{esc(f.prompt_sha)}</code></td>"
            f"<td>{esc(f.model)}</td><td>{esc(rate)}</td><td>{f.n_scored}/{f.n_cases}</td>"
            f'<td title="{esc(r.reason)}">{esc(r.verdict or "first")}</td></tr>'
        )
    names = sorted({c for r in items for c in r.checks})
    check_rows = [
        f"<tr><td>{esc(n)}</td>"
        + "".join(f"<td>{_rate(*r.checks.get(n, (0, 0)))}</td>" for r in items)
        + "</tr>"
        for n in names
    ]
    body = (
        f"<h1>Committed baselines: {len(items)}</h1>"
        "<p>Each point is the baseline a commit set (the one <code>runs/BASELINE</code> names), "
        "oldest left; the bar is its 95% interval; the colour is the release gate's verdict "
        "against the baseline before it (green PASS, red FAIL, amber INCONCLUSIVE).</p>"
        f"{chart(items)}"
        '<table id="releases"><thead><tr><th>date</th><th>commit</th><th>subject</th>'
        "<th>prompt</th><th>model</th><th>pass rate (95% CI)</th><th>n</th>"
        f"<th>vs before</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
        '<h2>Per check</h2><table id="checks"><thead><tr><th>check</th>'
        + "".join(f"<th><code>{esc(r.commit[:7])}</code></th>" for r in items)
        + f"</tr></thead><tbody>{''.join(check_rows)}</tbody></table>"
    )
    return page("Committed baselines", body)
