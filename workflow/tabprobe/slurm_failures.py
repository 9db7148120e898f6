"""Why a Slurm job of the run failed, for the run's log (the Snakefile's `onerror`).

Where Slurm has no accounting the plugin can only say that a job failed ("Detailed failure reason
unavailable"); the reason is in the job's own Slurm log, which the user would otherwise have to
find. The end of that log is not always the reason: a job that Slurm stops at its time limit ends
with the tracebacks of the processes it stopped, and Slurm's own line (`*** JOB 7 ON node01
CANCELLED AT ... DUE TO TIME LIMIT ***`) is dozens of lines above them. So Slurm's own lines come
first, with what to change where Slurm says why, then the log's end.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import Path

from tabprobe.slurm_queue import DEFAULT_PROFILE, rules_of

# What the Slurm plugin logs for a submission and for a failure (snakemake-executor-plugin-slurm 2.x).
_SUBMITTED = re.compile(r"Job (\S+) has been submitted with SLURM jobid (\d+) \(log: (\S+)\)\.")
_FAILED = re.compile(r"SLURM-job '(\d+)' failed(?:, SLURM status is: '(\w+)')?")
# Slurm's own lines in a job's log: slurmstepd's `*** JOB|STEP ... CANCELLED AT ... [DUE TO ...] ***`,
# and what it says of a task the kernel killed for memory.
_SLURM_SAYS = re.compile(r"^slurmstepd\S*: error: (\*\*\* .* \*\*\*|.*oom[-_ ]kill.*)$", re.I | re.M)
_TIME_LIMIT = "DUE TO TIME LIMIT"


def _rules_of_log(path: str, rules: Collection[str]) -> list[str]:
    """The rules of a job from its Slurm log's path: .snakemake/slurm_logs/rule_<rule>/... or group_<name>/..."""
    part = next((p for p in Path(path).parts if p.startswith(("rule_", "group_"))), "")
    kind, _, name = part.partition("_")
    if kind == "rule":
        return [name]
    return rules_of(name, rules) if name else []


def time_limit_advice(rules: list[str], profile: str) -> str:
    names = rules or ["<the job's rule>"]
    entries = ", ".join(f"{rule}: {{runtime: <minutes>}}" for rule in names)
    return (
        f"Slurm stopped it at its time limit: raise its runtime in the Slurm profile this run uses ({profile}), "
        f"`set-resources: {{{entries}}}`, within its partition's MaxTime (`scontrol show partition`); a group "
        "job's runtime is the sum of its jobs'. A retry resumes an inference or a training from what it saved."
    )


def failed_jobs_report(
    main_log: str, lines: int = 20, at_most: int = 5, profile: str = DEFAULT_PROFILE, rules: Collection[str] = ()
) -> str:
    """For each failed job of a run (its last attempt, up to `at_most` jobs), from the run's main
    log: Slurm's own lines from the job's Slurm log, what to change where Slurm stopped it at its
    time limit (in `profile`, for the job's rule among `rules`), and the last `lines` lines of the log."""
    attempts, logs = {}, {}
    for job, slurm_id, path in _SUBMITTED.findall(main_log):
        attempts.setdefault(job, []).append(slurm_id)
        logs[slurm_id] = path
    states = dict(_FAILED.findall(main_log))
    last_failed = [ids[-1] for ids in attempts.values() if ids[-1] in states]
    parts = []
    for slurm_id in last_failed[:at_most]:
        path = logs[slurm_id]
        try:
            text = open(path, encoding="utf-8", errors="replace").read()
        except OSError as err:
            parts.append(f"Slurm job {slurm_id} failed; its log ({path}) cannot be read: {err}")
            continue
        said = [match.group(0) for match in _SLURM_SAYS.finditer(text)]
        state = f" (Slurm state {states[slurm_id]})" if states[slurm_id] else ""
        tail = "\n".join("    " + line for line in text.splitlines()[-lines:])
        if not said:
            parts.append(f"Slurm job {slurm_id} failed{state}; the end of its log ({path}):\n{tail}")
            continue
        report = [f"Slurm job {slurm_id} failed{state}; Slurm says, in its log ({path}):"]
        report += ["    " + line for line in said]
        if states[slurm_id] == "TIMEOUT" or any(_TIME_LIMIT in line for line in said):
            report.append(time_limit_advice(_rules_of_log(path, rules), profile))
        report.append(f"The end of its log:\n{tail}")
        parts.append("\n".join(report))
    if len(last_failed) > at_most:
        parts.append(f"... and {len(last_failed) - at_most} more failed jobs: their logs are in .snakemake/slurm_logs/")
    return "\n".join(parts)
