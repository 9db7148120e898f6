"""Inoculation by fine-tuning (paper section 7): nested subsets, fine-tuning with early stopping
from a trained checkpoint, and Liu et al.'s outcomes."""

from __future__ import annotations

import json

import numpy as np
import pytest
from tiny_bert import tiny_bert

from tabprobe.data.infobox.table import Row, Table
from tabprobe.inoculation.inoculate import InoculationSettings, fine_tune, nested_subsets
from tabprobe.inoculation.outcomes import Change, liu_outcome
from tabprobe.models.classifiers import load_classifier


def test_nested_subsets_are_seeded_and_each_smaller_one_is_inside_the_larger():
    sets = nested_subsets(1000, [300, 100, 200], seed=7, name="table4")
    assert [len(sets[s]) for s in (100, 200, 300)] == [100, 200, 300]
    assert set(sets[100]) <= set(sets[200]) <= set(sets[300])
    assert all(
        np.array_equal(a, b) for a, b in zip(sets.values(), nested_subsets(1000, [100, 200, 300], 7, "table4").values())
    )
    assert not np.array_equal(sets[100], nested_subsets(1000, [100], 7, "table7")[100])
    assert len(nested_subsets(50, [100], 7, "x")[100]) == 50  # fewer available: all of them


@pytest.mark.parametrize(
    "original, challenge, outcome",
    [
        (Change(-7.4, -9.0, -5.8), Change(6.4, 4.1, 8.7), 3),  # paper Tables 9-10: the challenge up, alpha1 down
        (Change(0.3, -1.2, 1.8), Change(6.4, 4.1, 8.7), 1),  # the gap closes
        (Change(0.3, -1.2, 1.8), Change(-0.5, -2.0, 1.0), 2),  # nothing moves
        (Change(0.3, -1.2, 1.8), Change(-4.0, -6.0, -2.0), 0),  # the challenge gets worse: none of the three
    ],
)
def test_liu_outcome_is_decided_by_the_intervals(original, challenge, outcome):
    found, sentence = liu_outcome(original, challenge)
    assert found == outcome
    assert f"challenge {challenge.mean:+.2f} [{challenge.low:+.2f}, {challenge.high:+.2f}]" in sentence


TABLE = Table("T1", "Sample", (Row("Colour", ("red",)), Row("Size", ("large",))))


def records(n: int, offset: int = 0) -> list[dict]:
    """A task a tiny model can learn: "yes" in the hypothesis is ENTAIL, "no" CONTRADICT."""
    out = []
    for i in range(offset, offset + n):
        word = "yes" if i % 2 else "no"
        out.append(
            {
                "uid": f"t:{i}",
                "table": TABLE.to_arrow(),
                "hypothesis": f"The answer is {word} {i % 7}.",
                "label": "N",
                "expected": "E" if word == "yes" else "C",
            }
        )
    return out


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    return tiny_bert(tmp_path_factory.mktemp("trained"), head=True, seed=3)


def test_fine_tuning_keeps_the_best_epoch_and_stops_early(trained, tmp_path):
    settings = InoculationSettings(learning_rate=3e-3, max_epochs=15, patience=4, batch_size=8, max_length=32, seed=1)
    meta = fine_tune(trained, records(64), records(32, offset=100), "para", settings, tmp_path / "ino")
    epochs = meta["dev_accuracy_by_epoch"]
    assert meta["epochs_run"] == len(epochs) <= settings.max_epochs
    assert meta["dev_accuracy"] == max(epochs) and epochs.index(max(epochs)) + 1 == meta["best_epoch"]
    if len(epochs) < settings.max_epochs:  # stopped early: `patience` epochs without a better one
        assert len(epochs) - meta["best_epoch"] == settings.patience
    assert meta["dev_accuracy"] > meta["dev_accuracy_before"]  # it learned the task
    assert meta["train_examples"] == 64 and meta["inoculated_from_fingerprint"]
    # A checkpoint the workflow's inference loads, with its labels still named.
    loaded = load_classifier(tmp_path / "ino")
    assert sorted(loaded.order) == [0, 1, 2]
    saved = json.loads((tmp_path / "ino" / "tabprobe.json").read_text())
    assert saved["best_epoch"] == meta["best_epoch"]


def test_fine_tuning_is_deterministic(trained, tmp_path):
    settings = InoculationSettings(learning_rate=5e-4, max_epochs=2, patience=2, batch_size=8, max_length=32, seed=4)
    fine_tune(trained, records(24), records(8, offset=50), "para", settings, tmp_path / "a")
    fine_tune(trained, records(24), records(8, offset=50), "para", settings, tmp_path / "b")
    assert (tmp_path / "a" / "model.safetensors").read_bytes() == (tmp_path / "b" / "model.safetensors").read_bytes()


def test_liu_outcome_is_judged_on_every_original_test_set():
    """The paper reads its outcomes on alpha1, alpha2 and alpha3 (Tables 9 and 11): one outcome
    per test set, each from that set's paired change and the challenge set's."""
    import polars as pl

    from tabprobe.report.inoculation import Experiment, outcomes_table
    from tabprobe.scoring.results import Index

    def row(model, probe, split, statistic, mean, low, high):
        return dict(
            model=model, probe=probe, split=split, statistic=statistic, label="all", mean=mean, std=1.0,
            ci_low=low, ci_high=high, n=100, paper=None,
        )  # fmt: skip

    rows = [
        row("m.ino-hypothesis-0", "original", s, "accuracy", 70.0, 65.0, 75.0) for s in ("alpha1", "alpha2", "alpha3")
    ]
    rows += [
        row("m.ino-hypothesis-100", "table4:challenge", "alpha1", "accuracy_change", 8.0, 4.0, 12.0),  # up
        row("m.ino-hypothesis-100", "original", "alpha1", "accuracy_change", 0.5, -1.5, 2.5),  # unchanged
        row("m.ino-hypothesis-100", "original", "alpha2", "accuracy_change", -4.0, -6.0, -2.0),  # down
        row("m.ino-hypothesis-100", "original", "alpha3", "accuracy_change", -0.5, -2.0, 1.0),  # unchanged
    ]
    index = Index(pl.DataFrame(rows))
    experiment = Experiment(
        "hypothesis",
        {"table": "table4", "before": "m.ino-hypothesis-0", "sizes": {"100": {"model": "m.ino-hypothesis-100"}}},
    )
    table = outcomes_table(index, experiment)
    assert table.header[1:4] == ["Outcome, judged on alpha1", "Outcome, judged on alpha2", "Outcome, judged on alpha3"]
    (cells,) = table.rows
    assert cells[:4] == ["100", "1", "3", "1"]
    assert "alpha2: Outcome 3" in cells[4] and "alpha1: Outcome 1" in cells[4]


def test_the_report_calls_a_grid_the_papers_only_where_it_is():
    """Under `full: true` a key the config writes holds (config.settings._plan), so the report
    says the grid is the paper's only when every value is."""
    from tabprobe.config import FULL_INOCULATION, INOCULATION_DEFAULTS
    from tabprobe.report.inoculation import grid_text

    paper = {**INOCULATION_DEFAULTS, **FULL_INOCULATION, "full": True}
    assert grid_text(paper).endswith("(the paper's).")
    own = grid_text({**paper, "max_epochs": 5})
    assert "at most 5 epoch(s)" in own and "with the config's own values where it sets them" in own
    assert "the CPU budget's reduced grid" in grid_text({**INOCULATION_DEFAULTS, "full": False})
