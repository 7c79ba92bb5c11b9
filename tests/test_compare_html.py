"""`tieaware compare --format html` in a real browser: headless Chromium (Debian's package) loads the page.

The page is written by the command, rendered to a PNG, and read back
through Chromium's --dump-dom: it must load without a console message
(Chromium logs every console message and uncaught error of the page on
stderr as ``CONSOLE``; a probe page with an error shows the check sees
them), hold one leaderboard row per system for every measure, and ask
for nothing outside the file.  .ci/run installs chromium; where it is
missing the test skips with the reason.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from test_significance import QRELS, RUN_A, RUN_B, RUN_C

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--enable-logging=stderr", "--v=0"]


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no chromium on PATH (apt-get install chromium; .ci/run installs it)")


def browse(page: Path, tmp_path: Path, *extra: str) -> tuple[str, str]:
    """(stdout, stderr) of headless Chromium on *page* with a fresh profile."""
    profile = tmp_path / f"profile-{len(list(tmp_path.iterdir()))}"
    profile.mkdir()
    done = subprocess.run([chromium(), *FLAGS, f"--user-data-dir={profile}", *extra, page.as_uri()],
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, done.stderr


class Rows(HTMLParser):
    """Per leaderboard table (by its data-measure), the systems of its body rows; every URL the page asks for."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[str]] = {}
        self.current: str | None = None
        self.body = False
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("src", "href"):
            if key in a:
                self.urls.append(a[key])
        if tag == "table" and "leaderboard" in (a.get("class") or "").split():
            self.current = a["data-measure"]
            self.tables[self.current] = []
        elif tag == "tbody" and self.current is not None:
            self.body = True
        elif tag == "tr" and self.body:
            self.tables[self.current].append(a.get("data-system"))

    def handle_endtag(self, tag):
        if tag == "tbody":
            self.body = False
        elif tag == "table":
            self.current = None


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("html")
    for name, text in (("qrels", QRELS), ("a.run", RUN_A), ("b.run", RUN_B), ("c.run", RUN_C)):
        (d / name).write_text(text)
    return d


def run_compare(d: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tieaware", "compare", *args], cwd=d, capture_output=True, text=True, timeout=600)


def test_html_report_loads_in_chromium_with_one_row_per_system(files, tmp_path):
    out = run_compare(files, "qrels", "a.run", "b.run", "c.run", "-m", "AP nDCG@3", "--test", "t", "--ci", "95",
                      "--resamples", "2000", "--baseline", "a.run", "--baseline", "b.run", "--correction", "holm",
                      "--format", "html", "-o", str(tmp_path / "board.html"))
    assert out.returncode == 0 and out.stdout == "", out.stderr
    page = tmp_path / "board.html"
    text = page.read_text()
    assert "<script" not in text and "http://" not in text and "https://" not in text
    png = tmp_path / "board.png"
    _, err = browse(page, tmp_path, "--window-size=1300,1600", f"--screenshot={png}")
    assert png.stat().st_size > 10_000 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    dom, err = browse(page, tmp_path, "--dump-dom")
    assert "CONSOLE" not in err, [line for line in err.splitlines() if "CONSOLE" in line]
    rows = Rows()
    rows.feed(dom)
    assert set(rows.tables) == {"AP", "nDCG@3"}
    for measure, systems in rows.tables.items():
        assert sorted(systems) == ["a.run", "b.run", "c.run"], (measure, systems)
    assert rows.urls == []
    assert "over topics" in dom and "over both" in dom and "Per-query spread" in dom and "Method notes" in dom
    os.environ.get("TIEAWARE_KEEP_PNG") and shutil.copy(png, os.environ["TIEAWARE_KEEP_PNG"])


def test_the_console_check_sees_errors(files, tmp_path):
    out = run_compare(files, "qrels", "a.run", "b.run", "-m", "P@2", "--format", "html", "-o", str(tmp_path / "b.html"))
    assert out.returncode == 0, out.stderr
    probe = tmp_path / "probe.html"
    probe.write_text((tmp_path / "b.html").read_text().replace("</body>", "<script>undefinedFunction();</script></body>"))
    dom, err = browse(probe, tmp_path, "--dump-dom")
    assert "CONSOLE" in err and "undefinedFunction" in err
    rows = Rows()
    rows.feed(dom)
    assert rows.tables == {"P@2": ["a.run", "b.run"]}
