"""The Slurm profile sends every rule that asks for a GPU to the GPU partition, with the memory
and time of a GPU job: a GPU rule left on the CPU partition's defaults is submitted with
`--gpus=1` to a partition without GPUs, 2 GB and 30 minutes."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def gpu_rules() -> list[str]:
    found = []
    for rules_file in sorted((ROOT / "rules").glob("*.smk")):
        for block in re.split(r"\n(?=rule )", rules_file.read_text()):
            match = re.match(r"rule (\w+):", block)
            if match and re.search(r"^\s+gpu=1,", block, flags=re.M):
                found.append(match.group(1))
    return found


def test_every_rule_that_asks_for_a_gpu_is_routed_to_the_gpu_partition():
    profile = yaml.safe_load((ROOT / "workflow" / "profiles" / "slurm" / "config.yaml").read_text())
    defaults, per_rule = profile["default-resources"], profile["set-resources"]
    rules = gpu_rules()
    assert {"train_model", "infer_nli", "inoculate", "train_variance", "score_variance"} <= set(rules)
    for rule in rules:
        resources = per_rule.get(rule, {})
        assert resources.get("slurm_partition", defaults["slurm_partition"]).endswith("gpu_partition"), rule
        assert resources.get("mem_mb", defaults["mem_mb"]) >= 16000, rule
        # A grouped rule's runtime is per job: its group asks for the sum.
        assert resources.get("runtime", defaults["runtime"]) >= (2 if rule in profile["groups"] else 60), rule


def test_every_shipped_runtime_fits_an_ordinary_partition():
    """A job over its partition's time limit is accepted by sbatch and never starts: the shipped
    runtimes fit a one-hour CPU partition and a two-hour GPU partition (a stranger's cluster with
    480-minute jobs in it had four that never started), a model's grouped inference included."""
    profile = yaml.safe_load((ROOT / "workflow" / "profiles" / "slurm" / "config.yaml").read_text())
    defaults, per_rule = profile["default-resources"], profile["set-resources"]
    assert defaults["runtime"] <= 60
    gpu = set(gpu_rules())
    for rule, resources in per_rule.items():
        runtime = resources.get("runtime", defaults["runtime"])
        assert runtime <= (120 if rule in gpu else 60), (rule, runtime)
    # The default run's largest inference group, in series, within the GPU limit.
    assert per_rule["infer_nli"]["runtime"] * 50 <= 120


def test_one_models_inference_is_one_submission_with_one_gpu():
    """infer_nli jobs group by model, all of a model's jobs in one group, and the GPU is a limit
    per submission: the group asks for one GPU and runs its jobs in series, not N GPUs."""
    profile = yaml.safe_load((ROOT / "workflow" / "profiles" / "slurm" / "config.yaml").read_text())
    group = profile["groups"]["infer_nli"]
    assert "{model}" in group and "{probe}" not in group and "{split}" not in group
    assert profile["group-components"][group] >= 1000  # every probe x split of a model
    assert profile["resources"] == {"gpu": 1, "inference_slot": 1}
    assert profile["set-resource-scopes"] == {"gpu": "local", "inference_slot": "local"}
    # Every infer_nli job takes the slot: in series whatever the GPU setting (`gpu: 0` included).
    rule = (ROOT / "rules" / "models.smk").read_text().split("rule infer_nli:")[1].split("\nrule ")[0]
    assert re.search(r"resources:\s+gpu=1,\s+inference_slot=1,", rule)
    # A served model's jobs are one submission too (its serve: command starts its server there);
    # training jobs run side by side, each on its GPU.
    assert profile["groups"] == {"infer_nli": group, "query_endpoint": group}
    served = (ROOT / "rules" / "models.smk").read_text().split("rule query_endpoint:")[1].split("\nrule ")[0]
    assert re.search(r"resources:\s+gpu=get_endpoint_gpus,\s+inference_slot=1,", served)


def test_the_queue_watcher_names_this_runs_jobs_that_can_never_start():
    from tabprobe.slurm_queue import stuck_jobs

    queue = "\n".join(
        [
            "101|rule_train_model_wildcards_minilm-struct|PartitionConfig|/work/run",
            "102|rule_infer_nli_wildcards_minilm-struct_original_alpha1|Resources|/work/run",  # clears by itself
            "103|rule_ingest_infotabs_wildcards_alpha1|PartitionTimeLimit|/work/other-run",  # not this run
            "104|rule_inoculate|PartitionTimeLimit|/work/run/",
            "malformed line",
        ]
    )
    stuck = stuck_jobs(queue, "/work/run")
    assert [(job.slurm_id, job.reason) for job in stuck] == [("101", "PartitionConfig"), ("104", "PartitionTimeLimit")]
    message = stuck[0].message()
    assert "101 (train_model_wildcards_minilm-struct) can never start" in message
    assert "more CPUs, memory or GPUs than any node of its partition has" in message and "set-threads" in message


def answers(job: str, partition: str, nodes: str):
    """A stand-in for subprocess.run that gives scontrol's and sinfo's answers (as Slurm 22.05
    prints them: the lines below were printed by the test cluster of tests/slurm_cluster.py)."""
    said = {"job": job, "partition": partition, "sinfo": nodes}

    def run(command, **_):
        key = command[2] if command[0] == "scontrol" else "sinfo"
        return subprocess.CompletedProcess(command, 0, stdout=said[key])

    return run


RULES = ["ingest_infotabs", "init_model", "train_model", "infer_nli", "score_probe"]


def test_a_stuck_jobs_message_names_the_limits_its_request_is_over_whatever_slurms_reason():
    """Slurm has been seen giving a job over its partition's time limit the reason PartitionConfig
    (CPUs, memory or GPUs): the message follows what the job asks against what the partition
    offers, read from scontrol and sinfo, and names the profile entry that fixes it."""
    from tabprobe.slurm_queue import Stuck, describe_request

    over_time = answers(
        "JobId=7 Partition=cpu TimeLimit=00:30:00 NumCPUs=1 MinMemoryNode=2000M",
        "PartitionName=cpu MaxTime=00:10:00 State=UP",
        "2 24105\n",
    )
    for reason in ("PartitionConfig", "PartitionTimeLimit"):
        stuck = Stuck("7", "init_model_wildcards_minilm-struct", reason)
        message = stuck.message(request=describe_request(stuck, run=over_time), rules=RULES)
        assert (
            f"reason {reason}, so it asks 30 minutes; partition cpu allows 10 (MaxTime). In the Slurm profile this "
            "run uses (workflow/profiles/slurm/config.yaml), set `set-resources: {init_model: {runtime: 10}}` (or less)"
            in message
        ), message
    too_big = answers(
        "JobId=8 Partition=gpu TimeLimit=01:00:00 NumCPUs=4 MinMemoryNode=32000M",
        "PartitionName=gpu MaxTime=02:00:00 State=UP",
        "2 24105\n",
    )
    stuck = Stuck("8", "train_model_wildcards_minilm-struct", "PartitionConfig")
    message = stuck.message(request=describe_request(stuck, run=too_big), rules=RULES)
    assert (
        "so it asks 4 CPUs; the nodes of partition gpu have at most 2; and it asks 32000 MB of memory; the nodes of "
        "partition gpu have at most 24105 MB. In the Slurm profile this run uses (workflow/profiles/slurm/config.yaml), "
        "set `set-threads: {train_model: 2}` (or fewer) and `set-resources: {train_model: {mem_mb: 24105}}` (or less)"
        in message
    ), message
    # Nothing over a limit it can read (a GPU request, say): Slurm's reason, with the request beside it.
    fits = answers(
        "JobId=9 Partition=gpu TimeLimit=01:00:00 NumCPUs=1 MinMemoryNode=2000M", "MaxTime=02:00:00", "2 24105\n"
    )
    stuck = Stuck("9", "infer_nli", "PartitionConfig")
    message = stuck.message(request=describe_request(stuck, run=fits))
    assert "so it asks for more CPUs, memory or GPUs than any node of its partition has: it asks 1 CPUs" in message
    assert "`scontrol show partition` (MaxTime, MaxMemPerNode" in message  # where the partition's limits are


def test_a_job_over_its_partitions_memory_limit_is_named_with_the_limit_and_the_entry_to_set():
    """A partition may allow less memory per node than its nodes have (MaxMemPerNode) or set a
    limit per CPU (MaxMemPerCPU): Slurm keeps such a job pending with reason MaxMemPerLimit, which
    the nodes' memory does not explain. The scontrol lines are the test cluster's own, for a job
    of 8000 MB on its `short` partition."""
    from tabprobe.slurm_queue import NEVER_STARTS, Stuck, describe_request

    assert "MaxMemPerLimit" in NEVER_STARTS
    job = (
        "JobId=1 JobName=wrap JobState=PENDING Reason=MaxMemPerLimit TimeLimit=00:10:00 Partition=short NumNodes=1 "
        "NumCPUs=1 NumTasks=1 CPUs/Task=1 TRES=cpu=1,mem=8000M,node=1,billing=1 MinCPUsNode=1 MinMemoryNode=8000M"
    )
    short = (
        "PartitionName=short MaxNodes=UNLIMITED MaxTime=00:30:00 MinNodes=0 MaxCPUsPerNode=UNLIMITED Nodes=localhost "
        "State=UP TotalCPUs=2 TotalNodes=1 DefMemPerNode=UNLIMITED MaxMemPerNode=6000 TRES=cpu=2,mem=24105M,node=1"
    )
    stuck = Stuck("1", "ingest_infotabs_wildcards_alpha1", "MaxMemPerLimit")
    message = stuck.message("my/profile.yaml", describe_request(stuck, run=answers(job, short, "2 24105\n")), RULES)
    assert message == (
        "Slurm job 1 (ingest_infotabs_wildcards_alpha1) can never start: it is pending with reason MaxMemPerLimit, "
        "so it asks 8000 MB of memory; partition short allows 6000 MB per node (MaxMemPerNode). In the Slurm profile "
        "this run uses (my/profile.yaml), set `set-resources: {ingest_infotabs: {mem_mb: 6000}}` (or less), or send "
        "the rule to a partition that allows it (`slurm_partition`); then cancel this run and start it again."
    )
    # A limit per CPU: 4000 MB per CPU allow a one-CPU job 4000 MB; --mem-per-cpu counts per CPU too.
    per_cpu = short.replace("DefMemPerNode=UNLIMITED MaxMemPerNode=6000", "DefMemPerCPU=1000 MaxMemPerCPU=4000")
    message = stuck.message(request=describe_request(stuck, run=answers(job, per_cpu, "2 24105\n")), rules=RULES)
    assert (
        "it asks 8000 MB of memory; partition short allows 4000 MB per CPU (MaxMemPerCPU), 4000 MB for its 1 CPUs"
        in message
    )
    assert "`set-resources: {ingest_infotabs: {mem_mb: 4000}}`" in message
    two_cpus = job.replace("NumCPUs=1", "NumCPUs=2").replace("MinMemoryNode=8000M", "MinMemoryCPU=7G")
    message = stuck.message(request=describe_request(stuck, run=answers(two_cpus, short, "2 24105\n")), rules=RULES)
    assert "it asks 14336 MB of memory; partition short allows 6000 MB per node (MaxMemPerNode)" in message


def test_a_stuck_group_job_names_its_rule_and_says_its_runtime_is_a_sum():
    """One model's inference is one group job, which the plugin names <group>_<its rules>: the
    entry to change is the rule's, and its runtime is per job."""
    from tabprobe.slurm_queue import Stuck, describe_request, rules_of

    assert rules_of("inference-minilm-struct_infer_nli", RULES) == ["infer_nli"]
    assert rules_of("inference-my_model_infer_nli", RULES) == ["infer_nli"]
    assert rules_of("ingest_infotabs_wildcards_alpha1", RULES) == ["ingest_infotabs"]
    assert rules_of("a_group_init_model_score_probe", RULES) == ["init_model", "score_probe"]
    assert rules_of("unknown_rule", RULES) == []
    group = answers(
        "JobId=3 Partition=gpu TimeLimit=02:10:00 NumCPUs=1 MinMemoryNode=16000M",
        "PartitionName=gpu MaxTime=02:00:00 MaxMemPerNode=UNLIMITED",
        "2 24105\n",
    )
    stuck = Stuck("3", "inference-minilm-struct_infer_nli", "PartitionTimeLimit")
    message = stuck.message(request=describe_request(stuck, run=group), rules=RULES)
    assert "it asks 130 minutes; partition gpu allows 120 (MaxTime)" in message
    assert (
        "set `set-resources: {infer_nli: {runtime: <minutes>}}` with <minutes> times the group's number of jobs at "
        "most 120 (a group job asks the sum of its jobs' runtimes), or send" in message
    ), message


def test_slurms_memory_and_time_are_read_in_their_units():
    from tabprobe.slurm_queue import megabytes, minutes

    assert [megabytes(m) for m in ("6000", "8000M", "16G", "1.5G", "2T", "2048K")] == [
        6000,
        8000,
        16384,
        1536,
        2097152,
        2,
    ]
    assert megabytes("UNLIMITED") is None and megabytes("0") is None
    assert [minutes(t) for t in ("00:30:00", "1-00:00:00", "90", "2-12", "UNLIMITED")] == [30, 1440, 90, 3600, None]


def test_the_queue_watcher_reports_each_stuck_job_once(monkeypatch):
    from tabprobe import slurm_queue

    queues = iter(
        [
            "101|rule_train_model|PartitionConfig|/work/run\n",
            "101|rule_train_model|PartitionConfig|/work/run\n102|rule_inoculate|PartitionTimeLimit|/work/run\n",
        ]
    )
    monkeypatch.setattr(slurm_queue, "read_queue", lambda: next(queues))  # squeue's answers, one per check
    said = []
    watcher = slurm_queue.QueueWatcher("/work/run", report=said.append)
    assert [job.slurm_id for job in watcher.check()] == ["101"]
    assert [job.slurm_id for job in watcher.check()] == ["102"]  # 101 again, but already said
    assert len(said) == 2 and "101" in said[0] and "102" in said[1]


def test_the_docs_give_the_profiles_inference_runtime():
    """docs/serving.md and docs/cluster.md state the minutes an inference job asks for, and what a
    model's group of them asks: the numbers the profile ships (serving.md said 5 while the
    profile asked 2)."""
    profile = yaml.safe_load((ROOT / "workflow" / "profiles" / "slurm" / "config.yaml").read_text())
    runtime = profile["set-resources"]["infer_nli"]["runtime"]
    docs = {name: (ROOT / "docs" / name).read_text() for name in ("serving.md", "cluster.md")}
    for name, text in docs.items():
        stated = re.findall(r"(\d+) minutes per job", text)
        assert stated and {int(n) for n in stated} == {runtime}, (name, stated, runtime)
    groups = re.findall(r"(\d+) minutes for the default run's (\d+) jobs|(\d+) jobs, (\d+) minutes", docs["cluster.md"])
    assert len(groups) == 2, groups
    for asked, jobs, jobs_full, asked_full in groups:
        assert int(asked or asked_full) == runtime * int(jobs or jobs_full), (asked, jobs, jobs_full, asked_full)


def test_a_change_for_one_run_is_the_profiles_block_with_the_change():
    """`python -m tabprobe.slurm_profile`: the shipped profile's set-resources entries, each as
    Snakemake's profile reader hands it on, with the changes in place; set-threads only when a
    thread count changes."""
    from tabprobe.slurm_profile import options_with

    shipped = ROOT / "workflow" / "profiles" / "slurm"
    profile = yaml.safe_load((shipped / "config.yaml").read_text())
    words = options_with(shipped, ["train_model:runtime=480", "infer_nli:gpu_model=a100"])
    assert words[0] == "--set-resources" and "--set-threads" not in words
    expected = [
        f"{rule}:{key}={480 if (rule, key) == ('train_model', 'runtime') else value}"
        for rule, entries in profile["set-resources"].items()
        for key, value in entries.items()
    ]
    assert (
        words[1:]
        == [*expected[: expected.index("infer_nli:runtime=2") + 1], "infer_nli:gpu_model=a100"]
        + expected[expected.index("infer_nli:runtime=2") + 1 :]
    )
    threads = options_with(shipped, ["infer_nli=2"])
    assert threads == ["--set-threads"] + [
        f"{r}={2 if r == 'infer_nli' else n}" for r, n in profile["set-threads"].items()
    ]


def test_a_change_for_one_run_keeps_a_number_written_as_a_string_a_string(tmp_path):
    from tabprobe.slurm_profile import options_with

    (tmp_path / "config.yaml").write_text(
        "set-resources:\n  train_model:\n    slurm_account: '1234'\n    mem_mb: 16000\n"
    )
    assert options_with(tmp_path, ["train_model:runtime=9"]) == [
        "--set-resources",
        "train_model:slurm_account='1234'",  # as snakemake.profiles passes it, so it stays a string
        "train_model:mem_mb=16000",
        "train_model:runtime=9",
    ]


def test_a_change_it_cannot_make_stops_the_snakemake_run_it_is_part_of(tmp_path, capsys):
    """The shell runs `snakemake ... $(python -m tabprobe.slurm_profile ...)` whatever the helper
    exits with: on an error it prints the reason and an option Snakemake refuses."""
    from tabprobe.slurm_profile import FAILED, main

    shipped = str(ROOT / "workflow" / "profiles" / "slurm")
    cases = {
        (shipped, "train_model"): "'train_model' is neither RULE:RESOURCE=VALUE",
        (shipped,): "no change given",
        (str(tmp_path), "train_model:runtime=9"): "no Snakemake profile there",
        (shipped, "train_model:slurm_extra=--qos=a --b=c"): "a space or a wildcard character would be split",
    }
    for argv, said in cases.items():
        assert main(list(argv)) == 1
        out, err = capsys.readouterr()
        assert out.strip() == FAILED and said in err, (argv, out, err)
    assert main([shipped, "train_model:runtime=480"]) == 0
    assert "train_model:runtime=480" in capsys.readouterr().out.split()


def test_a_job_stopped_at_its_time_limit_is_reported_with_slurms_line_and_the_entry_to_raise(tmp_path):
    """Slurm's own line is far above the end of a timed-out job's log (the stopped processes' tracebacks
    come after it): the report shows it first, and the runtime to raise for the job's rule (a group
    job's: the rule of its jobs). The lines are as the test cluster's jobs wrote them."""
    from tabprobe.slurm_failures import failed_jobs_report

    logs = tmp_path / ".snakemake" / "slurm_logs"
    group = logs / "group_inference-minilm-struct_infer_nli" / "3.log"
    single = logs / "rule_ingest_infotabs" / "alpha1" / "2.log"
    for path in (group, single):
        path.parent.mkdir(parents=True)
        path.write_text(
            "rule ingest_infotabs:\nsrun: Job step aborted: Waiting up to 7 seconds for job step to finish.\n"
            f"slurmstepd-localhost: error: *** JOB {path.stem} ON localhost CANCELLED AT 2026-12-01T21:22:32 DUE TO TIME LIMIT ***\n"
            f"slurmstepd-localhost: error: *** STEP {path.stem}.0 ON localhost CANCELLED AT 2026-12-01T21:22:32 DUE TO TIME LIMIT ***\n"
            + "".join(f'  File "snakemake/shell.py", line {n}, in __new__\n' for n in range(30))
            + "srun: error: localhost: task 0: Exited with exit code 1\n"
        )
    main_log = (
        f"Job 5 has been submitted with SLURM jobid 2 (log: {single}).\n"
        f"Job 1c7e has been submitted with SLURM jobid 3 (log: {group}).\n"
        "message: SLURM-job '2' failed, SLURM status is: 'TIMEOUT'. Detailed failure reason unavailable\n"
        "message: SLURM-job '3' failed, SLURM status is: 'TIMEOUT'. Detailed failure reason unavailable\n"
    )
    report = failed_jobs_report(main_log, profile="p/config.yaml", rules=RULES)
    first, second = report.split("\nSlurm job 3 ")
    assert first.startswith(
        f"Slurm job 2 failed (Slurm state TIMEOUT); Slurm says, in its log ({single}):\n"
        "    slurmstepd-localhost: error: *** JOB 2 ON localhost CANCELLED AT 2026-12-01T21:22:32 DUE TO TIME LIMIT ***\n"
        "    slurmstepd-localhost: error: *** STEP 2.0 ON localhost CANCELLED AT 2026-12-01T21:22:32 DUE TO TIME LIMIT ***\n"
        "Slurm stopped it at its time limit: raise its runtime in the Slurm profile this run uses (p/config.yaml), "
        "`set-resources: {ingest_infotabs: {runtime: <minutes>}}`, within its partition's MaxTime"
    ), first
    assert (
        first.endswith("    srun: error: localhost: task 0: Exited with exit code 1") and first.count("  File ") == 19
    )
    assert "`set-resources: {infer_nli: {runtime: <minutes>}}`" in second
