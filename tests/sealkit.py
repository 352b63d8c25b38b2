"""Builders for the sealed-pile tests: distinct cases, keys, and running `run --sealed`."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

from casekit import INVOKE, ROOT, good_case, invoke, make_project

from evals.seal.manifest import manifest_digest


def team_case(i: int, category: str, passing: bool = True) -> dict[str, Any]:
    """A case whose question, reference and passages are unique to it (so a leak is findable)."""
    data = good_case(
        f"team-{i:02d}",
        category=category,
        question=f"Crew {i:02d} asks: what does one more Pro seat cost per month for our crew?",
        retrieved=[
            {
                "ref": "pricing#plans",
                "text": f"Price sheet for crew {i:02d}. Starter: 39 € per seat and month. "
                "Pro: 45 € per seat and month.",
            },
            {
                "ref": "rules#night",
                "text": f"For crew {i:02d} the night surcharge applies to shifts from 22:00.",
            },
        ],
        reference=f"For crew {i:02d} an extra Pro seat costs 45 € per seat and month "
        "[doc:pricing#plans].",
    )
    if passing:
        # The offline model quotes the whole price sheet, Starter price included.
        del data["expect"]["must_not_contain"]
    return data


def team_cases(n: int = 12) -> list[dict[str, Any]]:
    """n cases over three categories; every fourth one fails with the offline model."""
    cats = ["pricing", "billing", "account"]
    return [team_case(i, cats[i % 3], passing=i % 4 != 0) for i in range(n)]


def secrets_of(data: dict[str, Any]) -> list[str]:
    """Every text of a case that must never be readable once it is sealed."""
    out = [data["question"], data["reference"]]
    out += [p["text"] for p in data.get("retrieved", [])]
    return out


def new_key() -> str:
    return base64.urlsafe_b64encode(os.urandom(32)).decode()


def project(tmp: Path, n: int = 12) -> tuple[Path, list[dict[str, Any]]]:
    """A temp project (pyproject + suite/) with n team cases; returns (project dir, cases)."""
    cases = team_cases(n)
    make_project(tmp, cases)
    return tmp, cases


@cache
def run_has_sealed_flag() -> bool:
    out = subprocess.run(
        [INVOKE, "-r", str(ROOT), "--help", "run"], capture_output=True, text=True, timeout=60
    )
    return "--sealed" in out.stdout


_API = """
import sys
sys.path.insert(0, {root!r})
from evals.cli import guarded
from evals.commands.run import RunOptions
from evals.commands.sealed import cmd_run_sealed
opts = RunOptions()
opts.sealed = True
opts.force = {force!r}
opts.key_file = {key_file!r}
opts.target = {target!r}
sys.exit(guarded(lambda: cmd_run_sealed(opts)))
"""


def run_sealed(
    cwd: Path,
    key: str | None,
    *,
    force: bool = False,
    key_file: str | None = None,
    target: str | None = None,
    env_extra: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`invoke run --sealed` when the task has the flag, else the same command through its API."""
    env = {k: v for k, v in os.environ.items() if k != "EVAL_SEAL_KEY"}
    env.update(env_extra or {})
    if key is not None:
        env["EVAL_SEAL_KEY"] = key
    if run_has_sealed_flag():
        args = ["run", "--sealed"] + (["--force"] if force else [])
        if key_file:
            args += ["--key-file", key_file]
        if target:
            args += ["--target", target]
        return subprocess.run(
            [INVOKE, "-r", str(ROOT), *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
    code = _API.format(root=str(ROOT), force=force, key_file=key_file, target=target)
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120, env=env
    )


def seal(cwd: Path, key: str | None, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"EVAL_SEAL_KEY": key or ""}
    return invoke(cwd, "seal", *args, env=env)


def unseal(cwd: Path, key: str | None, *args: str) -> subprocess.CompletedProcess[str]:
    return invoke(cwd, "unseal", *args, env={"EVAL_SEAL_KEY": key or ""})


def all_bytes(root: Path) -> list[tuple[Path, bytes]]:
    """Every file under root with its bytes."""
    return [(p, p.read_bytes()) for p in sorted(root.rglob("*")) if p.is_file()]


def sealed_files(proj: Path) -> list[Path]:
    d = proj / "suite" / "sealed"
    return sorted(p for p in d.iterdir() if p.is_file() and p.name not in ("MANIFEST.json",))


def manifest(proj: Path) -> dict:
    return json.loads((proj / "suite" / "sealed" / "MANIFEST.json").read_text("utf-8"))


TAMPER = ["edited", "added", "removed", "renamed", "manifest", "manifest_redigested", "wrong_key"]


def tamper(proj: Path, kind: str) -> None:
    d = proj / "suite" / "sealed"
    first = sealed_files(proj)[0]
    if kind == "edited":
        env = json.loads(first.read_text())
        ct = bytearray(env["ciphertext"].encode())
        ct[10] = ord("A") if ct[10] != ord("A") else ord("B")
        env["ciphertext"] = ct.decode()
        first.write_text(json.dumps(env, indent=2) + "\n")
    elif kind == "added":
        (d / "0123456789abcdef0123.json").write_text(first.read_text())
    elif kind == "removed":
        first.unlink()
    elif kind == "renamed":
        first.rename(d / "0123456789abcdef0123.json")
    elif kind in ("manifest", "manifest_redigested"):
        m = manifest(proj)
        m["budget"] = 1000
        if kind == "manifest_redigested":
            m["digest"] = manifest_digest(m)
        (d / "MANIFEST.json").write_text(json.dumps(m, indent=2))


EXPECTED = {
    "edited": "edited",
    "added": "added: not in the manifest",
    "removed": "removed",
    "renamed": "renamed",
    "manifest": "manifest altered",
    "manifest_redigested": "manifest altered: its MAC",
    "wrong_key": "wrong key",
}
