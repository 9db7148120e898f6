"""The first screen of a report as a PNG, in headless Chromium: the picture in README.md.

    .venv/bin/python bench/screenshot.py results/report/index.html docs/images/report-first-screen.png

It opens the page offline in Debian's chromium through chromedriver (the harness the browser tests
use, tests/browser.py: `apt-get install chromium chromium-driver`, and selenium from
`pip install -e '.[test]'`), waits for it to settle, and writes what a 1280 x 900 window shows
(`--width`, `--height`; `--full-page` for all of it). It fails, writing nothing, where the page
logs an error or asks for anything beyond itself. tests/test_docs.py runs it on a small report.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def screenshot(page: Path, png: Path, width: int = 1280, height: int = 900, full_page: bool = False) -> Path:
    """Write `png` from `page`; raises RuntimeError where the page has errors or external requests."""
    sys.path.insert(0, str(ROOT / "tests"))
    from browser import find_chromium, open_page

    find_chromium()  # ChromiumMissing (a RuntimeError) naming what to install
    with open_page(page, width, height) as loaded:
        problems = loaded.errors + [f"asks for {url}" for url in loaded.external_requests]
        if problems:
            raise RuntimeError(f"{page}: " + "; ".join(problems))
        png.parent.mkdir(parents=True, exist_ok=True)
        return loaded.screenshot(png, full_page=full_page)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("page", type=Path, help="a report's index.html")
    parser.add_argument("png", type=Path, help="where to write the PNG")
    parser.add_argument("--width", type=int, default=1280, help="window width in CSS pixels (default 1280)")
    parser.add_argument("--height", type=int, default=900, help="window height in CSS pixels (default 900)")
    parser.add_argument("--full-page", action="store_true", help="the whole page, not only the first screen")
    args = parser.parse_args(argv)
    if not args.page.is_file():
        parser.error(f"{args.page}: no such file (run the workflow first: the report is results/report/index.html)")
    try:
        written = screenshot(args.page, args.png, args.width, args.height, args.full_page)
    except RuntimeError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(f"{written}: {written.stat().st_size // 1024} KB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
