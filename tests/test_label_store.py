"""The labelled file under faults: two processes at once, a full disk, a killed writer, links."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evals.label.store import LabelFile, LinkRefused

# A writer in its own process, as a second `invoke label` page is.
WRITER = """
import json, sys
from pathlib import Path
from evals.label.store import LabelFile
path, mode, n = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
f = LabelFile(path)
for i in range(n):
    if mode == "label":
        f.append({"case": "b", "answer": f"answer {i}"})
    elif mode == "undo":
        line, _ = f.append({"case": "a", "answer": f"undone {i}"})
        assert f.remove(line)
    else:
        f.append({"case": "big", "answer": "x" * n})
        break
"""


def writer(path: Path, mode: str, n: int, **kw: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), mode, str(n)], text=True, **kw
    )


def lines(path: Path) -> list[str]:
    return path.read_text("utf-8").split("\n")


def test_two_processes_labelling_and_undoing_one_file_lose_no_label(tmp_path: Path) -> None:
    path = tmp_path / "labelled" / "run.jsonl"
    a, b = writer(path, "undo", 150), writer(path, "label", 74)
    assert b.wait(timeout=120) == 0 and a.wait(timeout=120) == 0
    kept = [json.loads(x) for x in lines(path) if x]
    assert sorted(r["answer"] for r in kept) == sorted(f"answer {i}" for i in range(74))


def _capped(limit: int):
    def cap() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write, not a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return cap


def test_a_label_that_does_not_fit_on_the_disk_leaves_no_half_line(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    LabelFile(path).append({"case": "a", "answer": "kept"})
    before = path.read_bytes()
    proc = writer(path, "big", 20_000, preexec_fn=_capped(len(before) + 4096))
    assert proc.wait(timeout=60) != 0  # the write failed: an OSError
    assert path.read_bytes() == before


def test_a_label_cut_by_a_killed_writer_is_skipped_and_cut_before_the_next(tmp_path: Path) -> None:
    path = tmp_path / "suite" / "labelled" / "run.jsonl"
    LabelFile(path).append({"case": "a", "answer": "kept"})
    size = path.stat().st_size
    proc = writer(path, "big", 64 << 20)
    deadline = time.monotonic() + 60
    while path.stat().st_size == size and time.monotonic() < deadline:
        time.sleep(0.0005)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    if path.read_bytes().endswith(b"\n"):  # killed before or after the write: make the cut
        with path.open("ab") as f:
            f.write(b'{"case": "big", "answer": "xxxx')
    line, n = LabelFile(path).append({"case": "c", "answer": "after"})
    assert n == 2 and lines(path) == ['{"case": "a", "answer": "kept"}', line.rstrip("\n"), ""]


def test_a_label_is_never_written_through_a_link(tmp_path: Path) -> None:
    outside = tmp_path / "outside.jsonl"
    folder = tmp_path / "suite" / "labelled"
    folder.mkdir(parents=True)
    (folder / "run.jsonl").symlink_to(outside)  # dangling: following it would create it
    with pytest.raises(LinkRefused, match="a symbolic link: refused"):
        LabelFile(folder / "run.jsonl").append({"case": "a", "answer": "x"})
    assert not outside.exists()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "labelled").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(LinkRefused):
        LabelFile(tmp_path / "other" / "labelled" / "run.jsonl").append({"case": "a"})
    assert not list(elsewhere.iterdir())
    real = folder / "real.jsonl"
    line, _ = LabelFile(real).append({"case": "a", "answer": "x"})
    os.replace(real, outside)
    real.symlink_to(outside)  # made a link after it was written: undo refuses it too
    with pytest.raises(LinkRefused):
        LabelFile(real).remove(line)
    assert outside.read_text("utf-8") == line


def _label(case: str = "price-pro", answer: str = "Pro costs 45 €.") -> dict[str, str]:
    return {"case": case, "answer": answer, "label": "pass", "why": "read by a person"}


def test_validate_and_runs_skip_a_cut_last_label_and_name_it_instead_of_refusing_the_suite(
    tmp_path: Path,
) -> None:
    from casekit import invoke, make_project

    suite = make_project(tmp_path)
    path = suite / "labelled" / "run.jsonl"
    LabelFile(path).append(_label())
    with path.open("ab") as f:
        f.write(json.dumps(_label(answer="x" * 5000)).encode()[:3715])  # a full disk's cut
    out = invoke(tmp_path, "validate")
    assert out.returncode == 0, out.stderr
    assert (
        "1 labelled line(s) cut short by an interrupted write skipped (run.jsonl:2)" in out.stderr
    )
    LabelFile(path).append(_label(answer="Pro is 45 € per seat."))
    assert invoke(tmp_path, "validate").stderr.count("cut short") == 0
    assert len([x for x in lines(path) if x]) == 2


def test_labels_read_through_a_link_are_refused_not_followed(tmp_path: Path) -> None:
    from casekit import invoke, make_project

    suite = make_project(tmp_path)
    outside = tmp_path / "outside.jsonl"
    outside.write_text(json.dumps(_label()) + "\n", "utf-8")
    (suite / "labelled").mkdir()
    (suite / "labelled" / "linked.jsonl").symlink_to(outside)
    out = invoke(tmp_path, "validate")
    assert out.returncode == 2
    assert f"{suite / 'labelled' / 'linked.jsonl'}: /: a symbolic link: refused" in out.stderr
    (suite / "labelled" / "linked.jsonl").unlink()
    (suite / "labelled").rmdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "a.jsonl").write_text(json.dumps(_label()) + "\n", "utf-8")
    (suite / "labelled").symlink_to(elsewhere, target_is_directory=True)
    out = invoke(tmp_path, "validate")
    assert out.returncode == 2
    assert f"{suite / 'labelled'}: /: a symbolic link: refused" in out.stderr
