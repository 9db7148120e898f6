"""Watching a run's jobs in the Slurm queue for ones that can never start.

sbatch accepts a job that asks for more than any node of its partition offers (4 CPUs on
2-CPU nodes, more memory or time than the partition allows); Slurm then keeps it pending for
ever with a reason such as PartitionConfig, and Snakemake waits without a word. The watcher,
started by the Snakefile on a Slurm run, reads `squeue` every minute and logs each such job
once, saying what to change.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
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

# Job id, comment (the plugin writes rule_<rule>_wildcards_<...>), reason, working directory.
SQUEUE_FORMAT = "%i|%k|%r|%Z"


@dataclass(frozen=True)
class Stuck:
    slurm_id: str
    job: str  # the rule (or group) and wildcards, from the job's comment
    reason: str

    def message(self) -> str:
        return (
            f"Slurm job {self.slurm_id} ({self.job}) can never start: it is pending with reason {self.reason}, "
            f"so {NEVER_STARTS[self.reason]}. Lower the job's request in the Slurm profile "
            "(workflow/profiles/slurm/config.yaml: set-threads for CPUs, set-resources for mem_mb, runtime, "
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

    def __init__(self, workdir: str, interval: float = 60.0, report=None):
        self.workdir, self.interval = workdir, interval
        self.report = report or log.error
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
            self.report(job.message())
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
    return QueueWatcher(workdir, interval, report).start()
