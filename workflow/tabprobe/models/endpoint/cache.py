"""The response cache of served models: one file per request, named by the digest of what the
request asks (the API, the model's name, the prompt and every parameter; never the key, which is
not part of a request's body), holding the request and the server's answer as it came.

Why a file per request: a job killed midway has every answer it received on disk, so the next
run asks only for the rest; a re-run with the server stopped reads every answer from here and
gives the same bytes; a probe added later asks only for its own prompts, and prompts two probes
share are asked once. Each file is written whole or not at all (a temporary file renamed into
place), so jobs side by side, even two asking the same prompt, never read half an answer.

The folder is the user's alone (0700, its files 0600): the answers are the user's data (a hosted
model's answers may be paid for), and another user must not be able to plant answers in it. A
folder that exists is used only if it is this user's and closed to others.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tabprobe.models.endpoint.settings import EndpointError

# Bumped when what a cached file holds changes shape, so that old files are not misread.
FORMAT = 1


def request_digest(api: str, body: Mapping[str, Any]) -> str:
    """What identifies a request: its API and its body (model, prompt or messages, parameters), as
    canonical JSON."""
    text = json.dumps({"format": FORMAT, "api": api, "body": body}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def private_folder(path: str | Path, what: str) -> Path:
    """`path` as a folder of this user's alone: made 0700 (with its parents) if new, and refused
    with the fix if it is a link, another user's, or open to others."""
    folder = Path(path)
    folder.parent.mkdir(parents=True, exist_ok=True)
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        pass
    found = folder.lstat()
    if not stat.S_ISDIR(found.st_mode):
        raise EndpointError(f"{folder}: the {what} is not a folder (a link or a file); remove it and run again")
    if found.st_uid != os.getuid():
        raise EndpointError(
            f"{folder}: the {what} belongs to user id {found.st_uid}, not to you ({os.getuid()}), who could "
            f"plant answers in it; remove it or set the config key endpoint.cache to a folder of your own"
        )
    if stat.S_IMODE(found.st_mode) & 0o077:
        raise EndpointError(
            f"{folder}: the {what} is open to others (mode {stat.S_IMODE(found.st_mode):o}), who could read the "
            f"answers or plant their own; make it private (chmod 700 {folder})"
        )
    return folder


class ResponseCache:
    """Answers by request digest, in `folder` (made private on first use)."""

    def __init__(self, folder: str | Path):
        self.folder = private_folder(folder, "response cache")

    def path(self, digest: str) -> Path:
        # A level of folders by the digest's first two characters keeps each folder small.
        return self.folder / digest[:2] / f"{digest}.json"

    def get(self, digest: str) -> dict | None:
        """The cached answer (the server's JSON response) of a request, or None."""
        try:
            record = json.loads(self.path(digest).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            return None  # unreadable: asked again and written anew
        return record.get("response") if record.get("digest") == digest else None

    def put(self, digest: str, api: str, body: Mapping[str, Any], response: Mapping[str, Any]) -> None:
        """Store a request and its answer, readable by this user alone, on disk before it is named."""
        target = self.path(digest)
        if not target.parent.is_dir():
            target.parent.mkdir(mode=0o700, exist_ok=True)
        record = {"digest": digest, "api": api, "request": body, "response": response}
        fd, tmp = tempfile.mkstemp(prefix=f".{digest[:16]}.", suffix=".tmp", dir=target.parent)  # 0600
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(record, handle, sort_keys=True, ensure_ascii=False)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, target)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)

    def __len__(self) -> int:
        return sum(1 for _ in self.folder.glob("*/*.json"))
