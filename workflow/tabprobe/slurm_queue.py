"""What a Slurm run does not say by itself: jobs that can never start.

sbatch accepts a job that asks for more than its partition allows (4 CPUs on 2-CPU nodes, more
time than its MaxTime, more memory than its nodes have or its MaxMemPerNode allows); Slurm then
keeps it pending for ever with a reason such as PartitionConfig or MaxMemPerLimit, and Snakemake
waits without a word. The watcher, started by the Snakefile on a Slurm run, reads `squeue` every
minute and logs each such job once: what it asks against the limit it is over (read from
`scontrol show partition` and the nodes' sizes), and the profile entry to change.

Why a job failed is tabprobe.slurm_failures.
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
from collections.abc import Collection
from dataclasses import dataclass

log = logging.getLogger(__name__)

# Pending reasons that no amount of waiting clears: the request itself exceeds a limit. (Reasons
# such as Resources, Priority or QOSMaxJobsPerUserLimit clear as other jobs end.)
NEVER_STARTS = {
    "PartitionConfig": "it asks for more CPUs, memory or GPUs than any node of its partition has",
    "PartitionNodeLimit": "it asks for more nodes than its partition allows",
    "PartitionTimeLimit": "its runtime is above its partition's time limit",
    "MaxMemPerLimit": "it asks for more memory than its partition allows a node or a CPU (MaxMemPerNode, MaxMemPerCPU)",
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

# Where a user reads a partition's limits and its nodes' sizes (`sinfo` shows the nodes' memory,
# not a partition's MaxMemPerNode).
CHECK_COMMANDS = (
    "`scontrol show partition` (MaxTime, MaxMemPerNode or MaxMemPerCPU, MaxCPUsPerNode) and "
    "`sinfo -o '%P %c %m %G'` (the CPUs, memory and GPUs of each partition's nodes)"
)


@dataclass(frozen=True)
class Over:
    """One limit a job's request is over: what it asks, what the limit allows, and the profile
    entry that fixes it (`key` under `section` for each of the job's rules, at most `value`)."""

    asked: str  # "it asks 8000 MB of memory"
    allowed: str  # "partition short allows 6000 MB per node (MaxMemPerNode)"
    section: str  # the profile's key: set-resources or set-threads
    key: str  # the resource under it (mem_mb, runtime), or "" for set-threads
    value: int

    def fix(self, rules: list[str], group: bool = False) -> str:
        """The profile entry to set for `rules` (the job's), in the profile's YAML. A group job's
        runtime is the sum of its jobs' (one after another), so its rule's runtime is per job."""
        names = rules or ["<the job's rule>"]
        if group and self.key == "runtime":
            entries = ", ".join(f"{rule}: {{runtime: <minutes>}}" for rule in names)
            return (
                f"`{self.section}: {{{entries}}}` with <minutes> times the group's number of jobs at most "
                f"{self.value} (a group job asks the sum of its jobs' runtimes)"
            )
        entries = [f"{rule}: {{{self.key}: {self.value}}}" if self.key else f"{rule}: {self.value}" for rule in names]
        return f"`{self.section}: {{{', '.join(entries)}}}` (or {'less' if self.key else 'fewer'})"


@dataclass(frozen=True)
class Request:
    """What a stuck job asks against what its partition offers (describe_request): the limits it
    is over, or, where none was found, the request beside its partition's nodes."""

    over: tuple[Over, ...] = ()
    beside: str = ""


@dataclass(frozen=True)
class Stuck:
    slurm_id: str
    job: str  # the rule (or group) and wildcards, from the job's comment
    reason: str

    def message(self, profile: str = DEFAULT_PROFILE, request: Request = Request(), rules: Collection[str] = ()) -> str:
        """What to tell the user: the job, why it cannot start, what it asks against what its
        partition allows, and the entry to change in `profile` (the profile this run reads).
        `request` (from describe_request) stands in for Slurm's general reason where it names a
        limit the job is over; `rules`: the workflow's rule names, to find the job's."""
        head = f"Slurm job {self.slurm_id} ({self.job}) can never start: it is pending with reason {self.reason}, so "
        tail = "then cancel this run and start it again."
        if request.over:
            over = "; and ".join(f"{o.asked}; {o.allowed}" for o in request.over)
            fixes = " and ".join(o.fix(rules_of(self.job, rules), self.is_group(rules)) for o in request.over)
            return (
                f"{head}{over}. In the Slurm profile this run uses ({profile}), set {fixes}, or send the "
                f"rule to a partition that allows it (`slurm_partition`); {tail}"
            )
        why = NEVER_STARTS[self.reason] + (f": {request.beside}" if request.beside else "")
        return (
            f"{head}{why}. Lower the job's request in the Slurm profile this run uses ({profile}: set-threads for "
            f"CPUs, set-resources for mem_mb, runtime, slurm_partition) to what {CHECK_COMMANDS} show; {tail}"
        )

    def is_group(self, rules: Collection[str]) -> bool:
        name = self.job.split("_wildcards_", 1)[0]
        return name not in rules and bool(rules_of(self.job, rules))


def rules_of(job: str, rules: Collection[str]) -> list[str]:
    """The rules of a job named as the plugin's comment names it (without `rule_`): a rule's job
    `<rule>[_wildcards_<values>]`, a group job `<group>_<its rules, sorted, joined by _>`. Empty
    when `rules` (the workflow's) has none of them."""
    name = job.split("_wildcards_", 1)[0]
    if name in rules:
        return [name]

    def split(text: str) -> list[str] | None:
        for rule in rules:
            if text == rule:
                return [rule]
            if text.startswith(rule + "_") and (rest := split(text[len(rule) + 1 :])):
                return [rule, *rest]
        return None

    starts = [i for i, char in enumerate(name) if char == "_"]
    return next((found for i in starts if (found := split(name[i + 1 :]))), [])


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


_MEMORY = re.compile(r"(\d+(?:\.\d+)?)([KMGT]?)")


def megabytes(amount: str) -> int | None:
    """Slurm's memory as MB: a partition's limit is plain MB (6000), a job's has a unit (8000M, 16G);
    None for UNLIMITED, 0 (no limit) or a format not known."""
    match = _MEMORY.fullmatch(amount.strip())
    if not match:
        return None
    scale = {"K": 1 / 1024, "": 1, "M": 1, "G": 1024, "T": 1024 * 1024}[match.group(2)]
    return round(float(match.group(1)) * scale) or None


def _fields(text: str) -> dict[str, str]:
    return dict(field.split("=", 1) for field in text.split() if "=" in field)


def _number(text: str) -> int | None:
    return int(text) if text.isdigit() else None


def _lowest(limits: list[tuple[int | None, str]], asked: int) -> tuple[int, str] | None:
    """The lowest of the (allowed, how it is said) limits that `asked` is over; None if none."""
    over = [(allowed, said) for allowed, said in limits if allowed is not None and asked > allowed]
    return min(over) if over else None


def over_limits(job: dict[str, str], partition: dict[str, str], nodes: list[tuple[int, int]]) -> list[Over]:
    """The limits a job (`scontrol show job`'s fields) is over: its partition's (`scontrol show
    partition`'s fields: MaxTime, MaxCPUsPerNode, MaxMemPerNode, MaxMemPerCPU) and its nodes'
    (CPUs and MB of memory of each, from sinfo). A partition's limit may be below its nodes'."""
    name = partition.get("PartitionName") or job.get("Partition", "?")
    cpus, asked_time = _number(job.get("NumCPUs", "")), minutes(job.get("TimeLimit", ""))
    per_cpu = megabytes(job.get("MinMemoryCPU", ""))
    memory = megabytes(job.get("MinMemoryNode", "")) or (per_cpu * cpus if per_cpu and cpus else None)
    found = []
    max_time = minutes(partition.get("MaxTime", ""))
    if asked_time is not None and (
        time := _lowest([(max_time, f"partition {name} allows {max_time} (MaxTime)")], asked_time)
    ):
        found.append(Over(f"it asks {asked_time} minutes", time[1], "set-resources", "runtime", time[0]))
    node_cpus = max((c for c, _ in nodes), default=None)
    max_cpus = _number(partition.get("MaxCPUsPerNode", ""))
    cpu_limits = [
        (node_cpus, f"the nodes of partition {name} have at most {node_cpus}"),
        (max_cpus, f"partition {name} allows {max_cpus} per node (MaxCPUsPerNode)"),
    ]
    if cpus is not None and (cpu := _lowest(cpu_limits, cpus)):
        found.append(Over(f"it asks {cpus} CPUs", cpu[1], "set-threads", "", cpu[0]))
    node_memory = max((m for _, m in nodes), default=None)
    per_node, per_cpu_limit = (
        megabytes(partition.get("MaxMemPerNode", "")),
        megabytes(partition.get("MaxMemPerCPU", "")),
    )
    memory_limits = [
        (node_memory, f"the nodes of partition {name} have at most {node_memory} MB"),
        (per_node, f"partition {name} allows {per_node} MB per node (MaxMemPerNode)"),
    ]
    if per_cpu_limit and cpus:
        memory_limits.append(
            (
                per_cpu_limit * cpus,
                f"partition {name} allows {per_cpu_limit} MB per CPU (MaxMemPerCPU), {per_cpu_limit * cpus} MB for its {cpus} CPUs",
            )
        )
    if memory is not None and (mem := _lowest(memory_limits, memory)):
        found.append(Over(f"it asks {memory} MB of memory", mem[1], "set-resources", "mem_mb", mem[0]))
    return found


def describe_request(stuck: Stuck, run=subprocess.run) -> Request:
    """What the stuck job asks against what its partition allows, read from scontrol and sinfo;
    empty where Slurm does not say. Slurm's reason code alone can mislead (a job over the time
    limit has been seen pending with reason PartitionConfig), so the limits the request is over
    come first."""

    def ask(*command: str) -> str:
        return run(list(command), capture_output=True, text=True, timeout=60, check=True).stdout

    try:
        job = _fields(ask("scontrol", "show", "job", "--oneliner", stuck.slurm_id))
        partition = job.get("Partition", "")
        limits = _fields(ask("scontrol", "show", "partition", "--oneliner", partition))
        sizes = [line.split() for line in ask("sinfo", "-h", "-p", partition, "-o", "%c %m").splitlines()]
    except (OSError, subprocess.SubprocessError):
        return Request()
    nodes = [
        (int(n[0]), int(n[1].rstrip("+")))
        for n in sizes
        if len(n) > 1 and n[0].isdigit() and n[1].rstrip("+").isdigit()
    ]
    over = over_limits(job, limits, nodes)
    if over:
        return Request(over=tuple(over))
    if stuck.reason in ("PartitionConfig", "MaxMemPerLimit"):
        cpus = max((c for c, _ in nodes), default="?")
        memory = max((m for _, m in nodes), default="?")
        asked_mem = megabytes(job.get("MinMemoryNode", "")) or "?"
        return Request(
            beside=f"it asks {job.get('NumCPUs', '?')} CPUs and {asked_mem} MB of memory; the nodes of partition "
            f"{partition} have at most {cpus} CPUs and {memory} MB"
        )
    return Request()


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
        self,
        workdir: str,
        interval: float = 60.0,
        report=None,
        profile: str = DEFAULT_PROFILE,
        describe=None,
        rules: Collection[str] = (),
    ):
        self.workdir, self.interval, self.profile, self.rules = workdir, interval, profile, frozenset(rules)
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
            self.report(job.message(self.profile, self.describe(job), self.rules))
        return new

    def _run(self) -> None:
        while True:
            time.sleep(self.interval)
            self.check()

    def start(self) -> QueueWatcher:
        self.thread.start()
        return self


def watch_if_on_slurm(executor: str | None, workdir: str, report, rules: Collection[str] = ()) -> QueueWatcher | None:
    """Start a watcher when the run submits to Slurm and squeue is there to ask; it reads the
    queue every TABPROBE_SLURM_QUEUE_SECONDS (default 60). `rules`: the workflow's rule names,
    so a message names the rule whose entry to change."""
    if executor != "slurm" or shutil.which("squeue") is None:
        return None
    interval = float(os.environ.get("TABPROBE_SLURM_QUEUE_SECONDS", "60"))
    profile = profile_in_use(sys.argv, dict(os.environ))
    return QueueWatcher(workdir, interval, report, profile, rules=rules).start()
