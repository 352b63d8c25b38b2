"""`invoke seal` and `invoke unseal`: the seal key, choosing cases, sealing and retiring a pile."""

from __future__ import annotations

import datetime as dt
import json
import random
import secrets
import sys
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

from evals.checks.loading import load_cases
from evals.cli import EXIT_OK, settings, suite_at
from evals.errors import InputError, Problem
from evals.seal.exposure import exposed_in, git_top, in_git_history
from evals.seal.ledger import FINISHED, read_ledger
from evals.seal.manifest import (
    CIPHER,
    KEY_ENV,
    LEDGER,
    MANIFEST,
    MANIFEST_FORMAT,
    RETIRED,
    PileKeys,
    env_key,
    file_sha,
    finish_manifest,
    new_key,
    open_pile,
    parse_key,
    pile_exists,
    seal_case,
)
from evals.suite.case import Case, canonical_json, content_sha
from evals.suite.folder import Suite

DEFAULT_BUDGET = 10


# --- the key ----------------------------------------------------------------------------


def repo_roots(suite: Suite) -> list[Path]:
    """The project root and the git work trees holding the suite and the current directory."""
    roots = {settings().root.resolve()}
    for p in (suite.path.resolve(), Path.cwd().resolve()):
        top = git_top(p)
        if top:
            roots.add(top)
    return sorted(roots)


def load_key(suite: Suite, key_file: str | None) -> bytes:
    """The seal key from --key-file (which must live outside the repository) or EVAL_SEAL_KEY."""
    if key_file:
        path = Path(key_file).expanduser().resolve()
        for root in repo_roots(suite):
            if path.is_relative_to(root):
                raise InputError(
                    f"{key_file}: the key file is inside the repository ({root}); "
                    "keep it outside, where no commit or search can reach it"
                )
        try:
            text = path.read_text("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(
                f"{key_file}: cannot read the key file ({exc.__class__.__name__})"
            ) from None
        return parse_key(text, key_file)
    key = env_key()
    if key is None:
        raise InputError(
            f"no seal key: set {KEY_ENV} or pass --key-file PATH outside the repository "
            "(`invoke seal --new-key` prints a fresh one)"
        )
    return key


def cmd_new_key() -> int:
    """Print a fresh key once; nothing is written anywhere."""
    print(new_key())
    print(
        f"store it outside the repository (a password manager, a CI secret) and export {KEY_ENV}; "
        "it is not saved anywhere and cannot be recovered",
        file=sys.stderr,
    )
    return EXIT_OK


# --- choosing cases ---------------------------------------------------------------------


def retired_ids(suite: Suite) -> set[str]:
    """Ids of every case a past pile revealed: they can never be sealed again."""
    out: set[str] = set()
    d = suite.sealed_dir / RETIRED
    for path in sorted(d.glob("*.json")) if d.is_dir() else []:
        try:
            rec = json.loads(path.read_text("utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            continue
        out.update(x for x in rec.get("revealed_ids", []) if isinstance(x, str))
    return out


def _revealed(case: Case, retired: set[str]) -> bool:
    return "revealed" in case.data or case.id in retired


def stratified_sample(cases: list[Case], fraction: float, seed: int) -> list[Case]:
    """round(fraction * n) cases from each category, drawn with a seeded generator per category."""
    by_cat: dict[str, list[Case]] = {}
    for c in sorted(cases, key=lambda c: c.id):
        by_cat.setdefault(c.category or "(none)", []).append(c)
    chosen: list[Case] = []
    for cat, group in sorted(by_cat.items()):
        k = int(fraction * len(group) + 0.5)
        # One generator per category: adding cases to one category does not reshuffle another.
        chosen += random.Random(f"{seed}:{cat}").sample(group, k)
    return sorted(chosen, key=lambda c: c.id)


def choose(
    suite: Suite, cases: list[Case], ids: str | None, fraction: float | None, seed: int | None
) -> tuple[list[Case], dict[str, Any]]:
    """The cases to seal and the selection record for the manifest."""
    if (ids is None) == (fraction is None):
        raise InputError("choose the cases with exactly one of --ids a,b,c or --fraction F")
    if ids is not None and seed is not None:
        raise InputError("--seed goes with --fraction; --ids names the cases itself")
    retired = retired_ids(suite)
    if ids is not None:
        wanted = list(dict.fromkeys(x.strip() for x in ids.split(",") if x.strip()))
        by_id = {c.id: c for c in cases}
        problems = [
            Problem(str(suite.cases_dir), "", f"no case {i!r}") for i in wanted if i not in by_id
        ]
        problems += [
            Problem(
                str(by_id[i].path), "/revealed", "revealed by an earlier pile: never sealed again"
            )
            for i in wanted
            if i in by_id and _revealed(by_id[i], retired)
        ]
        if problems or not wanted:
            raise InputError(problems or "--ids names no case")
        return [by_id[i] for i in sorted(wanted)], {"mode": "ids", "fraction": None, "seed": None}
    assert fraction is not None
    if not 0 < fraction <= 1:
        raise InputError(f"--fraction {fraction}: must be in (0, 1]")
    seed = secrets.randbelow(2**31) if seed is None else seed
    eligible = [c for c in cases if not _revealed(c, retired)]
    chosen = stratified_sample(eligible, fraction, seed)
    if not chosen:
        raise InputError(
            f"--fraction {fraction} of {len(eligible)} sealable case(s) is none; raise the fraction"
        )
    return chosen, {"mode": "fraction", "fraction": fraction, "seed": seed}


# --- sealing ----------------------------------------------------------------------------


def _today() -> str:
    return dt.datetime.now(dt.UTC).date().isoformat()


def write_pile(
    suite: Suite,
    chosen: list[Case],
    key: bytes,
    budget: int,
    selection: dict[str, Any],
    exposed: int = 0,
) -> dict[str, Any]:
    """Encrypt the cases into sealed/, manifest last; returns the manifest."""
    keys = PileKeys.derive(key)
    pile_id = f"{_today()}-{secrets.token_hex(4)}"
    guid = str(uuid.uuid4())
    suite.sealed_dir.mkdir(parents=True, exist_ok=True)
    entries = []
    for case in chosen:
        name = secrets.token_hex(10) + ".json"
        raw = seal_case(case.data, keys, pile_id, name, guid)
        with open(suite.sealed_dir / name, "xb") as fh:
            fh.write(raw)
        entries.append(
            {"file": name, "sha256": file_sha(raw), "content_sha": content_sha(case.data)}
        )
    manifest = {
        "format": MANIFEST_FORMAT,
        "pile_id": pile_id,
        "canary": guid,
        "created": _today(),
        "cipher": CIPHER,
        "key_check": keys.key_check(),
        "budget": budget,
        "selection": selection,
        "exposed": exposed,
        "n": len(chosen),
        "categories": dict(sorted(Counter(c.category or "(none)" for c in chosen).items())),
        "files": sorted(entries, key=lambda e: e["file"]),
    }
    manifest = finish_manifest(manifest, keys)
    text = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
    (suite.sealed_dir / MANIFEST).write_text(text, encoding="utf-8")
    return manifest


def _remove_pile_files(suite: Suite, manifest: dict[str, Any] | None, names: list[str]) -> None:
    for name in names:
        (suite.sealed_dir / name).unlink(missing_ok=True)
    if manifest is not None:
        (suite.sealed_dir / MANIFEST).unlink(missing_ok=True)


def _number(value: float | int | str | None, flag: str, kind: type) -> Any:
    """A flag's value as `kind`, or a clear usage error."""
    if value is None:
        return None
    try:
        return kind(value)
    except ValueError:
        raise InputError(
            f"{flag} {value!r}: not {'an integer' if kind is int else 'a number'}"
        ) from None


def _is_run_file(path: Path) -> bool:
    try:
        with open(path, encoding="utf-8") as fh:
            head = json.loads(fh.readline())
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    return isinstance(head, dict) and head.get("kind") == "run"


def retry_command(selection: dict[str, Any], ids: list[str]) -> str:
    """The same seal with --allow-exposed: the drawn seed keeps the same cases chosen."""
    if selection["mode"] == "fraction":
        how = f"--fraction {selection['fraction']:g} --seed {selection['seed']}"
    else:
        how = "--ids " + ",".join(ids)
    return f"invoke seal {how} --allow-exposed"


def exposure_problems(exposed: dict[str, list[Path]], selection: dict[str, Any]) -> list[Problem]:
    """Why sealing is refused: each file and what it holds, then the ways forward.

    A run file exposes exactly the cases it ran: they were answered and graded in the open, so
    they are development data now, however the pile is encrypted."""
    by_file: dict[Path, list[str]] = {}
    for cid, paths in exposed.items():
        for p in paths:
            by_file.setdefault(p, []).append(cid)
    problems = []
    for path, cids in sorted(by_file.items()):
        what = (
            "a run file: these chosen case(s) ran visibly and their text is in it"
            if _is_run_file(path)
            else "holds the text of chosen case(s)"
        )
        problems.append(Problem(str(path), "", f"{what}: {', '.join(sorted(cids))}"))
    problems.append(
        Problem(
            "",
            "",
            f"{len(exposed)} chosen case(s) are already readable in these files, so they would "
            "not be held out. Seal cases that never ran visibly (`invoke new`, then --ids), "
            "delete those files, or, to try the pile out knowing these cases are not held out "
            f"(the manifest records how many): {retry_command(selection, sorted(exposed))}",
        )
    )
    return problems


def cmd_seal(
    suite_dir: str | None,
    *,
    ids: str | None = None,
    fraction: float | str | None = None,
    seed: int | str | None = None,
    key_file: str | None = None,
    budget: int | str | None = None,
    allow_exposed: bool = False,
) -> int:
    """Move the chosen cases from cases/ into an encrypted pile in sealed/."""
    fraction = _number(fraction, "--fraction", float)
    seed = _number(seed, "--seed", int)
    budget = _number(budget, "--budget", int)
    suite = suite_at(suite_dir)
    if pile_exists(suite):
        raise InputError(
            f"{suite.sealed_dir}: already holds a sealed pile; `invoke unseal` retires it first"
        )
    budget = DEFAULT_BUDGET if budget is None else budget
    if budget < 1:
        raise InputError(f"--budget {budget}: must be at least 1")
    key = load_key(suite, key_file)
    cases, _ = load_cases(suite)
    chosen, selection = choose(suite, cases, ids, fraction, seed)
    exposed = exposed_in(settings().root, chosen)
    if exposed and not allow_exposed:
        raise InputError(exposure_problems(exposed, selection))
    manifest = write_pile(suite, chosen, key, budget, selection, len(exposed))
    names = [e["file"] for e in manifest["files"]]
    try:
        pile = open_pile(suite, key)
        if [c.sha for c in pile.cases] != [c.sha for c in sorted(chosen, key=lambda c: c.id)]:
            raise InputError("the pile read back differs from the cases sealed")
    except InputError:
        _remove_pile_files(suite, manifest, names)
        raise
    # Only once the pile reads back correctly do the plaintext files go.
    for case in chosen:
        if case.path:
            case.path.unlink()
    history = in_git_history(suite, chosen)
    cats = ", ".join(f"{k} {v}" for k, v in manifest["categories"].items())
    print(f"sealed {len(chosen)} case(s) into {suite.sealed_dir} as pile {manifest['pile_id']}")
    print(f"categories: {cats}")
    if selection["mode"] == "fraction":
        print(f"selection: fraction {selection['fraction']} per category, seed {selection['seed']}")
    print(f"budget: {budget} sealed run(s); canary {manifest['canary']}")
    print(f"digest: {manifest['digest']}")
    if exposed:
        files = sorted({str(p) for ps in exposed.values() for p in ps})
        print(
            f"warning: {len(exposed)} sealed case(s) are readable in other files (--allow-exposed; "
            f"the manifest records it); delete them to hold the pile out: {', '.join(files)}",
            file=sys.stderr,
        )
    if history:
        print(
            f"warning: {history} sealed case(s) were committed before; their text stays readable in "
            "git history (`git log -p`). Seal cases that were never committed, or rewrite that "
            "history.",
            file=sys.stderr,
        )
    return EXIT_OK


# --- unsealing --------------------------------------------------------------------------


def cmd_unseal(suite_dir: str | None, *, key_file: str | None = None) -> int:
    """Put the pile's cases back in cases/ marked `revealed`, and retire the pile."""
    suite = suite_at(suite_dir)
    if not pile_exists(suite):
        raise InputError(f"{suite.sealed_dir}: no sealed pile to unseal")
    key = load_key(suite, key_file)
    pile = open_pile(suite, key)
    targets = {c.id: suite.cases_dir / f"{c.id}.json" for c in pile.cases}
    clash = [
        Problem(str(p), "", "already exists; unseal would overwrite it")
        for p in targets.values()
        if p.exists()
    ]
    if clash:
        raise InputError(clash)
    today = _today()
    suite.cases_dir.mkdir(parents=True, exist_ok=True)
    for case in pile.cases:
        with open(targets[case.id], "x", encoding="utf-8") as fh:
            fh.write(canonical_json({**case.data, "revealed": today}))
    retired = suite.sealed_dir / RETIRED
    retired.mkdir(exist_ok=True)
    record = {
        "pile_id": pile.pile_id,
        "unsealed": today,
        "revealed_ids": [c.id for c in pile.cases],
        "manifest": pile.manifest,
    }
    (retired / f"{pile.pile_id}.json").write_text(
        json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    ledger = suite.sealed_dir / LEDGER
    runs = 0
    if ledger.is_file():
        # A run is its `reserved` line (or one line, before reservations); `finished` pairs it.
        runs = sum(1 for e in read_ledger(suite) if e.get("phase") != FINISHED)
        ledger.replace(retired / f"{pile.pile_id}.LEDGER.jsonl")
    _remove_pile_files(suite, pile.manifest, [e["file"] for e in pile.manifest["files"]])
    print(
        f"unsealed pile {pile.pile_id}: {len(pile.cases)} case(s) back in {suite.cases_dir}, "
        f"marked revealed {today}; they can never be sealed again"
    )
    print(f"history kept in {retired}/{pile.pile_id}.json and .LEDGER.jsonl ({runs} sealed run(s))")
    return EXIT_OK
