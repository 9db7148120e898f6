"""Power before verdicts (issue 45 item 3): a probe holding fewer examples on a split than its
minimum n says "too few examples" in its rows, and no verdict, scorecard cell, summary figure or
caveat-free reading rests on it, for InfoTabS and TabFact alike; the coverage table sets each
probe's n beside its minimum, and run.json records the minimums. Built from constructed results
tables, as test_verdicts.py builds them: no workflow run, no model."""

from __future__ import annotations

import json

import polars as pl
from test_report_tabfact import cell, tabfact_run
from test_verdicts import constructed_run, frame

from tabprobe.config import min_examples_record, probe_min_examples, schema_default
from tabprobe.report import power
from tabprobe.report.assemble import assemble, build_sections
from tabprobe.report.blocks import Figure, VerdictBlock
from tabprobe.report.coverage import coverage_table
from tabprobe.scoring.results import Index, run_record

# Beside the constructed run's minilm-struct (a table-blind model, every number on 400 examples):
# the table removed, on 6 examples that all went wrong without it (a "clear" drop of a point
# interval), a hypothesis edit on 3 examples likewise, and one on 300 examples, which decides.
SMALL = [
    cell("minilm-struct", "hypothesis_only", "alpha1", "accuracy_drop", 100.0, 100.0, 100.0, n=6),
    cell("minilm-struct", "hypothesis_only", "alpha1", "accuracy", 0.0, 0.0, 0.0, n=6),
    cell("minilm-struct", "temporal_flip", "alpha1", "accuracy_drop", 66.7, 33.3, 100.0, n=3),
    cell("minilm-struct", "temporal_flip", "alpha1", "accuracy", 33.3, 0.0, 66.7, n=3),
    cell("minilm-struct", "negation_flip", "alpha1", "accuracy_drop", 12.0, 8.0, 16.0, n=300),
    cell("minilm-struct", "negation_flip", "alpha1", "accuracy", 44.0, 40.0, 48.0, n=300),
]
COVERAGE = [
    {"probe": probe, "split": "alpha1", "limit": 300, "gold": 300, "perturbed": n, "skipped": {"no date": 300 - n}}
    for probe, n in (("hypothesis_only", 6), ("temporal_flip", 3), ("negation_flip", 300))
]


def small_run():
    scores, run = constructed_run()
    # The constructed run drops its minilm-struct `hypothesis_only` number for the 6-example one.
    kept = scores.table.filter(~((pl.col("model") == "minilm-struct") & (pl.col("probe") == "hypothesis_only")))
    run.probes = ["original", "hypothesis_only", "temporal_flip", "negation_flip"]
    run.coverage = COVERAGE
    return Index(pl.concat([kept, frame(SMALL)])), run


def part(markdown: str, title: str) -> str:
    return markdown.split(f"\n## {title}")[1].split("\n## ")[0]


def test_a_probe_below_its_minimum_says_too_few_examples_and_no_verdict_rests_on_it():
    scores, run = small_run()
    report = assemble(scores, run)
    markdown = report.markdown
    # Its rows stay, with its n and the minimum in place of a number.
    artifacts = part(markdown, "Annotation artifacts")
    assert "| temporal_flip | minilm-struct | too few examples (n=3, minimum 40) |" in artifacts
    assert "| hypothesis_only | minilm-struct | too few examples (n=6, minimum 40) · paper 60.48 |" in artifacts
    assert "| negation_flip | minilm-struct | 44.00 (1.00) [40.0, 48.0] n=300 |" in artifacts
    assert "too few examples (n=3, minimum 40)" in report.html
    # The verdict: without the 6-example drop only the gain over the baseline (no better) decides, so
    # "does not use its table"; read, that drop's clear effect would have made it "cannot tell".
    verdict = next(b.verdict for b in build_sections(scores, run)[0].blocks if isinstance(b, VerdictBlock))
    assert verdict.headline == "minilm-struct does not use its table."
    numbers = [n.what for f in verdict.findings for n in f.numbers]
    assert not any("hypothesis_only" in what for what in numbers)
    assert verdict.caveats[-1] == (
        "Left out of this verdict for too few examples (each probe needs its minimum n on a split before anything "
        "rests on it): `hypothesis_only` on alpha1: too few examples (n=6, minimum 40)."
    )
    # The scorecard's cell says so, and no other number stands there.
    scorecard = part(markdown, "Scorecard")
    row = next(line for line in scorecard.splitlines() if line.startswith("| minilm-struct |"))
    assert "too few examples (n=6, minimum 40)" in row and "100.00" not in row and "does not use its table" in row
    # The summary lists it with its n, and its figure draws only the probe that decides.
    summary = part(markdown, "Summary")
    assert (
        "| temporal_flip | minilm-struct | alpha1 | accuracy drop (points) | too few examples (n=3, minimum 40) |"
        in (summary)
    )
    # A pooled column is judged by its own n (400 here), not by its members' (temporal_flip's 3).
    assert (
        "| paper Table 4: label flipped (pooled) | minilm-struct | alpha1 | accuracy drop (points) | +21.00" in summary
    )
    figure = next(
        b for s in build_sections(scores, run) if s.anchor == "summary" for b in s.blocks if isinstance(b, Figure)
    )
    assert "negation_flip" in figure.svg and "temporal_flip" not in figure.svg and "hypothesis_only" not in figure.svg


def test_the_coverage_table_sets_each_probes_n_beside_its_minimum():
    scores, run = small_run()
    coverage = part(assemble(scores, run).markdown, "Probe coverage")
    assert "| Probe | Split | Cap | Gold examples | Perturbed | Scored (n) | Minimum n |" in coverage
    assert "| temporal_flip | alpha1 | 300 | 300 | 3 | 3: too few examples, decides nothing | 40 |" in coverage
    assert "| negation_flip | alpha1 | 300 | 300 | 300 | 300 | 40 |" in coverage


def test_a_probes_own_minimum_overrides_the_default():
    """negation_flip asks for 500 examples (config `probes.negation_flip.min_examples`) and has 300:
    it decides nothing; temporal_flip's 3 pass a minimum of 2."""
    scores, run = small_run()
    run.min_examples = {"default": 40, "probes": {"negation_flip": 500, "temporal_flip": 2}}
    markdown = assemble(scores, run).markdown
    coverage = part(markdown, "Probe coverage")
    assert "| negation_flip | alpha1 | 300 | 300 | 300 | 300: too few examples, decides nothing | 500 |" in coverage
    assert "| temporal_flip | alpha1 | 300 | 300 | 3 | 3 | 2 |" in coverage
    assert "| negation_flip | minilm-struct | too few examples (n=300, minimum 500) |" in part(
        markdown, "Annotation artifacts"
    )


def test_a_tabfact_probe_below_its_minimum_decides_no_tabfact_verdict():
    """tf-minilm's statement edits: a number flip on 8 statements, all kept their old answer (a
    clear drop on its own); left out, its artifacts answer stays the negation edits' "no"."""
    scores, run = tabfact_run()
    small = [
        cell("tf-minilm", "tf_number_flip", "simple_test", "accuracy_drop", 100.0, 100.0, 100.0, n=8),
        cell("tf-minilm", "tf_number_flip", "simple_test", "accuracy", 0.0, 0.0, 0.0, n=8),
    ]
    scores = Index(pl.concat([scores.table, frame(small)]))
    run.probes = [*run.probes, "tf_negation", "tf_number_flip"]
    markdown = assemble(scores, run).markdown
    tabfact = markdown.split("## TabFact: the same questions on relational tables")[1]
    assert "**tf-minilm uses its table, and the right rows.**" in tabfact
    assert "(`tf_number_flip`): accuracy drop" not in tabfact
    assert (
        "Caveat: Left out of this verdict for too few examples (each probe needs its minimum n on a split before "
        "anything rests on it): `tf_number_flip` on simple_test: too few examples (n=8, minimum 40)."
    ) in tabfact
    assert "| `tf_number_flip` | tf-minilm | simple_test | too few examples (n=8, minimum 40) |" in tabfact
    # Read, the 8 statements' clear drop would have made its artifacts answer "cannot tell" (or yes).
    assert "| tf-minilm | TabFact only | yes | yes | no | no | uses its table and the right rows |" in tabfact


def test_the_minimums_come_from_config_and_run_json_records_them(tmp_path):
    config = {"min_examples": 40, "probes": {"original": {}, "temporal_flip": {"min_examples": 10}}}
    assert probe_min_examples(config, "temporal_flip") == 10
    assert probe_min_examples(config, "original") == 40
    # A config that names none (the tabprobe command's, an old run's) gets the schema's default.
    assert probe_min_examples({"probes": {}}, "original") == schema_default("min_examples") == 40
    record = min_examples_record(config)
    assert record == {"default": 40, "probes": {"original": 40, "temporal_flip": 10}}
    written = run_record(config, {}, [], {}, code_folder=tmp_path, min_examples=record)
    assert written["min_examples"] == record
    assert run_record(config, {}, [], {}, code_folder=tmp_path)["min_examples"] == record
    # The report reads the record back; a record without a probe gives it the default.
    minimums = power.Minimums.of_record(record)
    assert (minimums.of("temporal_flip"), minimums.of("table4:label_flipped")) == (10, 40)
    assert power.Minimums.of_record({}).of("anything") == 40


def test_a_probes_n_is_its_largest_cell_and_every_model_is_held_to_it():
    """Per-label cells rest on fewer examples than the probe holds: the probe's n is its largest
    cell's, the same for a classifier, a causal LM and a served model, which all answer the same
    examples (a served model's unparsed share is one more cell of the same n)."""
    rows = []
    for model in ("classifier", "causal-lm", "served"):
        rows += [
            cell(model, "row_deletion", "alpha1", "invalid_transition_pct", 5.0, 2.0, 8.0, n=30),
            cell(model, "row_deletion", "alpha1", "invalid_transition_pct", 5.0, 2.0, 8.0, n=9, label="E"),
            cell(model, "row_deletion", "alpha1", "input_changed_pct", 90.0, 80.0, 99.0, n=35),
        ]
    rows.append(cell("served", "row_deletion", "alpha1", "unparsed_pct", 3.0, 0.0, 6.0, n=35))
    scores = Index(frame(rows))
    measured = power.power_of(scores, power.Minimums(34))
    assert measured.n("row_deletion", "alpha1") == 35 and measured.too_few("row_deletion", "alpha1") is None
    strict = power.power_of(scores, power.Minimums(36))
    read = power.decided(scores, strict)
    for model in ("classifier", "causal-lm", "served"):
        assert read.first(model, "row_deletion", "invalid_transition_pct") is None
        kept = read.get(model, "row_deletion", "alpha1", "invalid_transition_pct", "E")
        assert kept["n"] == 9 and kept["too_few"] == "too few examples (n=35, minimum 36)"
    assert read.first("served", "row_deletion", "unparsed_pct") is None


def test_a_probe_too_small_on_one_split_is_read_on_the_next_that_decides():
    """Below its minimum on alpha1, above it on alpha2: the verdict and the scorecard read alpha2."""
    scores, run = small_run()
    alpha2 = cell("minilm-struct", "hypothesis_only", "alpha2", "accuracy_drop", -0.5, -2.5, 1.5, n=300)
    scores = Index(pl.concat([scores.table, frame([alpha2])]))
    verdict = next(b.verdict for b in build_sections(scores, run)[0].blocks if isinstance(b, VerdictBlock))
    texts = [n.text() for n in verdict.findings[0].numbers]
    read = "table removed (`hypothesis_only`): accuracy drop on alpha2: -0.5 [-2.5, +1.5] points, n=300"
    assert any(t.startswith(read) for t in texts), texts
    scorecard = part(assemble(scores, run).markdown, "Scorecard")
    row = next(line for line in scorecard.splitlines() if line.startswith("| minilm-struct |"))
    assert "-0.50 (1.00) [-2.5, +1.5] n=300" in row and "too few" not in row


def test_tabprobe_compare_reads_a_run_as_its_report_does(tmp_path):
    """`tabprobe compare` takes each run's minimum from its run.json: on 10 examples (minimum 40)
    it shows both sides' n and compares nothing; with a minimum of 5 it pairs them."""
    from test_results import a_run

    from tabprobe.report import compare

    hypotheses = [f"hypothesis {i}" for i in range(10)]
    left = a_run(tmp_path / "left", hypotheses, ["E", "C"] * 5)
    right = a_run(tmp_path / "right", hypotheses, ["E", "C"] * 2 + ["N"] * 6)
    rows = compare.compare(compare.load_side(left, "m"), compare.load_side(right, "m"), compare.scoring_settings(left))
    accuracy = next(r for r in rows if r.measure.statistic == "accuracy")
    assert accuracy.difference is None and accuracy.note == "not compared: too few examples (n=10, minimum 40)"
    assert accuracy.left["mean"] is None and accuracy.left["n"] == 10
    for run_folder in (left, right):
        record = json.loads((run_folder / "run.json").read_text())
        record["min_examples"] = {"default": 5, "probes": {}}
        (run_folder / "run.json").write_text(json.dumps(record))
    rows = compare.compare(compare.load_side(left, "m"), compare.load_side(right, "m"), compare.scoring_settings(left))
    accuracy = next(r for r in rows if r.measure.statistic == "accuracy")
    assert accuracy.note == "paired on 10 shared examples" and accuracy.difference["n"] == 10


def test_both_parts_coverage_tables_are_one_writer():
    """coverage.coverage_table writes the paper's part's table and every other part's: the run's probe
    order (a probe the run does not list after those, by name), then the part's split order; the gold
    rows named as the part's dataset names them, the Curation column only where asked for."""
    _, run = small_run()
    run.power = None
    entries = [
        {"probe": probe, "split": split, "limit": None, "gold": 10, "perturbed": 4, "skipped": {}}
        for probe, split in (("zz_unlisted", "alpha1"), ("negation_flip", "train"), ("negation_flip", "alpha1"))
    ] + [{**COVERAGE[1], "review": {"candidates": 2, "accepted": 1}}]
    paper_table = coverage_table(run, entries, ["train", "alpha1"])
    assert paper_table.header[3] == "Gold examples" and paper_table.header[-1] == "Curation"
    assert [(r[0], r[1]) for r in paper_table.rows] == [
        ("temporal_flip", "alpha1"),
        ("negation_flip", "train"),
        ("negation_flip", "alpha1"),
        ("zz_unlisted", "alpha1"),
    ]
    assert paper_table.rows[0][-1] == "2 to check, 1 accepted" and paper_table.rows[1][-1] == "–"
    other = coverage_table(run, entries, ["alpha1", "train"], noun="statements", curation=False)
    assert other.header[3] == "Gold statements" and "Curation" not in other.header
    assert [(r[0], r[1]) for r in other.rows][1:3] == [("negation_flip", "alpha1"), ("negation_flip", "train")]
    assert all(len(r) == len(other.header) for r in other.rows)
