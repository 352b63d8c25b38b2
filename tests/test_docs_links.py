"""The README and the pages under docs/ link to files and headings that exist, so that a
section moved from one page to another cannot leave a dead link behind."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def prose(text: str) -> str:
    """The text outside fenced code blocks (a `# comment` in a shell block is no heading)."""
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every heading anchor of a Markdown page, repeated headings numbered as GitHub does."""
    seen: dict[str, int] = {}
    out = set()
    for m in re.finditer(r"^#{1,6} (.+)$", prose(page.read_text("utf-8")), re.M):
        base = slug(m.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def links(page: Path) -> list[str]:
    return [t for t in LINK.findall(prose(page.read_text("utf-8"))) if "://" not in t]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_names_a_file_and_heading_that_exist(page: Path) -> None:
    dead = []
    for target in links(page):
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            dead.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            dead.append(f"{target}: no such heading")
    assert not dead, f"{page.relative_to(ROOT)}: {dead}"


def test_slug_follows_githubs_rule_for_code_and_punctuation() -> None:
    assert (
        slug("Suggested edits: `--suggest` and `--apply`")
        == "suggested-edits---suggest-and---apply"
    )
    assert (
        slug("`invoke import`: bring an existing golden set")
        == "invoke-import-bring-an-existing-golden-set"
    )


def test_the_readme_links_every_reference_page() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    unlinked = [
        p.name for p in sorted((ROOT / "docs").glob("*.md")) if f"](docs/{p.name})" not in readme
    ]
    assert not unlinked, f"README.md links no {unlinked}"
