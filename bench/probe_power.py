"""How many examples each probe of a config holds on a split: drawn from the shared capped subset
(`max_examples`, 300 in config.yaml) beside drawn as the config draws it (a probe's own
`max_examples`: null takes the whole split), against the probe's minimum n (`min_examples`).

Generation is cheap and a probe that applies to few examples (a number, a date or a name to edit)
adds little inference: config.yaml draws those from the whole split, so that the report has
something to read (issue 45 item 3). This prints the table behind that choice, from a run's
ingested split, parse and relevance (any run that has them: `snakemake --cores all
results/parses/alpha1.spacy results/relevance/alpha1.parquet` makes them).

    PYTHONPATH=workflow .venv/bin/python bench/probe_power.py --results results --split alpha1

Probes that read the hand-made counterfactuals (a set made beforehand, not drawn) are left out.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "workflow"))

from tabprobe.config.settings import WORKFLOW_PROBE_OPTIONS, probe_dataset, probe_limit  # noqa: E402
from tabprobe.data.datasets import get_dataset  # noqa: E402
from tabprobe.probes import get_probe, is_fixed_set, needs  # noqa: E402
from tabprobe.probes.generation import generate, read_probe_inputs  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=Path("results"), help="a run's results folder")
    parser.add_argument("--split", default="alpha1")
    parser.add_argument("--configfile", type=Path, default=ROOT / "config.yaml")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    config = yaml.safe_load(args.configfile.read_text(encoding="utf-8"))
    shared_cap, minimum = config["max_examples"], config.get("min_examples", 40)
    print(f"| Probe | n at the shared cap ({shared_cap}) | config's cap | n as config draws it | minimum n |")
    print("|---|---:|---|---:|---:|")
    for name, settings in config["probes"].items():
        probe, settings = get_probe(name), settings or {}
        dataset = get_dataset(probe_dataset(name))
        if is_fixed_set(name) or args.split not in dataset.splits:
            continue
        cap = probe_limit(config, name)  # `baseline`: as many as its baseline probe's
        options = {k: v for k, v in settings.items() if k not in WORKFLOW_PROBE_OPTIONS}
        files = needs.files(probe, args.split, config, str(args.results))
        counts = []
        for limit in (shared_cap, cap):
            inputs = read_probe_inputs(
                name,
                args.split,
                dataset.examples(args.split, args.results),
                dataset.tables(args.split, args.results),
                config["seed"],
                limit,
                files,
                needs.settings(probe, config),
            )
            table, _ = generate(name, inputs.examples, inputs.tables, config["seed"], options, inputs.needs)
            counts.append(table.num_rows)
        wanted = settings.get("min_examples", minimum)
        flag = "" if counts[1] >= wanted else " (too few)"
        print(
            f"| `{name}` | {counts[0]} | {'whole split' if cap is None else cap}{' (baseline)' if settings.get('max_examples') == 'baseline' else ''} | {counts[1]}{flag} | {wanted} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
