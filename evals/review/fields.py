"""Comparing two versions of the case files: classification, field-level diffs, weakenings."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

from evals.checks.grading import checks_for
from evals.suite.case import EXPECT_ORDER, KEY_ORDER, Case, canonical_json, whole_case_sha
from evals.suite.casefiles import placeholders_left

# expect fields whose items are each a requirement: removing one loosens the case.
REQUIREMENT_LISTS = {
    "facts": "fact",
    "figures": "figure",
    "mentions": "mention pattern",
    "must_not_contain": "forbidden phrase",
    "forbidden_figures": "forbidden figure",
    "sources": "source",
}
MISSING = object()


@dataclass
class FieldChange:
    """`field: - old + new`; lists show only the items removed and added."""

    field: str
    removed: list[Any] = field(default_factory=list)
    added: list[Any] = field(default_factory=list)
    note: str = ""


def _list_change(name: str, old: Any, new: Any) -> FieldChange | None:
    o = old if isinstance(old, list) else ([] if old is MISSING else [old])
    n = new if isinstance(new, list) else ([] if new is MISSING else [new])
    removed = [x for x in o if x not in n]
    added = [x for x in n if x not in o]
    if removed or added:
        return FieldChange(name, removed, added)
    if o != n:
        return FieldChange(name, [o], [n], note="reordered")
    if (old is MISSING) != (new is MISSING):
        return FieldChange(name, [] if old is MISSING else [old], [] if new is MISSING else [new])
    return None


def _scalar_change(name: str, old: Any, new: Any) -> FieldChange | None:
    if old == new:
        return None
    return FieldChange(name, [] if old is MISSING else [old], [] if new is MISSING else [new])


def _keyed(items: Any, key: str) -> dict[str, Any]:
    return {str(x.get(key)): x for x in items or [] if isinstance(x, dict)}


def _keyed_change(name: str, old: Any, new: Any, key: str) -> list[FieldChange]:
    """Lists of objects (retrieved, known_wrong, ...) compared item by item via `key`."""
    o, n = (
        _keyed(old if old is not MISSING else [], key),
        _keyed(new if new is not MISSING else [], key),
    )
    out: list[FieldChange] = []
    gone, came = [k for k in o if k not in n], [k for k in n if k not in o]
    if gone or came:
        out.append(FieldChange(f"{name}[].{key}", gone, came))
    for k in o:
        if k in n and o[k] != n[k]:
            for sub in sorted(set(o[k]) | set(n[k])):
                c = _scalar_change(
                    f"{name}[{k}].{sub}", o[k].get(sub, MISSING), n[k].get(sub, MISSING)
                )
                if c:
                    out.append(c)
    if not out and [x for x in o if x in n] != [x for x in n if x in o]:
        out.append(FieldChange(f"{name}[].{key}", [list(o)], [list(n)], note="reordered"))
    return out


def _turn_changes(old: Any, new: Any) -> list[FieldChange]:
    """A conversation's earlier turns compared position by position: `messages[1]: - "user:
    ..." + "user: ..."`; a turn added or removed at the end shows on its own."""

    def shown(turns: Any) -> list[str]:
        if not isinstance(turns, list):
            return []
        return [
            f"{t.get('role')}: {t.get('content')}" if isinstance(t, dict) else str(t) for t in turns
        ]

    o, n = shown(old if old is not MISSING else []), shown(new if new is not MISSING else [])
    out = []
    for i in range(max(len(o), len(n))):
        a, b = o[i] if i < len(o) else MISSING, n[i] if i < len(n) else MISSING
        change = _scalar_change(f"messages[{i}]", a, b)
        if change:
            out.append(change)
    return out


def diff_case(old: dict[str, Any], new: dict[str, Any]) -> list[FieldChange]:
    """Every changed field, in canonical field order, `expect` broken down per key."""
    rank = {k: i for i, k in enumerate(KEY_ORDER)}
    out: list[FieldChange] = []
    for key in sorted(set(old) | set(new), key=lambda k: (rank.get(k, len(rank)), k)):
        o, n = old.get(key, MISSING), new.get(key, MISSING)
        if o == n:
            continue
        if key == "expect" and isinstance(o if o is not MISSING else {}, dict):
            out += diff_expect(o if isinstance(o, dict) else {}, n if isinstance(n, dict) else {})
        elif key == "retrieved":
            out += _keyed_change("retrieved", o, n, "ref")
        elif key == "messages":
            out += _turn_changes(o, n)
        elif key in ("known_wrong", "known_right"):
            out += _keyed_change(key, o, n, "draft")
        elif key == "mutation_exempt":
            out += _keyed_change("mutation_exempt", o, n, "operator")
        elif (
            key == "context"
            and isinstance(o, dict | type(MISSING))
            and isinstance(n, dict | type(MISSING))
        ):
            od = o if isinstance(o, dict) else {}
            nd = n if isinstance(n, dict) else {}
            for k in sorted(set(od) | set(nd)):
                c = _scalar_change(f"context.{k}", od.get(k, MISSING), nd.get(k, MISSING))
                if c:
                    out.append(c)
        elif key in ("tags", "checks"):
            c = _list_change(key, o, n)
            if c:
                out.append(c)
        else:
            c = _scalar_change(key, o, n)
            if c:
                out.append(c)
    return out


def diff_expect(old: dict[str, Any], new: dict[str, Any]) -> list[FieldChange]:
    rank = {k: i for i, k in enumerate(EXPECT_ORDER)}
    out = []
    for key in sorted(set(old) | set(new), key=lambda k: (rank.get(k, len(rank)), k)):
        o, n = old.get(key, MISSING), new.get(key, MISSING)
        change = (
            _list_change(f"expect.{key}", o, n)
            if key in REQUIREMENT_LISTS
            else _scalar_change(f"expect.{key}", o, n)
        )
        if change:
            out.append(change)
    return out


def q(value: Any) -> str:
    """A value as JSON, the way it reads in the case file."""
    return json.dumps(value, ensure_ascii=False)


def _effective_checks(data: dict[str, Any]) -> list[str]:
    try:
        return checks_for(Case(data))
    except Exception:  # an invalid case has no reliable check list; validation reports it
        return []


def weakenings_of_change(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """Every way `new` accepts answers that `old` rejected, one line each."""
    oe = old.get("expect") if isinstance(old.get("expect"), dict) else {}
    ne = new.get("expect") if isinstance(new.get("expect"), dict) else {}
    out: list[str] = []
    for key, noun in REQUIREMENT_LISTS.items():
        o, n = oe.get(key) or [], ne.get(key) or []
        if not isinstance(o, list) or not isinstance(n, list):
            continue
        gone = [x for x in o if x not in n]
        if gone:
            came = [x for x in n if x not in o]
            now = f" (now {', '.join(map(q, came))})" if came else ""
            out.append(f"expect.{key}: {noun} removed {', '.join(map(q, gone))}{now}")
    oa, na = oe.get("abstain", MISSING), ne.get("abstain", MISSING)
    if oa != na:
        show = lambda v: "absent" if v is MISSING else q(v)  # noqa: E731
        out.append(f"expect.abstain flipped: {show(oa)} -> {show(na)}")
    om, nm = oe.get("max_words"), ne.get("max_words")
    if isinstance(om, int) and (nm is None or (isinstance(nm, int) and nm > om)):
        out.append(f"expect.max_words loosened: {om} -> {'removed' if nm is None else nm}")
    if oe.get("rubric") and not ne.get("rubric"):
        out.append("expect.rubric removed")
    kept = set(_effective_checks(new))
    dropped = [c for c in _effective_checks(old) if c not in kept]
    if dropped:
        how = "from `checks`" if "checks" in old or "checks" in new else "(implied by expect)"
        out.append(f"check(s) dropped {how}: {', '.join(dropped)}")
    ok = _keyed(old.get("known_wrong"), "draft")
    nk = _keyed(new.get("known_wrong"), "draft")
    gone = [k for k in ok if k not in nk]
    if gone:
        out.append(f"known_wrong: {len(gone)} draft(s) removed: {', '.join(map(q, gone))}")
    if "revealed" in old and "revealed" not in new:
        out.append("revealed marker removed: a case once unsealed must never be sealed again")
    ox = _keyed(old.get("mutation_exempt"), "operator")
    nx = _keyed(new.get("mutation_exempt"), "operator")
    came = [k for k in nx if k not in ox]
    if came:
        out.append(f"mutation_exempt: exemption added for {', '.join(map(q, came))}")
    return out


def weakenings_of_removal(old: dict[str, Any] | None) -> str:
    """A deleted case, with what it used to require."""
    if old is None:
        return "case deleted"
    expect = old.get("expect") if isinstance(old.get("expect"), dict) else {}
    parts = [f"{k}: {len(v)}" for k, v in expect.items() if isinstance(v, list) and v]
    if "abstain" in expect:
        parts.append(f"abstain={q(expect['abstain'])}")
    checks = _effective_checks(old)
    if checks:
        parts.append(f"checks: {', '.join(checks)}")
    return "case deleted" + (f" (it required {'; '.join(parts)})" if parts else "")


@dataclass
class CaseChange:
    """One case file added, removed, renamed, changed or only reformatted."""

    kind: str  # added | removed | renamed | changed | reformatted
    id: str
    path: str
    old_id: str | None = None
    old_path: str | None = None
    fields: list[FieldChange] = field(default_factory=list)
    note: str = ""


def parse_case(raw: bytes | None) -> tuple[dict[str, Any] | None, str]:
    """A case file's JSON object, or None and the reason it could not be read."""
    if raw is None:
        return None, "missing"
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return None, f"unreadable: {exc}"
    return (data, "") if isinstance(data, dict) else (None, "not a JSON object")


def _without_id(data: dict[str, Any]) -> str:
    # Every field but the id (a review is about the whole file, not only what is graded).
    return whole_case_sha({k: v for k, v in data.items() if k != "id"})


def _stem(path: str) -> str:
    return Path(path).stem


def compare_cases(
    old: dict[str, bytes | None], new: dict[str, bytes | None]
) -> tuple[list[CaseChange], list[tuple[str, str]]]:
    """Classify case files and list every weakened expectation, case by case."""
    changes: list[CaseChange] = []
    weak: list[tuple[str, str]] = []
    removed, added = [], []
    for path in sorted(set(old) | set(new)):
        o, n = old.get(path), new.get(path)
        if o is not None and n is not None:
            if o == n:
                continue
            od, oerr = parse_case(o)
            nd, nerr = parse_case(n)
            cid = _stem(path)
            if od is None or nd is None:
                note = f"base: {oerr}" if od is None else f"now: {nerr}"
                changes.append(CaseChange("changed", cid, path, note=note))
                continue
            # Every field counts here, `revealed` too: removing that marker is a change to review.
            if canonical_json(od) == canonical_json(nd):
                changes.append(CaseChange("reformatted", cid, path))
                continue
            changes.append(CaseChange("changed", cid, path, fields=diff_case(od, nd)))
            weak += [(cid, w) for w in weakenings_of_change(od, nd)]
        elif o is not None:
            removed.append(path)
        elif n is not None:
            added.append(path)
    renamed = _pair_renames(removed, added, old, new)
    for rpath, apath in renamed:
        od, _ = parse_case(old[rpath])
        nd, _ = parse_case(new[apath])
        assert od is not None and nd is not None
        fields = [f for f in diff_case(od, nd) if f.field != "id"]
        changes.append(
            CaseChange("renamed", _stem(apath), apath, _stem(rpath), rpath, fields=fields)
        )
        weak += [(_stem(apath), w) for w in weakenings_of_change(od, nd)]
    paired_r = {r for r, _ in renamed}
    paired_a = {a for _, a in renamed}
    moved = _moved_and_edited(
        [p for p in removed if p not in paired_r], [p for p in added if p not in paired_a], old, new
    )
    for path in removed:
        if path in paired_r:
            continue
        od, err = parse_case(old[path])
        hint = f"moved and edited? see {_stem(moved[path])}" if path in moved else ""
        changes.append(CaseChange("removed", _stem(path), path, note=err or hint))
        weak.append((_stem(path), weakenings_of_removal(od)))
    back = {a: r for r, a in moved.items()}
    for path in added:
        if path not in paired_a:
            data, err = parse_case(new[path])
            hint = f"like removed {_stem(back[path])}" if path in back else ""
            if data is not None and placeholders_left(data):
                hint = "not filled in: still the placeholder text of `invoke new`"
            changes.append(CaseChange("added", _stem(path), path, note=err or hint))
    changes.sort(key=lambda c: (c.kind, c.id))
    return changes, weak


def _moved_and_edited(
    removed: list[str], added: list[str], old: dict[str, bytes | None], new: dict[str, bytes | None]
) -> dict[str, str]:
    """Removed path -> the added path asking (nearly) the same question: a hint for the reader.

    They stay removed plus added (the edit must be read as one), but the reader sees the link.
    """

    def questions(paths: list[str], side: dict[str, bytes | None]) -> dict[str, str]:
        found = {p: (parse_case(side[p])[0] or {}).get("question") for p in paths}
        return {p: q for p, q in found.items() if isinstance(q, str)}

    olds, news = questions(removed, old), questions(added, new)
    fuzzy = len(olds) * len(news) <= 10_000  # similarity is quadratic: exact matches only beyond
    out: dict[str, str] = {}
    for p, q in olds.items():
        best, score = None, 0.8
        for a, nq in news.items():
            if a in out.values():
                continue
            r = 1.0 if nq == q else (SequenceMatcher(None, q, nq).ratio() if fuzzy else 0.0)
            if r >= score:
                best, score = a, r
        if best is not None:
            out[p] = best
    return out


def _pair_renames(
    removed: list[str], added: list[str], old: dict[str, bytes | None], new: dict[str, bytes | None]
) -> list[tuple[str, str]]:
    """Removed/added pairs with the same content apart from the id: a rename.

    A case moved *and* edited is deliberately not paired: it shows as removed (a weakening
    to justify) and added, so an edit can never hide behind a rename.
    """
    index: dict[str, list[str]] = {}
    for p in added:
        d = parse_case(new[p])[0]
        if d is not None:
            index.setdefault(_without_id(d), []).append(p)
    pairs: list[tuple[str, str]] = []
    for p in removed:
        d = parse_case(old[p])[0]
        matches = index.get(_without_id(d), []) if d is not None else []
        if matches:
            pairs.append((p, matches.pop(0)))
    return pairs
