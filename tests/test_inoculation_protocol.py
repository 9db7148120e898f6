"""Issue 32 item 4, inoculation as in the papers: the train rows of paper Tables 10 and 12 (the
challenge set's train examples and their originals, labelled as the paper labels them), the
paper's learning-rate selection under `full: true` (one rate for every size and experiment, the
best mean dev accuracy), and the Defense setting of numerical-qa-robustness as a variant of
inoculation (config, checks, scores and the report)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest
import yaml

from tabprobe.config import ConfigError, check, inoculation_experiments, inoculation_plan, plan_layers
from tabprobe.data.infobox import table as infobox
from tabprobe.data.infobox.table import Row, Table
from tabprobe.inoculation.inoculate import choose_learning_rate, probe_dev_records
from tabprobe.inoculation.outcomes import score_experiment
from tabprobe.scoring.probe_scores import ScoringSettings

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"
SETTINGS = ScoringSettings(samplings=20, fraction=0.8, bootstrap=50, confidence=0.95, seed=3)


def examples(split: str, probe: str, rows: list[tuple[str, str, str | None]]) -> pa.Table:
    """Probe examples (uid, gold label, expected) on `split`, each from gold example `<split>:<i>`."""
    table = Table("T1", "t", (Row("k", ("v",)),), "c").to_arrow()
    return pa.Table.from_pylist(
        [
            {
                "uid": uid,
                "orig_uid": uid.split("/")[0],
                "table_id": "T1",
                "hypothesis": "h",
                "label": label,
                "probe": probe,
                "table": table,
                "expected": expected,
                "provenance": "{}",
            }
            for uid, label, expected in rows
        ],
        schema=infobox.PROBE_EXAMPLES,
    )


def default_config() -> dict:
    return copy.deepcopy(yaml.safe_load((ROOT / "config.yaml").read_text()))


# ---------------------------------------------------------------- Tables 10 and 12's train rows


def test_tables_10_and_12_get_their_train_rows_with_paired_originals_without_neutral():
    """The challenge set is scored on train (what the models were fine-tuned on) as on alpha1,
    and its Original column is the gold examples that split's challenge set was made from,
    without NEUTRAL: the paper's base model scores 68.94 on Table 10's alpha1 originals and 71.99
    on Table 12's, so the column cannot be all of alpha1."""
    originals = {
        split: examples(split, "original", [(f"{split}:{i}", lab, lab) for i, lab in enumerate("EECNEC")])
        for split in ("train", "alpha1")
    }
    # Challenge examples from gold 0, 1, 2 and 3 (3 is NEUTRAL: its original is left out), not 4, 5.
    members = {
        split: {
            "label_flipped": {"negation_flip": examples(split, "negation_flip", [(f"{split}:{i}/n", "E", "C") for i in (0, 1)])},
            "label_preserved": {"modifier_preserve": examples(split, "modifier_preserve", [(f"{split}:{i}/m", "C", "C") for i in (2, 3)])},
        }
        for split in ("train", "alpha1")
    }  # fmt: skip
    right = {f"{s}:{i}": lab for s in ("train", "alpha1") for i, lab in enumerate("EECNEC")}
    before = {
        ("original", s): {f"{s}:{i}": "E" for i in range(6)} for s in ("train", "alpha1")
    }  # right on gold 0, 1, 4
    before |= {("negation_flip", s): {f"{s}:{i}/n": "E" for i in (0, 1)} for s in ("train", "alpha1")}
    before |= {("modifier_preserve", s): {f"{s}:{i}/m": "C" for i in (2, 3)} for s in ("train", "alpha1")}
    after = {key: dict(value) for key, value in before.items()}
    after[("original", "train")] = dict(right)  # right on every train original after inoculation
    after[("negation_flip", "train")] = {"train:0/n": "C", "train:1/n": "C"}
    scores = score_experiment(
        "hypothesis",
        "table4",
        {0: "m", 100: "m.ino"},
        {"alpha1": originals["alpha1"]},
        members,
        {"m": before, "m.ino": after},
        SETTINGS,
        challenge_originals=originals,
    ).to_pylist()
    got = {(r["model"], r["probe"], r["split"], r["statistic"], r["label"]): r for r in scores}
    for split in ("train", "alpha1"):
        paired = got[("m", "table4:original", split, "accuracy", "EC")]
        assert paired["n"] == 3  # gold 0, 1, 2: made into challenge examples, not NEUTRAL
        assert paired["mean"] == pytest.approx(200 / 3, abs=8)  # right on 0 and 1, wrong on 2
        assert got[("m", "table4:label_flipped", split, "accuracy", "all")]["n"] == 2
    assert got[("m.ino", "table4:label_flipped", "train", "accuracy", "all")]["mean"] == 100
    assert got[("m.ino", "table4:original", "train", "accuracy_change", "EC")]["mean"] > 0
    assert got[("m.ino", "table4:original", "alpha1", "accuracy_change", "EC")]["mean"] == 0
    # The same inputs give the same scores, byte for byte.
    again = score_experiment(
        "hypothesis", "table4", {0: "m", 100: "m.ino"}, {"alpha1": originals["alpha1"]}, members,
        {"m": before, "m.ino": after}, SETTINGS, challenge_originals=originals,
    )  # fmt: skip
    assert again.to_pylist() == scores


def test_the_report_labels_the_train_rows_as_the_paper_does():
    from tabprobe.report.inoculation import Experiment, challenge_table
    from tabprobe.scoring.results import Index

    def row(model, probe, split, label, mean):
        return dict(
            model=model, probe=probe, split=split, statistic="accuracy", label=label, mean=mean, std=1.0,
            ci_low=mean - 2, ci_high=mean + 2, n=50, paper=None,
        )  # fmt: skip

    rows = [
        row("m.ino-counterfactual-0", probe, split, label, 60.0)
        for split in ("train", "alpha1")
        for probe, label in (
            ("table7:original", "EC"),
            ("table7:label_preserved", "all"),
            ("table7:label_flipped", "all"),
        )
    ]
    index = Index(pl.DataFrame(rows))
    experiment = Experiment("counterfactual", {"table": "table7", "before": "m.ino-counterfactual-0", "sizes": {}})
    train = challenge_table(index, experiment, "train")
    assert "Paper Table 12 layout, Train Set (w/o NEUTRAL)" in train.caption
    assert [h.split(":")[0] for h in train.header[1::2]] == ["Original", "Label Preserved", "Label Flipped"]
    assert ["paper: 100", 91.82, 84.61, 57.62] == [train.rows[2][0]] + [c.mean for c in train.rows[2][1::2]]
    assert "α1 Set (w/o NEUTRAL)" in challenge_table(index, experiment, "alpha1").caption
    # Not run on train (train_rows off): no train block at all.
    alpha1_only = Index(pl.DataFrame([r for r in rows if r["split"] == "alpha1"]))
    assert challenge_table(alpha1_only, experiment, "train") is None


# ---------------------------------------------------------------- the paper's learning rate


def test_the_shared_selection_keeps_the_best_mean_dev_accuracy_over_every_run():
    """Paper section 7: three rates tried, the one that did best on dev used throughout."""
    rates = ["0.0001", "5e-05", "1e-05"]
    dev = {
        "hypothesis/100": {"0.0001": 34.0, "5e-05": 60.0, "1e-05": 58.0},
        "hypothesis/200": {"0.0001": 33.0, "5e-05": 55.0, "1e-05": 59.0},
        "counterfactual/100": {"0.0001": 35.0, "5e-05": 56.0, "1e-05": 60.0},
    }
    best, means = choose_learning_rate(dev, rates)
    assert best == "1e-05" and means == {"0.0001": 34.0, "5e-05": 57.0, "1e-05": 59.0}
    # One run alone: its own best (per_size), the first of equals in the config's order.
    assert choose_learning_rate({"hypothesis/100": dev["hypothesis/100"]}, rates)[0] == "5e-05"
    assert choose_learning_rate({"r": {"a": 1.0, "b": 1.0}}, ["b", "a"])[0] == "b"


def test_select_inoculation_copies_the_shared_rate_and_records_why(tmp_path):
    from tabprobe.inoculation.inoculate import select_inoculation

    def checkpoint(name, dev):
        folder = tmp_path / name
        folder.mkdir(parents=True)
        (folder / "tabprobe.json").write_text(json.dumps({"dev_accuracy": dev}))
        (folder / "model.safetensors").write_text(name)
        return str(folder)

    shared = {
        "hypothesis/100": {"5e-05": checkpoint("h100/lr5e-05", 61.0), "1e-05": checkpoint("h100/lr1e-05", 60.0)},
        "hypothesis/200": {"5e-05": checkpoint("h200/lr5e-05", 40.0), "1e-05": checkpoint("h200/lr1e-05", 59.0)},
    }
    out = tmp_path / "h100" / "best"
    select_inoculation(shared["hypothesis/100"], str(out), shared=shared)
    grid = json.loads((out / "inoculation_grid.json").read_text())
    # This run alone would keep 5e-5 (61 > 60); over both runs 1e-5 is better (59.5 > 50.5).
    assert grid["learning_rate"] == 1e-05 and (out / "model.safetensors").read_text() == "h100/lr1e-05"
    assert grid["selection"] == "shared" and grid["mean_dev_accuracy_by_learning_rate"] == {
        "5e-05": 50.5,
        "1e-05": 59.5,
    }
    assert grid["selected_over"] == ["hypothesis/100", "hypothesis/200"]
    alone = tmp_path / "alone"
    select_inoculation(shared["hypothesis/100"], str(alone))
    assert json.loads((alone / "inoculation_grid.json").read_text())["learning_rate"] == 5e-05


def test_full_selects_the_papers_way_and_the_layers_say_so():
    config = default_config()
    assert inoculation_plan(config)["learning_rate_selection"] == "per_size"
    assert inoculation_plan(config)["train_rows"] is False  # the CPU budget's cost is unchanged
    full = {**config, "full": True}
    plan = inoculation_plan(full)
    assert plan["learning_rate_selection"] == "shared" and plan["train_rows"] is True
    layers = plan_layers(full)["inoculation"]
    assert layers["learning_rate_selection"] == {"value": "shared", "from": "full"}
    assert layers["train_rows"] == {"value": True, "from": "full"}
    # The user's own key wins over full.
    own = {**full, "inoculation": {**config["inoculation"], "learning_rate_selection": "per_size"}}
    assert inoculation_plan(own)["learning_rate_selection"] == "per_size"
    assert plan_layers(own)["inoculation"]["learning_rate_selection"]["from"] == "config"


# ---------------------------------------------------------------- Defense


def test_defense_is_off_by_default_and_adds_one_experiment_per_probe():
    config = default_config()
    assert inoculation_experiments(inoculation_plan(config)) == ["counterfactual"]  # the CPU budget's one
    on = {**config, "inoculation": {**config["inoculation"], "defense": ["num_noise", "num_logic"]}}
    check(on, SCHEMA)
    assert inoculation_experiments(inoculation_plan(on)) == [
        "counterfactual",
        "defense-num_noise",
        "defense-num_logic",
    ]


def test_a_defense_needs_its_probe_on_alpha1_and_only_numeric_perturbations():
    config = default_config()

    def with_defense(names, probes=None):
        changed = {**config, "inoculation": {**config["inoculation"], "defense": names}}
        if probes is not None:
            changed["probes"] = probes
        return changed

    without = {k: v for k, v in config["probes"].items() if k != "num_logic"}
    with pytest.raises(ConfigError) as error:
        check(with_defense(["num_logic"], without), SCHEMA)
    assert "inoculation.defense: num_logic is not among the probes" in str(error.value)
    on_dev = {**config["probes"], "num_noise": {"splits": ["alpha2"]}}
    with pytest.raises(ConfigError) as error:
        check(with_defense(["num_noise"], on_dev), SCHEMA)
    assert "num_noise does not run on alpha1" in str(error.value)
    with pytest.raises(ConfigError) as error:
        check(with_defense(["negation_flip"]), SCHEMA)
    assert "inoculation.defense" in str(error.value)


def test_a_defense_stops_early_on_a_seeded_nested_subset_of_its_probes_dev_examples():
    dev = examples("dev", "num_noise", [(f"dev:{i}/num_noise", "E", "C") for i in range(30)])
    small, large = (probe_dev_records(dev, k, 5, "defense-num_noise") for k in (5, 12))
    assert len(small) == 5 and len(large) == 12
    assert {r["uid"] for r in small} < {r["uid"] for r in large}
    assert probe_dev_records(dev, 5, 5, "defense-num_noise") == small
    assert len(probe_dev_records(dev, None, 5, "defense-num_noise")) == 30
    assert all(isinstance(r["table"], dict) and r["expected"] == "C" for r in small)


def test_the_defense_section_sets_attack_and_defense_beside_the_original():
    from tabprobe.report.inoculation import defense_section
    from tabprobe.report.inputs import RunInfo

    def row(model, probe, statistic, mean, n=40):
        return dict(
            model=model, probe=probe, split="alpha1", statistic=statistic, label="all", mean=mean, std=1.0,
            ci_low=mean - 3, ci_high=mean + 3, n=n, paper=None,
        )  # fmt: skip

    before, after = "m.ino-defense-num_noise-0", "m.ino-defense-num_noise-100"
    index = pl.DataFrame(
        [
            row(before, "num_comparative", "accuracy", 70.0),
            row(before, "defense-num_noise:defense", "accuracy", 50.0),
            row(after, "defense-num_noise:defense", "accuracy", 62.0),
            row(after, "defense-num_noise:defense", "accuracy_change", 12.0),
            row(after, "original", "accuracy_change", -2.0),
        ]
    )
    from tabprobe.scoring.results import Index

    run = RunInfo.__new__(RunInfo)
    run.inoculation_plan = {**inoculation_plan(default_config()), "full": False}
    run.inoculation = {
        "defense-num_noise": {
            "table": "defense-num_noise",
            "before": before,
            "model": "m",
            "sizes": {"100": {"model": after, "learning_rate": 5e-05}},
        }
    }
    section = defense_section(Index(index), run)
    (table,) = [b for b in section.blocks if hasattr(b, "rows")]
    (cells,) = table.rows
    assert cells[:3] == ["num_noise", "100", "5e-05"]
    assert [c.mean for c in cells[3:]] == [70.0, 50.0, -20.0, 62.0, -8.0, 12.0, -2.0]
    assert "train on train*, validate on val*, test on test*" in section.blocks[0]
