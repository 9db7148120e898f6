"""The response cache of served models and the run's request budget: digests of what a request asks,
files private to their owner and written whole, folders of others refused, and one budget counted
across processes."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest

from tabprobe.models.endpoint.budget import Budget
from tabprobe.models.endpoint.cache import ResponseCache, request_digest
from tabprobe.models.endpoint.settings import EndpointError

BODY = {"model": "m", "messages": [{"role": "user", "content": "Is it true?"}], "max_tokens": 4, "temperature": 0}


def test_the_digest_is_the_request_and_nothing_else():
    assert request_digest("chat", BODY) == request_digest("chat", dict(reversed(list(BODY.items()))))
    changed = [
        request_digest("completions", BODY),
        request_digest("chat", {**BODY, "model": "other"}),
        request_digest("chat", {**BODY, "max_tokens": 5}),
        request_digest("chat", {**BODY, "messages": [{"role": "user", "content": "Is it false?"}]}),
    ]
    assert request_digest("chat", BODY) not in changed and len(set(changed)) == len(changed)


def test_answers_are_kept_private_and_read_back(tmp_path):
    cache = ResponseCache(tmp_path / "cache")
    digest = request_digest("chat", BODY)
    assert cache.get(digest) is None
    cache.put(digest, "chat", BODY, {"choices": [{"message": {"content": "true"}}]})
    assert cache.get(digest) == {"choices": [{"message": {"content": "true"}}]}
    assert stat.S_IMODE(cache.folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(cache.path(digest).parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(cache.path(digest).stat().st_mode) == 0o600
    assert not [p for p in cache.folder.rglob("*.tmp")]  # nothing half-written left


def test_a_damaged_answer_is_asked_again(tmp_path):
    cache = ResponseCache(tmp_path / "cache")
    digest = request_digest("chat", BODY)
    cache.put(digest, "chat", BODY, {"choices": []})
    cache.path(digest).write_text('{"digest": "' + digest + '", "resp')  # torn
    assert cache.get(digest) is None


def test_a_cache_folder_others_may_enter_or_own_is_refused(tmp_path):
    folder = tmp_path / "open"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    with pytest.raises(EndpointError, match=r"open to others \(mode 755\).*chmod 700"):
        ResponseCache(folder)
    if os.getuid() == 0:  # root can hand a folder to another user, as one could have made it
        theirs = tmp_path / "theirs"
        theirs.mkdir(mode=0o700)
        os.chown(theirs, 65534, 65534)
        with pytest.raises(EndpointError, match="belongs to user id 65534.*plant answers"):
            ResponseCache(theirs)


def test_the_budget_refuses_past_its_limit_and_says_how_to_go_on(tmp_path):
    budget = Budget(3, tmp_path, "m", run="")
    budget.take(2)
    budget.take(1)
    with pytest.raises(EndpointError, match=r"3 of max_requests=3 .*cached.*raise endpoint.max_requests"):
        budget.take(1)
    budget.take(2, check=False)  # retries that happened are counted, never refused
    assert budget.own == 5


def test_one_runs_budget_is_shared_by_the_models_jobs(tmp_path):
    """Two processes (two jobs of one run) counting into one ledger: together they get the limit."""
    code = (
        "import sys\n"
        "from tabprobe.models.endpoint.budget import Budget\n"
        "from tabprobe.models.endpoint.settings import EndpointError\n"
        f"budget = Budget(50, {str(tmp_path)!r}, 'm', run='run1')\n"
        "taken = 0\n"
        "try:\n"
        "    while True:\n"
        "        budget.take(1)\n"
        "        taken += 1\n"
        "except EndpointError:\n"
        "    print(taken)\n"
    )
    jobs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True) for _ in range(2)]
    counts = [int(job.communicate(timeout=120)[0]) for job in jobs]
    assert sum(counts) == 50
    ledger = tmp_path / "budgets" / "run1-m.count"
    assert ledger.read_text() == "50" and stat.S_IMODE(ledger.stat().st_mode) == 0o600
    # Another run has a budget of its own.
    Budget(50, tmp_path, "m", run="run2").take(50)
