"""What a Slurm run does not say by itself: jobs that can never start, and why a job failed.

sbatch accepts a job that asks for more than any node of its partition offers (4 CPUs on
2-CPU nodes, more memory or time than the partition allows); Slurm then keeps it pending for
ever with a reason such as PartitionConfig, and Snakemake waits without a word. The watcher,
started by the Snakefile on a Slurm run, reads `squeue` every minute and logs each such job
once: what it asks against what its partition offers, and which profile to change.

When a job fails on a cluster without accounting, the plugin can only say that it failed; the
Snakefile's `onerror` prints the end of each failed job's Slurm log (`failed_jobs_report`).
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

log = logging.getLogger(__name__)

# Pending reasons that no amount of waiting clears: the request itself exceeds a limit. (Reasons
# such as Resources, Priority or QOSMaxJobsPerUserLimit clear as other jobs end.)
NEVER_STARTS = {
    "PartitionConfig": "it asks for more CPUs, memory or GPUs than any node of its partition has",
    "PartitionNodeLimit": "it asks for more nodes than its partition allows",
    "PartitionTimeLimit": "its runtime is above its partition's time limit",
    "BadConstraints": "no node satisfies its constraints",
    "ReqNodeNotAvail, UnavailableNodes": "the nodes it needs are unavailable",
    "InvalidAccount": "its account is not valid on this cluster",
    "InvalidQOS": "its QOS is not valid for its account",
    "QOSMaxCpuPerJobLimit": "it asks for more CPUs than its QOS allows a job",
    "QOSMaxMemoryPerJob": "it asks for more memory than its QOS allows a job",
    "QOSMaxGRESPerJob": "it asks for more GPUs than its QOS allows a job",
    "QOSMaxWallDurationPerJobLimit": "its runtime is above its QOS's limit",
    "AssocMaxCpuPerJobLimit": "it asks for more CPUs than its account allows a job",
    "AssocMaxMemPerJob": "it asks for more memory than its account allows a job",
    "AssocMaxWallDurationPerJobLimit": "its runtime is above its account's limit",
}

DEFAULT_PROFILE = "workflow/profiles/slurm/config.yaml"

# Job id, comment (the plugin writes rule_<rule>_wildcards_<...>), reason, working directory.
SQUEUE_FORMAT = "%i|%k|%r|%Z"


@dataclass(frozen=True)
class Stuck:
    slurm_id: str
    job: str  # the rule (or group) and wildcards, from the job's comment
    reason: str

    def message(self, profile: str = DEFAULT_PROFILE, request: str = "") -> str:
        """What to tell the user: the job, why it cannot start, what it asks against what its
        partition offers (`request`, from `describe_request`: the limits it is over, where it
        found one, stands in for Slurm's general reason), and where to change it (`profile`: the
        profile this run reads)."""
        why = request if request.startswith(OVER) else NEVER_STARTS[self.reason] + (": " + request if request else "")
        return (
            f"Slurm job {self.slurm_id} ({self.job}) can never start: it is pending with reason {self.reason}, "
            f"so {why.removeprefix(OVER)}. Lower the job's request in the "
            f"Slurm profile this run uses ({profile}: set-threads for CPUs, set-resources for mem_mb, runtime, "
            "slurm_partition) to what `sinfo -o '%P %c %m %G %l'` shows, then cancel this run and start it again."
        )


def stuck_jobs(squeue_output: str, workdir: str) -> list[Stuck]:
    """The jobs of the run in `workdir` that `squeue --format=SQUEUE_FORMAT` shows pending for a
    reason that never clears."""
    found = []
    for line in squeue_output.splitlines():
        parts = line.split("|")
        if len(parts) != 4:
            continue
        slurm_id, comment, reason, job_dir = (part.strip() for part in parts)
        if os.path.realpath(job_dir) == os.path.realpath(workdir) and reason in NEVER_STARTS:
            found.append(Stuck(slurm_id, comment.removeprefix("rule_") or "?", reason))
    return found


def profile_in_use(argv: list[str], environ: dict[str, str]) -> str:
    """The config file of the profile a Snakemake command line (`argv`) reads, for messages: its
    --workflow-profile, else its --profile (or $SNAKEMAKE_PROFILE); DEFAULT_PROFILE when neither is given."""
    given = {}
    for i, arg in enumerate(argv):
        for flag in ("--workflow-profile", "--profile"):
            if arg == flag and i + 1 < len(argv):
                given[flag] = argv[i + 1]
            elif arg.startswith(flag + "="):
                given[flag] = arg.split("=", 1)[1]
    profile = given.get("--workflow-profile") or given.get("--profile") or environ.get("SNAKEMAKE_PROFILE")
    if not profile:
        return DEFAULT_PROFILE
    return profile if profile.endswith((".yaml", ".yml")) else os.path.join(profile, "config.yaml")


def minutes(limit: str) -> int | None:
    """Slurm's time as minutes ([D-]HH:MM:SS, [D-]HH:MM, D-HH, MM[:SS]); None for UNLIMITED or a format not known."""
    days, _, clock = limit.rpartition("-") if "-" in limit else ("0", "", limit)
    parts = clock.split(":")
    if not (days.isdigit() and all(p.isdigit() for p in parts)):
        return None
    numbers = [int(p) for p in parts]
    if "-" in limit:  # D-HH, D-HH:MM, D-HH:MM:SS
        hours, mins = numbers[0], numbers[1] if len(numbers) > 1 else 0
    elif len(numbers) == 3:  # HH:MM:SS
        hours, mins = numbers[0], numbers[1]
    else:  # MM, MM:SS
        hours, mins = 0, numbers[0]
    return int(days) * 1440 + hours * 60 + mins


def _fields(text: str) -> dict[str, str]:
    return dict(field.split("=", 1) for field in text.split() if "=" in field)


# Marks a description that names the limits the job is over (see Stuck.message).
OVER = "over: "


def describe_request(stuck: Stuck, run=subprocess.run) -> str:
    """What the stuck job asks against what its partition offers, read from scontrol and sinfo;
    empty where Slurm does not say. Where the request is over a limit (time against the
    partition's MaxTime, CPUs or memory against its largest node), the limits it is over, marked
    with OVER: Slurm's reason code alone can mislead (a job over the time limit has been seen
    pending with reason PartitionConfig)."""

    def ask(*command: str) -> str:
        return run(list(command), capture_output=True, text=True, timeout=60, check=True).stdout

    try:
        job = _fields(ask("scontrol", "show", "job", "--oneliner", stuck.slurm_id))
        partition = job.get("Partition", "")
        limits = _fields(ask("scontrol", "show", "partition", "--oneliner", partition))
        nodes = [line.split() for line in ask("sinfo", "-h", "-p", partition, "-o", "%c %m").splitlines()]
    except (OSError, subprocess.SubprocessError):
        return ""
    asked_time, allowed_time = minutes(job.get("TimeLimit", "")), minutes(limits.get("MaxTime", ""))
    cpus = max((int(n[0]) for n in nodes if n and n[0].isdigit()), default=None)
    memory = max((int(n[1].rstrip("+")) for n in nodes if len(n) > 1 and n[1].rstrip("+").isdigit()), default=None)
    asked_cpus, asked_mem = job.get("NumCPUs", "?"), job.get("MinMemoryNode", "").rstrip("M")
    over = []
    if asked_time is not None and allowed_time is not None and asked_time > allowed_time:
        over.append(
            f"its runtime is above its partition's time limit: it asks {asked_time} minutes; "
            f"partition {partition} allows {allowed_time} (MaxTime)"
        )
    if asked_cpus.isdigit() and cpus is not None and int(asked_cpus) > cpus:
        over.append(f"it asks {asked_cpus} CPUs; the nodes of partition {partition} have at most {cpus}")
    if asked_mem.isdigit() and memory is not None and int(asked_mem) > memory:
        over.append(f"it asks {asked_mem} MB of memory; the nodes of partition {partition} have at most {memory} MB")
    if over:
        return OVER + "; and ".join(over)
    if stuck.reason == "PartitionConfig":
        return (
            f"it asks {asked_cpus} CPUs and {asked_mem or '?'} MB of memory; the nodes of partition "
            f"{partition} have at most {cpus if cpus is not None else '?'} CPUs and "
            f"{memory if memory is not None else '?'} MB"
        )
    return ""


def read_queue() -> str:
    return subprocess.run(
        ["squeue", "--me", "--noheader", "--states=PENDING", f"--format={SQUEUE_FORMAT}"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout


class QueueWatcher:
    """A daemon thread that logs each of the run's never-starting jobs once (as an error)."""

    def __init__(
        self, workdir: str, interval: float = 60.0, report=None, profile: str = DEFAULT_PROFILE, describe=None
    ):
        self.workdir, self.interval, self.profile = workdir, interval, profile
        self.report = report or log.error
        self.describe = describe or describe_request
        self.reported: set[str] = set()
        # A daemon: it ends with the Snakemake process, however that ends.
        self.thread = threading.Thread(target=self._run, name="tabprobe-slurm-queue", daemon=True)

    def check(self) -> list[Stuck]:
        """Read the queue once; report and return the stuck jobs not reported before."""
        try:
            output = read_queue()
        except (OSError, subprocess.SubprocessError) as err:  # the queue is busy or down: try again later
            log.debug("squeue failed: %s", err)
            return []
        new = [job for job in stuck_jobs(output, self.workdir) if job.slurm_id not in self.reported]
        for job in new:
            self.reported.add(job.slurm_id)
            self.report(job.message(self.profile, self.describe(job)))
        return new

    def _run(self) -> None:
        while True:
            time.sleep(self.interval)
            self.check()

    def start(self) -> QueueWatcher:
        self.thread.start()
        return self


def watch_if_on_slurm(executor: str | None, workdir: str, report) -> QueueWatcher | None:
    """Start a watcher when the run submits to Slurm and squeue is there to ask; it reads the
    queue every TABPROBE_SLURM_QUEUE_SECONDS (default 60)."""
    if executor != "slurm" or shutil.which("squeue") is None:
        return None
    interval = float(os.environ.get("TABPROBE_SLURM_QUEUE_SECONDS", "60"))
    profile = profile_in_use(sys.argv, dict(os.environ))
    return QueueWatcher(workdir, interval, report, profile).start()


# What the Slurm plugin logs for a submission and for a failure (snakemake-executor-plugin-slurm 2.x).
_SUBMITTED = re.compile(r"Job (\S+) has been submitted with SLURM jobid (\d+) \(log: (\S+)\)\.")
_FAILED = re.compile(r"SLURM-job '(\d+)' failed")


def failed_jobs_report(main_log: str, lines: int = 20, at_most: int = 5) -> str:
    """The last `lines` lines of the Slurm log of each failed job of a run (its last attempt, up
    to `at_most` jobs), from the run's main log. Where Slurm has no accounting the plugin can only
    say that a job failed ("Detailed failure reason unavailable"); the reason (a config error, a
    traceback) is in the job's own Slurm log, which the user would otherwise have to find."""
    attempts, logs = {}, {}
    for job, slurm_id, path in _SUBMITTED.findall(main_log):
        attempts.setdefault(job, []).append(slurm_id)
        logs[slurm_id] = path
    failed = set(_FAILED.findall(main_log))
    last_failed = [ids[-1] for ids in attempts.values() if ids[-1] in failed]
    parts = []
    for slurm_id in last_failed[:at_most]:
        path = logs[slurm_id]
        try:
            tail = open(path, encoding="utf-8", errors="replace").read().splitlines()[-lines:]
        except OSError as err:
            tail = [f"(cannot be read: {err})"]
        parts.append(
            f"Slurm job {slurm_id} failed; the end of its log ({path}):\n" + "\n".join("    " + t for t in tail)
        )
    if len(last_failed) > at_most:
        parts.append(f"... and {len(last_failed) - at_most} more failed jobs: their logs are in .snakemake/slurm_logs/")
    return "\n".join(parts)
