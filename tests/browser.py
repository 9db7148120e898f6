"""Render a local HTML file in real headless Chromium (Debian's chromium + chromium-driver, via selenium).

    with open_page(path) as page:          # starts Chromium, loads the file, waits for it to settle
        assert page.errors == []           # SEVERE console entries: uncaught JS errors, console.error, failed loads
        assert page.external_requests == []  # every URL the page asked for, less file:/data:/blob:/about:
        assert page.js("return document.querySelectorAll('table').length") == 3
        page.screenshot(artifact_path("report.png"))   # full page, PNG

or in one call: `render(path, screenshot=..., evaluate=["return document.title"]) -> PageResult`.

Chromium runs offline by default (all http/https/ws traffic goes to a proxy on 127.0.0.1:9 that
refuses, and host names resolve to nothing), so a page's external requests are attempted, logged
and fail at once; nothing leaves the machine. Each session gets its own throw-away profile, and on
exit every process started with that profile is gone (quit, then killed by pid if it lingers).

Seen: the page's console (console.*, uncaught errors and unhandled rejections, failed loads, all
from Chromium's "browser" log) and every request of the page and its iframes (Network.requestWillBeSent
and Network.webSocketCreated from the "performance" log). Not seen: requests made inside Web Workers
(they are separate DevTools targets), and console output of workers.

Use `require_chromium()` at the top of a test (open_page calls it too): where chromium or
chromedriver is missing it skips the test, saying how to install them, or fails it under CI=true.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urldefrag

import pytest

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"

BROWSER_NAMES = ("chromium", "chromium-browser")
DRIVER_NAMES = ("chromedriver",)
INSTALL_HINT = "install them with: apt-get install chromium chromium-driver (Debian/Ubuntu, as root)"

MAX_SCREENSHOT_PX = 16000  # per side, full-page screenshots are clipped to this

# Chromium switches. Everything that would talk to the network on its own is off.
CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",  # we run as root in containers; the sandbox needs user namespaces
    "--disable-gpu",
    "--disable-dev-shm-usage",  # /dev/shm is tiny in containers; use /tmp
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    "--disable-breakpad",
    "--metrics-recording-only",
    "--no-first-run",
    "--no-default-browser-check",
    "--no-pings",
    "--password-store=basic",
    "--mute-audio",
    "--hide-scrollbars",
    "--force-color-profile=srgb",
    # chromedriver merges this with its own --disable-features; unknown names are ignored.
    "--disable-features=Translate,OptimizationHints,OptimizationGuideModelDownloading,"
    "OptimizationHintsFetching,MediaRouter,DialMediaRouteProvider,AutofillServerCommunication,"
    "CertificateTransparencyComponentUpdater,InterestFeedContentSuggestions,HttpsUpgrades,"
    "NetworkTimeServiceQuerying,PrivacySandboxSettings4",
)
# With offline=True (the default): nothing reaches the network, every external request fails fast
# (ERR_PROXY_CONNECTION_FAILED / ERR_NAME_NOT_RESOLVED) and still shows in the performance log.
OFFLINE_FLAGS = (
    "--proxy-server=http://127.0.0.1:9",
    "--proxy-bypass-list=<-loopback>",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost , EXCLUDE 127.0.0.1",
)

# URL schemes that never touch the network; `external_requests` leaves them out.
LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:")
# Browser-internal pages (Chromium's start page) whose traffic is not the page's.
_BROWSER_SCHEMES = ("chrome:", "chrome-untrusted:", "devtools:", "chrome-extension:")


class ChromiumMissing(RuntimeError):
    """chromium, chromedriver or selenium is not installed."""


def find_chromium() -> tuple[str, str]:
    """(chromium, chromedriver) executables from PATH; raises ChromiumMissing naming what is absent."""
    browser = next((p for p in map(shutil.which, BROWSER_NAMES) if p), None)
    driver = next((p for p in map(shutil.which, DRIVER_NAMES) if p), None)
    missing = [name for name, path in (("chromium", browser), ("chromedriver", driver)) if not path]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("selenium (pip install -e '.[test]')")
    if missing:
        raise ChromiumMissing(f"{' and '.join(missing)} not found; {INSTALL_HINT}")
    return browser, driver  # type: ignore[return-value]


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def require_chromium() -> tuple[str, str]:
    """find_chromium() for tests: skip where Chromium is missing, or fail when CI=true (CI must test it)."""
    try:
        return find_chromium()
    except ChromiumMissing as err:
        reason = str(err)
    if in_ci():
        pytest.fail(f"CI=true but the browser tests cannot run: {reason}", pytrace=False)
    pytest.skip(reason)


def artifact_path(name: str) -> Path:
    """tests/artifacts/<name> (the folder is created; it is git-ignored)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS / name


@dataclass
class PageResult:
    """What a page did, as seen by Chromium."""

    url: str
    title: str
    console: list[tuple[str, str]]  # (level, message): DEBUG/INFO/WARNING/SEVERE, in order
    errors: list[str]  # messages of the SEVERE entries
    requests: list[str]  # every URL the page requested, in order (the page itself first)
    screenshot: Path | None = None
    values: list[Any] = field(default_factory=list)  # results of render(evaluate=[...]), in order
    load_timed_out: bool = False

    @property
    def external_requests(self) -> list[str]:
        return [u for u in self.requests if not u.startswith(LOCAL_SCHEMES)]


class Page:
    """A loaded page in a live Chromium (only valid inside `open_page`)."""

    def __init__(self, driver: WebDriver, url: str, profile_dir: Path, load_timed_out: bool):
        self.driver = driver
        self.url = url
        self.profile_dir = profile_dir  # unique to this session: every Chromium process names it
        self.load_timed_out = load_timed_out
        self._log: list[dict] = []  # raw browser-log entries: level, message, source, timestamp
        self._perf: list[dict] = []  # decoded performance-log messages: method, params
        self._navigation_seen = False

    # --- the DOM -------------------------------------------------------------------------------
    def js(self, script: str, *args: Any) -> Any:
        """Run `script` as a function body in the page (use `return`); selenium's execute_script."""
        return self.driver.execute_script(script, *args)

    def wait_for(self, script: str, *args: Any, timeout: float = 5.0) -> Any:
        """Poll `script` (a function body) until it returns something truthy; that value, or TimeoutError."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.js(script, *args)
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"not true after {timeout} s: {script}")
            time.sleep(0.05)

    @property
    def title(self) -> str:
        return self.driver.title

    # --- console and network -------------------------------------------------------------------
    def _drain(self) -> None:
        self._log.extend(self.driver.get_log("browser"))
        for entry in self.driver.get_log("performance"):
            try:
                self._perf.append(json.loads(entry["message"])["message"])
            except (KeyError, ValueError):
                continue

    @property
    def log_entries(self) -> list[dict]:
        """Raw console entries: dicts with level, message, source (console-api, javascript, network, ...)."""
        self._drain()
        return list(self._log)

    @property
    def console(self) -> list[tuple[str, str]]:
        return [(e["level"], e["message"]) for e in self.log_entries]

    @property
    def errors(self) -> list[str]:
        return [e["message"] for e in self.log_entries if e["level"] == "SEVERE"]

    @property
    def requests(self) -> list[str]:
        """URLs of Network.requestWillBeSent (and Network.webSocketCreated) since our navigation began."""
        self._drain()
        target = _comparable(self.url)
        urls: list[str] = []
        started = False
        for msg in self._perf:
            method, params = msg.get("method"), msg.get("params", {})
            if method == "Network.requestWillBeSent":
                url = params.get("request", {}).get("url", "")
                if not started:
                    # Chromium's own start page is still loading when the session opens; its
                    # traffic lands in the same log. Count from our document's request on.
                    started = params.get("type") == "Document" and _comparable(url) == target
                    if not started:
                        continue
            elif method == "Network.webSocketCreated" and started:
                url = params.get("url", "")
            else:
                continue
            if url.startswith(_BROWSER_SCHEMES) or str(params.get("documentURL", "")).startswith(_BROWSER_SCHEMES):
                continue
            urls.append(url)
        if not started:
            # Never saw our document's request (should not happen): report everything but the browser's own.
            urls = [
                m["params"]["request"]["url"]
                for m in self._perf
                if m.get("method") == "Network.requestWillBeSent"
                and not m["params"]["request"]["url"].startswith(_BROWSER_SCHEMES)
                and not str(m["params"].get("documentURL", "")).startswith(_BROWSER_SCHEMES)
            ]
        return urls

    @property
    def external_requests(self) -> list[str]:
        return [u for u in self.requests if not u.startswith(LOCAL_SCHEMES)]

    # --- the keyboard and downloads --------------------------------------------------------------
    def press(self, *keys: str) -> None:
        """Type each key into the page as a user would (real key events, to whatever has focus)."""
        from selenium.webdriver.common.action_chains import ActionChains

        actions = ActionChains(self.driver)
        for key in keys:
            actions.send_keys(key)
        actions.perform()

    def downloads_to(self, folder: Path | str) -> Path:
        """Save the page's downloads into `folder` (headless Chromium otherwise drops them)."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        self.driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(folder)})
        return folder

    def wait_for_download(self, folder: Path, name: str, timeout: float = 10.0) -> Path:
        """The downloaded file `folder/name`, once Chromium has finished writing it."""
        path, deadline = Path(folder) / name, time.monotonic() + timeout
        while not path.is_file() or any(Path(folder).glob("*.crdownload")):
            if time.monotonic() > deadline:
                raise TimeoutError(f"no download {path} after {timeout} s (folder holds {sorted(os.listdir(folder))})")
            time.sleep(0.1)
        return path

    # --- screenshots -----------------------------------------------------------------------------
    def screenshot(self, path: Path | str, full_page: bool = True) -> Path:
        """Write a PNG of the viewport, or of the whole document (each side capped at 16000 px)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        args: dict[str, Any] = {"format": "png", "fromSurface": True}
        if full_page:
            metrics = self.driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
            content = metrics.get("cssContentSize") or metrics["contentSize"]
            viewport = metrics.get("cssLayoutViewport") or metrics["layoutViewport"]
            width = min(max(content["width"], viewport["clientWidth"]), MAX_SCREENSHOT_PX)
            height = min(max(content["height"], viewport["clientHeight"]), MAX_SCREENSHOT_PX)
            args |= {
                "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1},
            }
        data = base64.b64decode(self.driver.execute_cdp_cmd("Page.captureScreenshot", args)["data"])
        if not data.startswith(b"\x89PNG\r\n\x1a\n"):
            raise RuntimeError(f"Chromium returned something other than a PNG ({len(data)} bytes)")
        path.write_bytes(data)
        return path

    def result(self, screenshot: Path | None = None, values: Sequence[Any] = ()) -> PageResult:
        return PageResult(
            url=self.url,
            title=self.title,
            console=self.console,
            errors=self.errors,
            requests=self.requests,
            screenshot=screenshot,
            values=list(values),
            load_timed_out=self.load_timed_out,
        )


def _comparable(url: str) -> str:
    return unquote(urldefrag(url)[0])


def _build_driver(profile_dir: Path, driver_log: Path, width: int, height: int, offline: bool) -> WebDriver:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, chromedriver = find_chromium()
    options = webdriver.ChromeOptions()
    options.binary_location = browser  # with the Service path below, Selenium Manager never runs
    for flag in (*CHROMIUM_FLAGS, *(OFFLINE_FLAGS if offline else ())):
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile_dir}")
    options.add_argument(f"--window-size={width},{height}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    options.add_experimental_option("perfLoggingPrefs", {"enableNetwork": True, "enablePage": False})
    # Crashpad's handler outlives Chromium briefly and would write under ~/.config/chromium: point
    # its database into our profile, so it leaves nothing behind and names our profile too.
    env = {**os.environ, "BREAKPAD_DUMP_LOCATION": str(profile_dir / "crash")}
    service = Service(executable_path=chromedriver, log_output=str(driver_log), env=env)
    return webdriver.Chrome(service=service, options=options)


def _our_pids(marker: str) -> list[int]:
    """Live processes whose command line names `marker` (our unique profile directory)."""
    pids = []
    needle = marker.encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if needle in (entry / "cmdline").read_bytes():
                pids.append(int(entry.name))
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return pids


def _shut_down(driver: WebDriver | None, profile_dir: Path, grace: float = 5.0) -> None:
    if driver is not None:
        with contextlib.suppress(Exception):
            driver.quit()  # closes Chromium, then stops chromedriver
        with contextlib.suppress(Exception):
            driver.service.stop()
    if Path("/proc").is_dir():
        deadline = time.monotonic() + grace
        while (pids := _our_pids(str(profile_dir))) and time.monotonic() < deadline:
            time.sleep(0.05)
        for pid in pids:  # still there after quit and the grace time: ours (they name our profile)
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    shutil.rmtree(profile_dir, ignore_errors=True)


def _settle(driver: WebDriver, timeout: float) -> None:
    """document.readyState == 'complete', fonts loaded, then one frame and one task for scripts to run."""
    deadline = time.monotonic() + timeout
    while driver.execute_script("return document.readyState") != "complete":
        if time.monotonic() > deadline:
            break
        time.sleep(0.02)
    driver.set_script_timeout(max(1.0, deadline - time.monotonic()))
    with contextlib.suppress(Exception):
        driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "const next = () => requestAnimationFrame(() => setTimeout(done, 0));"
            "(document.fonts ? document.fonts.ready : Promise.resolve()).then(next, next);"
        )


@contextlib.contextmanager
def open_page(
    html_path: Path | str,
    width: int = 1280,
    height: int = 900,
    *,
    offline: bool = True,
    load_timeout: float = 30.0,
) -> Iterator[Page]:
    """Load `html_path` in a fresh headless Chromium with a `width` x `height` CSS-px viewport.

    The Page yields console entries, errors and requests (accumulated as the page runs), runs JS
    and takes screenshots. Chromium and chromedriver are always shut down on exit.
    """
    require_chromium()
    from selenium.common.exceptions import TimeoutException

    html_path = Path(html_path).resolve()
    if not html_path.is_file():
        raise FileNotFoundError(html_path)
    url = html_path.as_uri()
    profile_dir = Path(tempfile.mkdtemp(prefix="tabprobe-chromium-"))
    driver_log = profile_dir.with_name(profile_dir.name + ".chromedriver.log")
    driver = None
    try:
        try:
            driver = _build_driver(profile_dir, driver_log, width, height, offline)
        except Exception as err:
            tail = driver_log.read_text(errors="replace")[-3000:] if driver_log.exists() else ""
            raise RuntimeError(f"could not start headless Chromium: {err}\nchromedriver log tail:\n{tail}") from err
        # --window-size is the outer window; make the viewport exactly width x height.
        inner_w, inner_h = driver.execute_script("return [window.innerWidth, window.innerHeight]")
        if (inner_w, inner_h) != (width, height):
            size = driver.get_window_size()
            driver.set_window_size(size["width"] + width - inner_w, size["height"] + height - inner_h)
        driver.get_log("browser")  # drop whatever the start page logged
        driver.set_page_load_timeout(load_timeout)
        timed_out = False
        try:
            driver.get(url)
        except TimeoutException:
            timed_out = True
            with contextlib.suppress(Exception):
                driver.execute_script("window.stop()")
        _settle(driver, timeout=min(load_timeout, 10.0))
        page = Page(driver, url, profile_dir, timed_out)
        page._drain()
        yield page
    finally:
        _shut_down(driver, profile_dir)
        with contextlib.suppress(OSError):
            driver_log.unlink()


def render(
    html_path: Path | str,
    screenshot: Path | str | None = None,
    width: int = 1280,
    height: int = 900,
    full_page: bool = True,
    evaluate: Iterable[str] = (),
    *,
    offline: bool = True,
) -> PageResult:
    """Load, optionally screenshot, run each `evaluate` script (function bodies: use `return`), quit."""
    with open_page(html_path, width, height, offline=offline) as page:
        values = [page.js(script) for script in evaluate]
        shot = page.screenshot(screenshot, full_page=full_page) if screenshot is not None else None
        return page.result(screenshot=shot, values=values)
