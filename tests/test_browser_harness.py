"""The headless-Chromium harness (tests/browser.py) sees what it claims to: errors, console, requests, DOM, pixels.

Each test builds its page under tmp_path; screenshots go to tests/artifacts/ (git-ignored). open_page and
render skip the test where chromium/chromedriver are missing (fail it under CI=true).
"""

from __future__ import annotations

import struct
from pathlib import Path

import browser
import pytest
from browser import artifact_path, open_page, render, require_chromium


def write(tmp_path: Path, name: str, html: str) -> Path:
    path = tmp_path / name
    path.write_text(html, encoding="utf-8")
    return path


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_uncaught_error_and_console_levels_are_reported(tmp_path):
    page_path = write(
        tmp_path,
        "throws.html",
        """<!doctype html><html><head><meta charset="utf-8"><title>throws</title></head><body>
        <p id="before">before</p>
        <script>
          console.log("harness-info-111");
          console.warn("harness-warn-222");
          console.error("harness-console-error-333");
          Promise.reject(new Error("harness-rejected-444"));
          throw new Error("harness-boom-555");
        </script>
        <script>document.body.dataset.second = "ran";</script>
        </body></html>""",
    )
    with open_page(page_path) as page:
        errors = page.errors
        console = page.console
        second = page.js("return document.body.dataset.second")

    assert any("Uncaught Error: harness-boom-555" in e for e in errors), errors
    assert any("harness-rejected-444" in e for e in errors), errors  # unhandled rejection
    assert any("harness-console-error-333" in e for e in errors), errors
    levels = {msg.split(" ", 2)[-1]: level for level, msg in console}
    assert levels['"harness-info-111"'] == "INFO"
    assert levels['"harness-warn-222"'] == "WARNING"
    assert not any("harness-info-111" in e or "harness-warn-222" in e for e in errors)
    assert second == "ran"  # a throwing script does not stop the next one


def test_console_error_alone_is_an_error(tmp_path):
    page_path = write(
        tmp_path,
        "console_error.html",
        '<!doctype html><title>ce</title><script>console.error("only-this", 42)</script>',
    )
    result = render(page_path)
    assert len(result.errors) == 1
    assert '"only-this" 42' in result.errors[0]
    assert result.console == [("SEVERE", result.errors[0])]


def test_external_requests_are_recorded_even_when_they_fail(tmp_path):
    page_path = write(
        tmp_path,
        "external.html",
        """<!doctype html><html><head><title>ext</title>
        <link rel="stylesheet" href="https://cdn.example.invalid/style.css">
        </head><body>
        <img src="http://example.invalid/x.png" alt="">
        <img src="http://10.255.255.1/ip-literal.png" alt="">
        <script>fetch("https://api.example.invalid/data.json").catch(() => {});</script>
        </body></html>""",
    )
    result = render(page_path, evaluate=["return document.images.length"])

    assert result.requests[0] == page_path.as_uri()
    for url in (
        "https://cdn.example.invalid/style.css",
        "http://example.invalid/x.png",
        "http://10.255.255.1/ip-literal.png",
        "https://api.example.invalid/data.json",
    ):
        assert url in result.requests, result.requests
        assert url in result.external_requests
    # offline: each one failed at once, and the console says so
    assert any("example.invalid/x.png" in e and "Failed to load resource" in e for e in result.errors)
    assert result.values == [2]
    assert result.title == "ext"
    assert not result.load_timed_out


CLEAN_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Clean report</title>
<style>
  body { font-family: sans-serif; margin: 2em; background: #fafafa; }
  table { border-collapse: collapse; margin: 1em 0; }
  td, th { border: 1px solid #888; padding: 4px 8px; }
  .tall { height: 2400px; background: linear-gradient(#cde, #fed); }
</style></head>
<body>
<h1>Clean report</h1>
<table id="t1"><tr><th>key</th><th>value</th></tr><tr><td>a</td><td>1</td></tr></table>
<table id="t2"><tr><th>probe</th><th>accuracy</th></tr><tr><td>numeric</td><td>0.71</td></tr></table>
<svg width="120" height="60" viewBox="0 0 120 60" role="img" aria-label="bar">
  <rect x="0" y="10" width="100" height="40" fill="#36c"/></svg>
<img alt="dot" src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==">
<div class="tall"></div>
<p id="end">end</p>
<script>
  document.getElementById("t1").dataset.rows = document.querySelectorAll("#t1 tr").length;
</script>
</body></html>
"""


def test_clean_page_has_no_errors_no_external_requests_and_a_full_screenshot(tmp_path):
    page_path = write(tmp_path, "clean.html", CLEAN_PAGE)
    shot = artifact_path("browser_harness_clean.png")
    viewport_shot = artifact_path("browser_harness_clean_viewport.png")
    shot.unlink(missing_ok=True)

    with open_page(page_path, width=1280, height=900) as page:
        assert page.console == []
        assert page.errors == []
        assert page.requests[0] == page_path.as_uri()
        assert all(u.startswith(("file:", "data:")) for u in page.requests), page.requests
        assert page.external_requests == []
        assert page.title == "Clean report"
        assert page.js("return document.querySelectorAll('table').length") == 2
        assert page.js("return document.getElementById('t1').dataset.rows") == "2"  # inline JS ran
        assert page.js("return [innerWidth, innerHeight]") == [1280, 900]
        doc_height = page.js("return document.documentElement.scrollHeight")
        page.screenshot(shot)
        page.screenshot(viewport_shot, full_page=False)
        profile_dir = page.profile_dir
        driver_pid = page.driver.service.process.pid
        assert browser._our_pids(str(profile_dir))  # the check below can see our processes

    assert doc_height > 2400
    assert png_size(shot) == (1280, doc_height)  # the whole page, not just the viewport
    assert png_size(viewport_shot) == (1280, 900)
    assert shot.stat().st_size > 5000

    # nothing left behind: no Chromium/crashpad process naming our profile, no chromedriver, no profile
    assert browser._our_pids(str(profile_dir)) == []
    assert not Path(f"/proc/{driver_pid}/cmdline").exists() or not Path(f"/proc/{driver_pid}/cmdline").read_bytes()
    assert not profile_dir.exists()


def test_missing_chromium_skips_locally_and_fails_in_ci(monkeypatch):
    monkeypatch.setattr(browser.shutil, "which", lambda name: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install chromium chromium-driver"):
        require_chromium()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true.*chromium and chromedriver not found"):
        require_chromium()
