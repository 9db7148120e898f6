"""Compare the jobs two checkouts (or one checkout before and after a change) plan: every job's
rule, wildcards, inputs, outputs, params, log, priority and resources, as Snakemake's DAG holds
them with every job forced (`snakemake -n -F`), on a set of configs (issue 44 step 4: moving the
decisions of rules/*_inputs.smk into the library must plan the same jobs with the same inputs and
params).

    git worktree add /tmp/old-plans main --detach
    PYTHONPATH=/tmp/old-plans/workflow .venv/bin/python bench/compare_plans.py dump /tmp/plans-before \
        --checkout /tmp/old-plans
    PYTHONPATH=$PWD/workflow .venv/bin/python bench/compare_plans.py dump /tmp/plans-after
    .venv/bin/python bench/compare_plans.py compare /tmp/plans-before /tmp/plans-after

`dump` plans `--checkout`'s Snakefile (this one's by default) on each config of CONFIGS, each in a
subprocess from a fixed working folder, and writes one JSON file per config; paths inside the
checkout read `<checkout>/...`, so that two checkouts compare. Params are kept twice: as JSON,
and as the repr Snakemake compares to decide whether they changed (key order and key types
count there). `compare` exits 1 naming the jobs planned on one side only and, per job, the fields
that differ.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# TabFact's probes need a local copy to plan (the project machines' one, beside this checkout).
TABFACT = str(ROOT.parent / "shared" / "tabfact")
# Fixed, so that both dumps of one config plan from the same folder.
WORKDIR = Path("/tmp/tabprobe-compare-plans")
# A user's checkpoint folder: a tiny random BERT with a three-label head (tests/tiny_bert.py),
# made once where the plans are made.
TINY_CHECKPOINT = WORKDIR / "tiny-checkpoint"
# Each config: the extra config files over config.yaml, and the --config values. Chosen to reach
# every branch of the input functions: TabFact's models and probes, `full: true` (train rows of
# the challenge set, the paper's grid and curve), a Defense with a shared learning rate, a causal
# LM, a served model, a user's checkpoint.
CONFIGS = {
    "default": ([], {}),
    "tabfact": (["config.tabfact.yaml"], {"tabfact_dir": TABFACT}),
    "full": ([], {"full": True, "infotabs_verify": False, "max_examples": None}),
    "full-tabfact": (
        ["config.tabfact.yaml"],
        {"tabfact_dir": TABFACT, "full": True, "infotabs_verify": False, "max_examples": None},
    ),
    "defense-shared": (
        [],
        {"inoculation": {"defense": ["num_noise", "num_logic"], "learning_rate_selection": "shared"}},
    ),
    "full-defense-shared": (
        [],
        {"full": True, "inoculation": {"defense": ["num_noise"], "learning_rate_selection": "shared"}},
    ),
    "smollm2": (["config.smollm2.yaml"], {}),
    # A served model (endpoint:) whose GGUF file is unpacked for its server; with k shots.
    "smollm2-served": (["config.smollm2-served.yaml"], {}),
    "served-shots": (["config.smollm2-served.yaml"], {"models": {"smollm2-served": {"endpoint": {"shots": 2}}}}),
    # tests/test_inoculation_workflow.py's grid on a user's checkpoint: two experiments with their
    # train rows, two sizes and learning rates each, a Defense, a learning curve of two sizes.
    "grid-checkpoint": (
        [],
        {
            "models": {
                "mine": {
                    "checkpoint": str(TINY_CHECKPOINT),
                    "premise": "para",
                    "max_length": 64,
                }
            },
            "inoculation": {
                "model": "mine",
                "experiments": ["hypothesis", "counterfactual"],
                "sizes": [8, 4],
                "learning_rates": [0.001, 0.0005],
                "train_rows": True,
                "defense": ["num_noise"],
            },
            "controlled_variance": {"model": "mine", "train_sizes": [8, 4], "resamples": 4},
        },
    ),
}


def _plain(value, checkout: str):
    """A job's field as JSON, paths in `checkout` (as the job names them) as <checkout>/..."""
    from snakemake.iocontainers import Namedlist

    if isinstance(value, Namedlist):
        # Every item in order, and the (start, end) each name covers: names and order both count.
        return {"items": [_plain(v, checkout) for v in value], "names": {k: list(v) for k, v in value._names.items()}}
    if isinstance(value, dict):
        return {str(k): _plain(v, checkout) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v, checkout) for v in value]
    if isinstance(value, str):
        value = str(value)  # a Snakemake _IOFile is a str
        return "<checkout>" + value[len(checkout) :] if value.startswith(checkout + "/") else value
    if isinstance(value, int | float | bool) or value is None:
        return value
    return repr(value)


def plan(name: str, out: Path, checkout: Path) -> None:
    """Plan config `name` on `checkout` with every job forced and write its jobs to `out` (run in
    a subprocess: Snakemake keeps global state per workflow)."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, DAGSettings, OutputSettings, ResourceSettings

    extra, values = CONFIGS[name]
    if not TINY_CHECKPOINT.exists():
        sys.path.insert(0, str(ROOT / "tests"))
        from tiny_bert import tiny_bert

        tiny_bert(TINY_CHECKPOINT, head=True, seed=5)
    workdir = WORKDIR / name
    workdir.mkdir(parents=True, exist_ok=True)
    with SnakemakeApi(OutputSettings(quiet={"all"})) as api:
        workflow_api = api.workflow(
            resource_settings=ResourceSettings(cores=1),
            config_settings=ConfigSettings(
                configfiles=[checkout / "config.yaml", *(checkout / f for f in extra)], config=dict(values)
            ),
            snakefile=checkout / "Snakefile",
            workdir=workdir,
        )
        dag_api = workflow_api.dag(DAGSettings(forceall=True))
        workflow = dag_api.workflow_api._workflow
        workflow.dag_settings = dag_api.dag_settings
        workflow._prepare_dag(forceall=True, ignore_incomplete=True, lock_warn_only=True)
        workflow._build_dag()
        workflow.dag.update_priority()
        jobs = []
        # The jobs name the library relative to the working folder (rules/common.smk's CODE_DIR).
        seen_as = os.path.relpath(checkout, workdir)
        for job in workflow.dag.jobs:
            jobs.append(
                {
                    "rule": job.rule.name,
                    "wildcards": dict(job.wildcards_dict),
                    "input": _plain(job.input, seen_as),
                    "output": _plain(job.output, seen_as),
                    "params": _plain(job.params, seen_as),
                    "params_repr": [repr(v).replace(seen_as + "/", "<checkout>/") for v in job.params],
                    "log": _plain(job.log, seen_as),
                    "priority": job.priority,
                    "threads": job.threads,
                    "resources": {k: _plain(v, seen_as) for k, v in job.resources.items() if not k.startswith("_")},
                }
            )
    jobs.sort(key=lambda j: (j["rule"], json.dumps(j["wildcards"], sort_keys=True), json.dumps(j["output"])))
    out.write_text(json.dumps(jobs, indent=1, sort_keys=True) + "\n")


def dump(folder: Path, checkout: Path) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    failed = 0
    for name in CONFIGS:
        result = subprocess.run(
            [sys.executable, __file__, "plan", name, str(folder / f"{name}.json"), "--checkout", str(checkout)],
            capture_output=True,
            text=True,
        )
        if result.returncode:
            failed += 1
            print(f"{name}: planning failed\n{result.stderr[-3000:]}", file=sys.stderr)
        else:
            print(f"{name}: {len(json.loads((folder / f'{name}.json').read_text()))} jobs")
    return 1 if failed else 0


def compare(before: Path, after: Path) -> int:
    differ = 0
    for name in CONFIGS:
        a, b = (json.loads((side / f"{name}.json").read_text()) for side in (before, after))
        key = lambda j: (j["rule"], json.dumps(j["wildcards"], sort_keys=True), json.dumps(j["output"]))  # noqa: E731
        by_a, by_b = {key(j): j for j in a}, {key(j): j for j in b}
        problems = [f"  only before: {k[0]} {k[1]}" for k in by_a.keys() - by_b.keys()]
        problems += [f"  only after: {k[0]} {k[1]}" for k in by_b.keys() - by_a.keys()]
        for k in sorted(by_a.keys() & by_b.keys()):
            fields = [f for f in by_a[k] if by_a[k][f] != by_b[k].get(f)]
            if fields:
                problems.append(f"  {k[0]} {k[1]}: {', '.join(fields)} differ")
        print(f"{name}: {len(a)} jobs before, {len(b)} after, {'the same' if not problems else 'DIFFERENT'}")
        for line in problems[:50]:
            print(line)
        differ += bool(problems)
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    dump_parser = sub.add_parser("dump")
    dump_parser.add_argument("folder", type=Path)
    dump_parser.add_argument("--checkout", type=Path, default=ROOT, help="the checkout to plan (default: this one)")
    both = sub.add_parser("compare")
    both.add_argument("before", type=Path)
    both.add_argument("after", type=Path)
    one = sub.add_parser("plan")
    one.add_argument("name", choices=list(CONFIGS))
    one.add_argument("out", type=Path)
    one.add_argument("--checkout", type=Path, default=ROOT)
    args = parser.parse_args()
    if args.command == "plan":
        plan(args.name, args.out, args.checkout.resolve())
        return 0
    if args.command == "dump":
        return dump(args.folder, args.checkout.resolve())
    return compare(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
