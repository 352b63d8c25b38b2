"""Pieces shared by the HTML reports: escaping, the page shell, inline SVG bar charts."""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any

from evals.numfmt import pct
from evals.report.data import WEAK, band

COLOURS = {"weak": "#c62828", "fair": "#d08700", "good": "#2e7d4f", "none": "#9aa3ad"}


def esc(value: Any) -> str:
    """Text for HTML content or a quoted attribute; None becomes empty."""
    return "" if value is None else escape(str(value), quote=True)


def script_json(data: Any) -> str:
    """`data` as JSON that a script element holds: `<`, `>`, `&` escaped so it cannot break out."""
    text = json.dumps(data, ensure_ascii=True, sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def json_script(element_id: str, data: Any) -> str:
    """JSON inside a non-executing script element; `<`, `>`, `&` escaped so it cannot break out."""
    return f'<script type="application/json" id="{esc(element_id)}">{script_json(data)}</script>'


def json_list_script(element_id: str, items: list[str]) -> str:
    """`json_script` of a list whose items are given as their `script_json` texts: the same
    bytes, without the list of values held beside its text."""
    return f'<script type="application/json" id="{esc(element_id)}">[{", ".join(items)}]</script>'


def asset(name: str) -> str:
    """A stylesheet or script shipped as package data."""
    try:
        return resources.files("evals.report").joinpath("assets", name).read_text("utf-8")
    except (NotADirectoryError, FileNotFoundError):
        # An editable install can give the package a path that importlib.resources rejects.
        return (Path(__file__).parent / "assets" / name).read_text("utf-8")


def _sha256_source(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def page(title: str, body: str, *, script: str | None = None) -> str:
    """A self-contained page: inline CSS, optional inline JS, nothing fetched from anywhere.

    The content security policy allows only our own script (by hash): even if some text slipped
    through unescaped, an injected script or event handler would not run, and nothing loads.
    """
    css = asset("report.css")
    js = asset(script) if script else ""
    script_src = _sha256_source(js) if js else "'none'"
    csp = (
        f"default-src 'none'; style-src 'unsafe-inline'; script-src {script_src}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{esc(csp)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>{css}</style></head>\n"
        f"<body>\n{body}\n" + (f"<script>{js}</script>" if js else "") + "</body></html>\n"
    )


def rate_title(name: str, r: dict[str, Any]) -> str:
    """A rate's full counts, for a chart bar's hover title."""
    review = f"{r['review']} review, " if r.get("review") else ""
    return (
        f"{name}: {r['pass']} pass, {r['fail']} fail, {review}{r['error']} error, "
        f"{r['skip']} skip; rate {pct(r['rate'])} over {r['n_scored']} scored of {r['n_total']}"
    )


def _short(name: str, limit: int = 26) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "…"


W, LABEL_W, BAR_X, BAR_W = 680, 190, 200, 280


def _axis(top: int, height: int) -> str:
    """Grid lines at 0, 50 and 100%, and a dashed line at the weak threshold."""
    out = []
    for frac in (0.0, 0.5, 1.0):
        x = BAR_X + frac * BAR_W
        out.append(
            f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + height}" class="grid"/>'
            f'<text x="{x:.1f}" y="{top - 4}" class="tick">{int(frac * 100)}%</text>'
        )
    x = BAR_X + WEAK * BAR_W
    out.append(
        f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + height}" class="grid weakline"/>'
    )
    return "".join(out)


def bar_chart(chart_id: str, items: list[tuple[str, dict[str, Any]]], caption: str) -> str:
    """Horizontal bars, one per item, in the order given, each labelled with its rate and n."""
    row_h, top = 30, 22
    height = top + row_h * max(len(items), 1) + 6
    parts = [
        f'<svg id="{esc(chart_id)}" class="chart" viewBox="0 0 {W} {height}" width="100%" '
        f'role="img" aria-label="{esc(caption)}" xmlns="http://www.w3.org/2000/svg">',
        _axis(top, row_h * max(len(items), 1)),
    ]
    for i, (name, r) in enumerate(items):
        y = top + i * row_h
        b = band(r["rate"])
        width = (r["rate"] or 0.0) * BAR_W
        err = f'<tspan class="err"> · {r["error"]} err</tspan>' if r["error"] else ""
        if r.get("review"):
            err += f'<tspan class="rev"> · {r["review"]} review</tspan>'
        parts.append(
            f'<g class="bar {b}" data-name="{esc(name)}" data-rate="{esc(r["rate"])}" '
            f'data-n-scored="{r["n_scored"]}" data-n-total="{r["n_total"]}">'
            f"<title>{esc(rate_title(name, r))}</title>"
            f'<text x="{LABEL_W}" y="{y + 19}" class="name">{esc(_short(name))}</text>'
            f'<rect x="{BAR_X}" y="{y + 5}" width="{BAR_W}" height="18" class="track"/>'
            f'<rect x="{BAR_X}" y="{y + 5}" width="{width:.1f}" height="18" '
            f'fill="{COLOURS[b]}"/>'
            f'<text x="{BAR_X + BAR_W + 8}" y="{y + 19}" class="val">'
            f'<tspan class="pct" fill="{COLOURS[b]}">{esc(pct(r["rate"]))}</tspan>'
            f'<tspan class="n"> n={r["n_scored"]}/{r["n_total"]}</tspan>{err}</text></g>'
        )
    if not items:
        parts.append(f'<text x="{BAR_X}" y="{top + 18}" class="n">nothing to show</text>')
    parts.append("</svg>")
    return "".join(parts)


@dataclass(frozen=True)
class Pair:
    """One check's rate in run A and run B."""

    name: str
    a: dict[str, Any] | None
    b: dict[str, Any] | None


def _delta(p: Pair) -> float | None:
    if not p.a or not p.b or p.a["rate"] is None or p.b["rate"] is None:
        return None
    return p.b["rate"] - p.a["rate"]


def paired_chart(chart_id: str, pairs: list[Pair], caption: str) -> str:
    """Two bars per check, A above B, and the change in points: drops in red, in the order given."""
    row_h, top = 46, 22
    height = top + row_h * max(len(pairs), 1) + 6
    parts = [
        f'<svg id="{esc(chart_id)}" class="chart" viewBox="0 0 {W} {height}" width="100%" '
        f'role="img" aria-label="{esc(caption)}" xmlns="http://www.w3.org/2000/svg">',
        _axis(top, row_h * max(len(pairs), 1)),
    ]
    for i, p in enumerate(pairs):
        y = top + i * row_h
        d = _delta(p)
        cls = "none" if d is None else "down" if d < 0 else "up" if d > 0 else "same"
        d_txt = "" if d is None else f"{d * 100:+.1f} pts"
        parts.append(
            f'<g class="pair {cls}" data-name="{esc(p.name)}">'
            f'<text x="{LABEL_W}" y="{y + 20}" class="name">{esc(_short(p.name))}</text>'
            f'<text x="{LABEL_W}" y="{y + 36}" class="delta {cls}">{esc(d_txt)}</text>'
        )
        for j, (side, r) in enumerate((("A", p.a), ("B", p.b))):
            yy = y + 4 + j * 19
            if r is None:
                parts.append(f'<text x="{BAR_X}" y="{yy + 13}" class="n">{side}: not run</text>')
                continue
            b = band(r["rate"])
            fill = "#8796a8" if side == "A" else COLOURS[b]
            width = (r["rate"] or 0.0) * BAR_W
            parts.append(
                f'<g class="side side-{side.lower()}" data-rate="{esc(r["rate"])}" '
                f'data-n-scored="{r["n_scored"]}" data-n-total="{r["n_total"]}">'
                f"<title>{esc(side + ' ' + rate_title(p.name, r))}</title>"
                f'<rect x="{BAR_X}" y="{yy}" width="{BAR_W}" height="16" class="track"/>'
                f'<rect x="{BAR_X}" y="{yy}" width="{width:.1f}" height="16" fill="{fill}"/>'
                f'<text x="{BAR_X + BAR_W + 8}" y="{yy + 13}" class="val">'
                f'<tspan class="side-tag">{side}</tspan> '
                f'<tspan class="pct">{esc(pct(r["rate"]))}</tspan>'
                f'<tspan class="n"> n={r["n_scored"]}/{r["n_total"]}</tspan></text></g>'
            )
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


def _scalar(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def flat_rows(rows: list[tuple[str, Any]]) -> list[tuple[str, str]]:
    """Stamps as rows a person reads: a table's entries each on a row of its own
    (`settings › provider › kind`), a list of plain values as one comma-separated value;
    only what is neither (a list of tables) stays JSON."""
    out: list[tuple[str, str]] = []
    for key, value in rows:
        if isinstance(value, dict) and value:
            out += flat_rows([(f"{key} \u203a {k}", v) for k, v in value.items()])
        elif isinstance(value, dict):
            out.append((key, "none"))
        elif isinstance(value, list) and all(not isinstance(v, dict | list) for v in value):
            out.append((key, ", ".join(_scalar(v) for v in value) or "none"))
        elif isinstance(value, list):
            out.append((key, json.dumps(value, ensure_ascii=False, sort_keys=True)))
        else:
            out.append((key, _scalar(value)))
    return out


def kv_table(rows: list[tuple[str, Any]], table_id: str = "") -> str:
    """A two-column table of stamps, nested tables spread into rows of their own."""
    cells = []
    for k, text in flat_rows(rows):
        cells.append(f'<tr><th scope="row">{esc(k)}</th><td><code>{esc(text)}</code></td></tr>')
    ident = f' id="{esc(table_id)}"' if table_id else ""
    return f'<table class="kv"{ident}>{"".join(cells)}</table>'
