"""The examples in docs/conventions.md run and print what the page says."""

import doctest
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "conventions.md"


def test_docs_examples():
    result = doctest.testfile(str(DOC), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 5
    assert result.failed == 0


def test_docs_cite_pages_of_the_repository():
    # The repository stands alone: no citation of a spec file it does not
    # hold, and no path outside it.  (Strings split so this file passes.)
    root = DOC.parent.parent
    banned = ["SPEC " + "§", "/work/" + "shared", "../" + "shared"]
    files = [root / "README.md"] + [
        p for folder in ("docs", "tieaware", "fast", "reference", "proofs", "tests", "notebooks") for p in (root / folder).rglob("*")
        if p.suffix in (".py", ".md", ".ipynb") and "__pycache__" not in p.parts
    ]
    found = [f"{p.relative_to(root)}: {b}" for p in files for b in banned if b in p.read_text(encoding="utf-8")]
    assert not found, found


def _pages():
    root = DOC.parent.parent
    return root, [root / "README.md"] + [
        p for folder in ("docs", "tieaware", "fast", "reference", "proofs", "tests", "notebooks") for p in (root / folder).rglob("*")
        if p.suffix in (".py", ".md", ".ipynb") and "__pycache__" not in p.parts
    ]


# Words about how the project was built rather than about the project: numbered
# source documents ("seed" plus three digits), working sittings of the
# developers, issue and pull request numbers, the people who wrote it.  Pages cite papers and docs by name.
# (Patterns built from pieces so this file passes its own test.)
BUILD_WORDS = [
    r"\bseed " + r"0\d\d\b",
    r"\b[Ss]ession" + r"s?\b",
    r"\b[Ii]ssue" + r"s?\s*#?\d",
    r"\b[Pp]ull request" + r"s?\s*#?\d",
    r"(?<![\w&(/\"'#])#" + r"\d{1,4}\b",
    r"\bthe " + r"lead\b",
    r"\bhelper " + r"(ses" + r"sion|developer)",
    r"\bfarm" + r"-",
    r"\bwork" + r"tree\b",
]


def test_pages_say_nothing_of_how_the_project_was_built():
    import re

    root, files = _pages()
    found = []
    for p in files:
        for number, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1):
            for pattern in BUILD_WORDS:
                if re.search(pattern, line):
                    found.append(f"{p.relative_to(root)}:{number}: {line.strip()[:120]}")
    assert not found, "\n".join(found)


def _slug(heading):
    # GitHub's anchor for a heading: lower case, punctuation other than - and _ dropped, spaces to -.
    import re

    text = re.sub(r"`", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def test_every_link_to_a_section_resolves():
    # [text](#anchor) and [text](page.md#anchor) in README.md and docs/ name a heading (or an <a id> anchor) that exists.
    import re

    root = DOC.parent.parent
    pages = [root / "README.md", *sorted((root / "docs").glob("*.md"))]

    def anchors(page):
        out, fenced = set(), False
        for line in page.read_text(encoding="utf-8").splitlines():
            if line.startswith("```"):
                fenced = not fenced
            elif not fenced and re.match(r'<a id="[^"]+"></a>$', line.strip()):
                out.add(re.search(r'id="([^"]+)"', line).group(1))  # an explicit HTML anchor (the reproducers' r<N>)
            elif not fenced and re.match(r"#{1,6} ", line):
                slug = _slug(line.lstrip("#"))
                n, candidate = 1, slug
                while candidate in out:
                    candidate, n = f"{slug}-{n}", n + 1
                out.add(candidate)
        return out

    broken = []
    for page in pages:
        for target, anchor in re.findall(r"\]\(([^)#\s]*)#([^)\s]+)\)", page.read_text(encoding="utf-8")):
            linked = page if not target else (page.parent / target)
            if linked.suffix != ".md" or not linked.exists():
                continue
            if anchor not in anchors(linked):
                broken.append(f"{page.relative_to(root)}: {target}#{anchor}")
    assert not broken, broken
