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
            "101|rule_train_model_wildcards_minilm-para|PartitionConfig|/work/run",
            "102|rule_infer_nli_wildcards_minilm-para_original_alpha1|Resources|/work/run",  # clears by itself
            "103|rule_ingest_infotabs_wildcards_alpha1|PartitionTimeLimit|/work/other-run",  # not this run
            "104|rule_inoculate|PartitionTimeLimit|/work/run/",
            "malformed line",
        ]
    )
    stuck = stuck_jobs(queue, "/work/run")
    assert [(job.slurm_id, job.reason) for job in stuck] == [("101", "PartitionConfig"), ("104", "PartitionTimeLimit")]
    message = stuck[0].message()
    assert "101 (train_model_wildcards_minilm-para) can never start" in message
    assert "more CPUs, memory or GPUs than any node of its partition has" in message and "set-threads" in message


def test_a_stuck_jobs_message_names_the_limits_its_request_is_over_whatever_slurms_reason():
    """Slurm has been seen giving a job over its partition's time limit the reason PartitionConfig
    (CPUs, memory or GPUs): the message follows what the job asks against what the partition
    offers, read from scontrol and sinfo (their answers given here as Slurm 22.05 prints them)."""
    from tabprobe.slurm_queue import Stuck, describe_request

    def slurm(job: str, partition: str, nodes: str):
        answers = {"job": job, "partition": partition, "sinfo": nodes}

        def run(command, **_):
            key = command[2] if command[0] == "scontrol" else "sinfo"
            return subprocess.CompletedProcess(command, 0, stdout=answers[key])

        return run

    over_time = slurm(
        "JobId=7 Partition=cpu TimeLimit=00:30:00 NumCPUs=1 MinMemoryNode=2000M",
        "PartitionName=cpu MaxTime=00:10:00 State=UP",
        "2 24105\n",
    )
    for reason in ("PartitionConfig", "PartitionTimeLimit"):
        stuck = Stuck("7", "init_model_wildcards_minilm-struct", reason)
        message = stuck.message(request=describe_request(stuck, run=over_time))
        assert (
            f"reason {reason}, so its runtime is above its partition's time limit: it asks 30 minutes; "
            "partition cpu allows 10 (MaxTime). Lower" in message
        ), message
    too_big = slurm(
        "JobId=8 Partition=gpu TimeLimit=01:00:00 NumCPUs=4 MinMemoryNode=32000M",
        "PartitionName=gpu MaxTime=02:00:00 State=UP",
        "2 24105\n",
    )
    stuck = Stuck("8", "train_model_wildcards_minilm-para", "PartitionConfig")
    message = stuck.message(request=describe_request(stuck, run=too_big))
    assert (
        "so it asks 4 CPUs; the nodes of partition gpu have at most 2; and it asks 32000 MB of memory; the nodes of "
        "partition gpu have at most 24105 MB. Lower" in message
    ), message
    # Nothing over a limit it can read (a GPU request, say): Slurm's reason, with the request beside it.
    fits = slurm(
        "JobId=9 Partition=gpu TimeLimit=01:00:00 NumCPUs=1 MinMemoryNode=2000M", "MaxTime=02:00:00", "2 24105\n"
    )
    stuck = Stuck("9", "infer_nli", "PartitionConfig")
    message = stuck.message(request=describe_request(stuck, run=fits))
    assert "so it asks for more CPUs, memory or GPUs than any node of its partition has: it asks 1 CPUs" in message


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
