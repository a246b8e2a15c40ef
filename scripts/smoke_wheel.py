"""Build webclient as users get it and check that it starts: `make package-check`, and CI at every run.

Builds the sdist and the wheel from it (`python -m build`, in an isolated build environment, as pipx and
pip do) from a copy of the checkout without what a clean clone lacks, installs the wheel in a fresh
virtual environment, starts `webclient --port 0 --no-browser` from there (the bundled demo agent, no
settings file of the user's), signs in with the printed URL, fetches the page and every stylesheet and
script it links (status 200, the right content type), and stops the server as Ctrl+C does (exit 0).

Run with the development environment's Python (it has `build`); exits non-zero, saying what failed.
"""

from __future__ import annotations

import argparse
import html.parser
import http.client
import http.cookiejar
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOT_IN_A_CLEAN_CLONE = shutil.ignore_patterns(
    ".git", ".venv", "__pycache__", "*.egg-info", "build", "dist", "artifacts", ".*_cache", "node_modules"
)
URL_LINE = re.compile(r"^webclient (\S+) is running at (http://\S+)$")
START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 15.0
# What each kind of linked file must be served as.
CONTENT_TYPES = {"stylesheet": ("text/css",), "script": ("text/javascript", "application/javascript")}


class SmokeFailure(Exception):
    """A step of the check failed; the message says which and why."""


def run(command: list[str], step: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise SmokeFailure(f"{step} failed ({done.returncode}):\n{done.stdout}{done.stderr}")


def build(work: Path) -> Path:
    """The wheel, built from the sdist of a copy of the checkout (both land in work/dist)."""
    source = work / "source"
    shutil.copytree(ROOT, source, ignore=NOT_IN_A_CLEAN_CLONE)
    run([sys.executable, "-m", "build", "--outdir", str(work / "dist"), str(source)], "python -m build")
    (wheel,) = (work / "dist").glob("*.whl")
    return wheel


def install(wheel: Path, work: Path) -> Path:
    """The `webclient` command of a fresh virtual environment with the wheel installed."""
    venv = work / "venv"
    python = venv / "bin" / "python"
    # This environment's pip installs into the new one: bootstrapping a pip of its own takes seconds, and
    # compiling the dependencies' bytecode up front more (the server compiles what it imports).
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)], "python -m venv")
    pip = [sys.executable, "-m", "pip", "--python", str(python), "--disable-pip-version-check"]
    run([*pip, "install", "--quiet", "--no-compile", str(wheel)], "pip install (wheel)")
    return venv / "bin" / "webclient"


def clean_environment(work: Path) -> dict[str, str]:
    """This environment less webclient's own settings, with a home of its own (no user settings file)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("WEBCLIENT_")}
    home = work / "home"
    home.mkdir()
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"))
    return env


@contextmanager
def running(command: Path, work: Path) -> Iterator[tuple[str, str]]:
    """Start the installed server; yield its version and URL; stop it as Ctrl+C does, which must end it."""
    folder = work / "workspace"
    folder.mkdir()
    server = subprocess.Popen(
        [str(command), "--port", "0", "--no-browser", "--cwd", str(folder)],
        cwd=folder,
        env=clean_environment(work),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        yield first_line(server)
    except SmokeFailure as failure:
        server.kill()
        server.wait()
        raise SmokeFailure(f"{failure}\nthe server's errors:\n{errors_of(server)}") from None
    except BaseException:  # a bug here, or Ctrl+C: no server is left behind
        server.kill()
        server.wait()
        raise
    stop(server)


def errors_of(server: subprocess.Popen[str]) -> str:
    return server.stderr.read() if server.stderr else ""


def first_line(server: subprocess.Popen[str]) -> tuple[str, str]:
    output = server.stdout
    assert output is not None
    lines: list[str] = []
    # readline blocks; a thread lets a server that prints nothing fail the check instead of hanging it.
    reader = threading.Thread(target=lambda: lines.append(output.readline()), daemon=True)
    reader.start()
    reader.join(START_TIMEOUT_S)
    found = URL_LINE.match(lines[0].strip()) if lines else None
    if found is None:
        raise SmokeFailure(f"the server printed no URL in {START_TIMEOUT_S:.0f} s: {lines!r}")
    return found.group(1), found.group(2)


def stop(server: subprocess.Popen[str]) -> None:
    server.send_signal(signal.SIGINT)
    try:
        code = server.wait(STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
        raise SmokeFailure(f"the server did not stop within {STOP_TIMEOUT_S:.0f} s of SIGINT") from None
    if code != 0:
        raise SmokeFailure(f"the server exited with {code} on SIGINT:\n{errors_of(server)}")


class LinkedFiles(html.parser.HTMLParser):
    """The stylesheets (`<link rel=stylesheet href>`) and scripts (`<script src>`) a page links."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag == "link" and named.get("rel") == "stylesheet" and named.get("href"):
            self.found.append(("stylesheet", str(named["href"])))
        elif tag == "script" and named.get("src"):
            self.found.append(("script", str(named["src"])))


def fetch(opener: urllib.request.OpenerDirector, url: str, types: tuple[str, ...]) -> str:
    try:
        return read(opener, url, types)
    # urllib raises HTTPError for a status of 400 or more; a server that dies mid-answer resets the socket.
    except (OSError, http.client.HTTPException) as exc:
        raise SmokeFailure(f"GET {url}: {exc}") from None


def read(opener: urllib.request.OpenerDirector, url: str, types: tuple[str, ...]) -> str:
    with opener.open(url, timeout=30) as response:
        body: str = response.read().decode()
        content_type = response.headers.get_content_type()
        if response.status != 200 or content_type not in types:
            raise SmokeFailure(
                f"GET {url}: {response.status} {content_type}, wanted 200 {' or '.join(types)}"
            )
    return body


def check_page(url: str) -> list[str]:
    """Sign in with the token URL, fetch the page and what it links; the fetched addresses."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    page = fetch(opener, url, ("text/html",))
    links = LinkedFiles()
    links.feed(page)
    kinds = {kind for kind, _ in links.found}
    if kinds != set(CONTENT_TYPES):
        raise SmokeFailure(f"the page links {sorted(kinds)}, wanted {sorted(CONTENT_TYPES)}")
    fetched = [url]
    for kind, link in links.found:
        address = urllib.parse.urljoin(url, link)
        fetch(opener, address, CONTENT_TYPES[kind])
        fetched.append(address)
    return fetched


def source_version() -> str:
    found = re.search(r'^__version__ = "([^"]+)"$', (ROOT / "webclient" / "__init__.py").read_text(), re.M)
    if found is None:
        raise SmokeFailure("webclient/__init__.py has no __version__")
    return found.group(1)


def smoke(work: Path, installed: Path | None) -> None:
    started = time.monotonic()
    command = installed or build_and_install(work)
    serve_and_fetch(command, work)
    print(f"stopped cleanly; package check passed in {time.monotonic() - started:.1f} s", flush=True)


def build_and_install(work: Path) -> Path:
    wheel = build(work)
    print(f"built {', '.join(sorted(p.name for p in wheel.parent.iterdir()))}", flush=True)
    command = install(wheel, work)
    print(f"installed {wheel.name} in a fresh virtual environment", flush=True)
    return command


def serve_and_fetch(command: Path, work: Path) -> None:
    with running(command, work) as (version, url):
        if version != source_version():
            raise SmokeFailure(f"the server says version {version}, webclient/__init__.py {source_version()}")
        fetched = check_page(url)
        print(
            f"webclient {version} served {len(fetched)} files: {', '.join(map(short, fetched))}", flush=True
        )


def short(url: str) -> str:
    return urllib.parse.urlsplit(url).path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--keep", action="store_true", help="keep the build, venv and workspace folder")
    parser.add_argument(
        "--installed",
        type=Path,
        metavar="PATH",
        help="check this webclient command (e.g. one pipx installed) instead of building and installing one",
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="webclient-package-check-"))
    try:
        smoke(work, args.installed)
    except SmokeFailure as failure:
        print(f"package check FAILED: {failure}", file=sys.stderr)
        return 1
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
