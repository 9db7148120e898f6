"""A real single-node Slurm cluster on localhost, for the tests of the Slurm path.

Debian's slurm-wlm and munge, started from a temporary folder: munged with its own key and
socket, slurmctld and slurmd with their own slurm.conf, ports, state, spool, pid and log files.
Nothing under /etc or /run is changed, so a machine's own Slurm or munge (or another test
session's cluster) is left alone: clients find this cluster through SLURM_CONF, which
`SlurmCluster.env()` sets, and the jobs (which lose SLURM_CONF, see `start`) through a private
mount of the config folder at /etc/slurm that only slurmd and its jobs see.

The cluster is what the executor plugin (snakemake-executor-plugin-slurm 2.8) needs:
- `accounting_storage/none`: no slurmdbd. `sacct` then has nothing to read, so the plugin must
  be told to ask `squeue` for job states (`slurm-status-command: squeue`), and `squeue` only
  knows jobs slurmctld still holds: a finished job is kept for MinJobAge seconds, set far above
  the plugin's threshold (3 x its first status-check delay) so no finished job is missed.
- GPUs without GPUs: `GresTypes=gpu`, the node declares `Gres=gpu:N` and gres.conf gives a
  Count and no device File. slurmctld then schedules `--gpus=1` / `--gres=gpu:1` requests for
  real (a job asking for more GPUs than the node has is refused, two one-GPU jobs on a one-GPU
  node run one after the other); the job just gets no device to bind.
- `select/cons_tres`: the only selector that understands `--gpus`.
- Besides the default partition, a `cpu` partition limited to 60 minutes and a `gpu` partition
  limited to 120, as on a cluster someone else set up (tests/test_slurm.py, the stranger's cluster),
  and a `short` partition limited to 30 minutes and 6000 MB per node (MaxMemPerNode), below the
  node's memory and below the shipped profile's largest CPU request (8000 MB): such a job is
  accepted and pends with reason MaxMemPerLimit, which the node's memory does not explain.

Use the `slurm_cluster` fixture (module scope: one cluster per test module). It skips, saying
why, where slurmctld, slurmd or munged is not installed or the daemons cannot run (e.g. not
root), and stops exactly the processes it started, by pid.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

DAEMONS = ("munged", "slurmctld", "slurmd")
# Plenty of GPUs to share out; how many a job asks for is what the tests look at.
GPUS = 2
PARTITION = "tabprobe"
CPU_PARTITION, GPU_PARTITION = "cpu", "gpu"
# A stricter CPU partition, as a cluster set up by someone else may have: time and memory per node limited.
SHORT_PARTITION, SHORT_MAX_TIME, SHORT_MAX_MEM = "short", 30, 6000
ACCOUNT = "tabprobe-tests"
# Seconds slurmctld keeps a finished job where squeue sees it (the plugin needs >= 3 x its
# first status-check delay; an hour keeps any test's jobs visible to the end).
MIN_JOB_AGE = 3600


def _binary(name: str) -> str | None:
    return shutil.which(name) or next(
        (p for p in (f"/usr/sbin/{name}", f"/sbin/{name}") if os.access(p, os.X_OK)), None
    )


def missing_binaries() -> list[str]:
    return [
        name for name in (*DAEMONS, "sbatch", "srun", "squeue", "scontrol", "scancel", "unshare") if not _binary(name)
    ]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _hardware() -> str:
    """This machine's node line as slurmd measures it (CPUs, sockets, cores, threads, RealMemory),
    so the node slurmctld knows is the real one and slurmd does not drain it as mismatched."""
    line = subprocess.run([_binary("slurmd"), "-C"], capture_output=True, text=True, check=True).stdout.splitlines()[0]
    fields = [f for f in line.split() if not f.startswith(("NodeName=", "UpTime="))]
    return " ".join(fields)


class SlurmCluster:
    def __init__(self, root: Path):
        self.root = root
        # slurm.conf and gres.conf; inside slurmd's mount namespace this folder is /etc/slurm.
        self.etc = root / "etc"
        self.conf = self.etc / "slurm.conf"
        self.logs = root / "log"
        self.munge_socket = root / "munge" / "munge.socket"
        self.processes: dict[str, subprocess.Popen] = {}
        self.partition, self.account, self.gpus = PARTITION, ACCOUNT, GPUS

    def env(self, base: dict | None = None) -> dict:
        """An environment whose Slurm commands (sbatch, squeue, ...) talk to this cluster."""
        env = dict(os.environ if base is None else base)
        env["SLURM_CONF"] = str(self.conf)
        return env

    def run(self, *command: str, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run(list(command), capture_output=True, text=True, env=self.env(), check=check, timeout=60)

    # ------------------------------------------------------------------ start and stop

    def write_config(self) -> None:
        for folder in ("etc", "munge", "state", "spool", "log"):
            (self.root / folder).mkdir(parents=True, exist_ok=True)
        # munged refuses a key readable by others and folders writable by others.
        (self.root / "munge").chmod(0o755)
        key = self.root / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o400)
        r = self.root
        self.conf.write_text(f"""\
# Written by tests/slurm_cluster.py: a throw-away single-node cluster.
ClusterName=tabprobe-test
SlurmctldHost=localhost
SlurmctldPort={_free_port()}
SlurmdPort={_free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={self.munge_socket}
StateSaveLocation={r}/state
SlurmdSpoolDir={r}/spool
SlurmctldPidFile={r}/slurmctld.pid
SlurmdPidFile={r}/slurmd.pid
SlurmctldLogFile={self.logs}/slurmctld.log
SlurmdLogFile={self.logs}/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# No slurmdbd, no cgroups: the smallest set of plugins that runs jobs for real.
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
GresTypes=gpu
MinJobAge={MIN_JOB_AGE}
ReturnToService=2
# Quick scheduling and a quick end for a cancelled job, for short tests.
SchedulerParameters=sched_interval=2
KillWait=5
NodeName=localhost NodeAddr=127.0.0.1 {_hardware()} Gres=gpu:{GPUS} State=UNKNOWN
PartitionName={PARTITION} Nodes=localhost Default=YES MaxTime=INFINITE State=UP
# A cluster set up by someone else: a CPU partition with a one-hour limit and a GPU partition
# with two hours (whose jobs ask no GPUs there: `gpu: 0`, as on a cluster without GRES).
PartitionName={CPU_PARTITION} Nodes=localhost MaxTime=60 State=UP
PartitionName={GPU_PARTITION} Nodes=localhost MaxTime=120 State=UP
# Stricter still: less memory per node than the node has (and than a shipped request).
PartitionName={SHORT_PARTITION} Nodes=localhost MaxTime={SHORT_MAX_TIME} MaxMemPerNode={SHORT_MAX_MEM} State=UP
""")
        # Slurm 22.05 drops a GPU without a device File ("Removing file-less GPU"), so each one
        # gets a stand-in file: an empty regular file, which no process opens.
        devices = self.root / "dev"
        devices.mkdir(exist_ok=True)
        for i in range(GPUS):
            (devices / f"fakegpu{i}").touch()
        (self.etc / "gres.conf").write_text(f"NodeName=localhost Name=gpu File={devices}/fakegpu[0-{GPUS - 1}]\n")

    def _start(self, name: str, command: list[str]) -> None:
        log = open(self.logs / f"{name}.out", "ab")
        # Foreground daemons: the pid Popen returns is the daemon's own, the one stopped at the end.
        self.processes[name] = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, env=self.env(), start_new_session=True
        )
        log.close()

    def _wait(self, what: str, ready, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for name, process in self.processes.items():
                if process.poll() is not None:
                    raise RuntimeError(
                        f"{name} exited with {process.returncode} while waiting for {what}:\n{self.tail_logs()}"
                    )
            if ready():
                return
            time.sleep(0.5)
        raise RuntimeError(f"timed out after {timeout:.0f} s waiting for {what}:\n{self.tail_logs()}")

    def start(self) -> SlurmCluster:
        self.write_config()
        m = self.root / "munge"
        self._start(
            "munged",
            [
                _binary("munged"),
                "--foreground",
                "--force",
                f"--socket={self.munge_socket}",
                f"--key-file={m / 'munge.key'}",
                f"--pid-file={m / 'munged.pid'}",
                f"--seed-file={m / 'munged.seed'}",
                f"--log-file={self.logs / 'munged.log'}",
            ],
        )
        self._wait("munged's socket", self.munge_socket.exists)
        # -D: foreground; -i: ignore state from an earlier run of this folder (there is none).
        self._start("slurmctld", [_binary("slurmctld"), "-D", "-i", "-f", str(self.conf)])
        self._wait("slurmctld", lambda: self.run("scontrol", "ping", check=False).stdout.count("UP") >= 1)
        # slurmd, and so every job, in a mount namespace of its own where this cluster's config
        # folder is /etc/slurm, the path Slurm's commands look at when SLURM_CONF is not set. The
        # plugin's job step drops every SLURM_* variable (SLURM_CONF too) before it calls `srun`
        # inside the job (snakemake-executor-plugin-slurm issue #164), so without this the srun
        # would not find this cluster; the machine's own /etc/slurm is untouched outside.
        # unshare and sh both exec, so the pid Popen returns is slurmd's.
        self._start(
            "slurmd",
            [
                _binary("unshare"),
                "--mount",
                "--propagation",
                "private",
                "sh",
                "-c",
                'mount --bind "$0" /etc/slurm && exec "$1" -D -N localhost -f "$0/slurm.conf"',
                str(self.etc),
                _binary("slurmd"),
            ],
        )
        self._wait("node localhost to be idle", self._node_ready)
        return self

    def _node_ready(self) -> bool:
        # One line per partition the node is in.
        states = self.run("sinfo", "-h", "-N", "-o", "%T", check=False).stdout.split()
        return bool(states) and set(states) <= {"idle", "mixed", "allocated"}

    def stop(self) -> None:
        """Cancel this cluster's jobs, then stop the daemons this object started, by their pids."""
        if "slurmctld" in self.processes and self.processes["slurmctld"].poll() is None:
            for partition in (self.partition, CPU_PARTITION, GPU_PARTITION, SHORT_PARTITION):
                self.run("scancel", "--full", "--partition", partition, check=False)
        for name in reversed(list(self.processes)):
            process = self.processes[name]
            if process.poll() is None:
                os.kill(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.kill(process.pid, signal.SIGKILL)
                    process.wait(timeout=10)

    def tail_logs(self, lines: int = 30) -> str:
        out = []
        for log in sorted(self.logs.glob("*")):
            text = log.read_text(errors="replace").splitlines()[-lines:]
            out.append(f"--- {log.name}\n" + "\n".join(text))
        return "\n".join(out)


def skip_reason() -> str | None:
    missing = missing_binaries()
    if missing:
        return (
            f"Slurm/munge not installed (missing: {', '.join(missing)}); "
            "install Debian's slurm-wlm and munge (`apt-get install slurm-wlm munge`) to run the Slurm tests"
        )
    if os.geteuid() != 0:
        return "the test Slurm cluster runs slurmd as root (it starts jobs as their user); run as root to test the Slurm path"
    if not Path("/etc/slurm").is_dir():
        return (
            "/etc/slurm is missing (Debian's slurm-wlm creates it); slurmd's private mount of the test config needs it"
        )
    probe = subprocess.run([_binary("unshare"), "--mount", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        return (
            f"cannot create a mount namespace here (`unshare --mount` said: {probe.stderr.strip()}); "
            "the test cluster's slurmd needs one to show its config at /etc/slurm to the jobs"
        )
    return None


@pytest.fixture(scope="module")
def slurm_cluster(tmp_path_factory):
    reason = skip_reason()
    if reason:
        # CI installs Slurm (.ci/run): there a missing piece is a failure, not a quiet skip that
        # would let the cluster path go untested.
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but the Slurm tests cannot run: {reason}")
        pytest.skip(reason)
    # A short path: the munge socket path must fit in a sockaddr_un (108 bytes).
    cluster = SlurmCluster(tmp_path_factory.mktemp("slurm"))
    try:
        cluster.start()
    except Exception:
        cluster.stop()
        raise
    try:
        yield cluster
    finally:
        cluster.stop()
