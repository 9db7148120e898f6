"""The Slurm profile sends every rule that asks for a GPU to the GPU partition, with the memory
and time of a GPU job: a GPU rule left on the CPU partition's defaults is submitted with
`--gpus=1` to a partition without GPUs, 2 GB and 30 minutes."""

from __future__ import annotations

import re
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
        assert resources.get("runtime", defaults["runtime"]) >= 60, rule
