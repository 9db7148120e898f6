"""Bad input, as a user meets it: every case runs the real workflow (a copy, on the hand-written
mini InfoTabS fixture and a tiny checkpoint built here) and must end with a non-zero exit, a
message that names the bad thing (file, line or key) and says how to fix it, and no partial
output: no file of the failing job or of anything downstream of it.

Half the cases run in an empty folder; the other half in a folder holding a finished run, which
must come out byte for byte and timestamp for timestamp as it went in. A probe that perturbs no
example is not bad input: it is a result, reported as such (last test).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import torch
import yaml
from safetensors.torch import load_file
from tiny_bert import NLI_LABELS, tiny_bert
from workflow_copy import copy_workflow, snakemake_command

from tabprobe.config import MODEL_NAME, PROBE_NAME

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "mini_infotabs"
MAINDATA = Path("data") / "maindata"
ALPHA1 = MAINDATA / "infotabs_test_alpha1.tsv"
ALPHA2 = MAINDATA / "infotabs_test_alpha2.tsv"
TABLES = Path("data") / "tables" / "json"


# ---------------------------------------------------------------- running the workflow


def snakemake(workdir: Path, workflow: Path, configfile: Path | None, *args: str) -> subprocess.CompletedProcess:
    command = snakemake_command(workflow, configfile, "--cores", "1", *args, workdir=workdir)
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def snapshot(folder: Path) -> dict[str, tuple[str, int]]:
    """Every file a run leaves (Snakemake's own bookkeeping and the job logs aside, which a
    failed job is meant to leave), with its content hash and modification time."""
    return {
        str(p.relative_to(folder)): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.relative_to(folder).parts[0] not in (".snakemake", "logs")
    }


def write_config(path: Path, config: dict) -> Path:
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def line_of(path: Path, text: str, after: str | None = None) -> int:
    """Line number (1-based) of the first line holding `text`, after the line holding `after`."""
    lines = path.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if after in line) if after else 0
    return next(i for i, line in enumerate(lines) if i >= start and text in line) + 1


# ---------------------------------------------------------------- inputs


def tiny_checkpoint(path: Path, id2label: dict[int, str] | None = None, head: bool = True) -> Path:
    """A one-layer BERT with random weights and the packaged MiniLM vocabulary, saved as a user
    would; with head=False, the encoder alone (its config still naming the labels)."""
    return tiny_bert(path, layers=1, max_positions=128, head=head, id2label=id2label or NLI_LABELS)


def pickled_only(path: Path) -> Path:
    """The checkpoint with its weights as pytorch_model.bin only (the format that unpickles)."""
    torch.save(load_file(path / "model.safetensors"), path / "pytorch_model.bin")
    (path / "model.safetensors").unlink()
    return path


def set_line(path: Path, number: int, text: str) -> None:
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[number - 1] = text
    path.write_text("\n".join(lines), encoding="utf-8")


def break_rows(root: Path, tsv: Path) -> None:
    """A wrong column count, a label that is not E/N/C, a table that does not exist, and a
    table file that is not JSON, in one split."""
    path = root / tsv
    set_line(path, 3, "C1\tT7\tThe Order of Tidewatchers admits only sailors.\tN\tstray")
    set_line(path, 4, "C1\tT7\tThe Order of Tidewatchers is based in Vellmora.\tCONTRADICTION")
    set_line(path, 5, "C2\tT99\tAlder Harbour FC was founded in 1921.\tE")
    table = root / TABLES / ("T7.json" if tsv == ALPHA1 else "T5.json")
    table.write_text(table.read_text().replace("],", "] oops,", 1))


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """The workflow copy, checkpoints and InfoTabS copies every case draws on."""
    tmp = tmp_path_factory.mktemp("bad_input")
    # Each case's --configfile is the whole config.
    workflow = copy_workflow(tmp / "workflow")
    good = tiny_checkpoint(tmp / "ckpt")
    clean = tmp / "infotabs_clean"
    shutil.copytree(FIXTURE, clean)
    # The finished run reads alpha1 only; its alpha2 is broken from the start, for a case to add.
    finished_data = tmp / "infotabs_alpha2_broken"
    shutil.copytree(FIXTURE, finished_data)
    break_rows(finished_data, ALPHA2)
    return {"tmp": tmp, "workflow": workflow, "ckpt": good, "clean": clean, "finished_data": finished_data}


def base_config(env, infotabs: Path | None = None, **changes) -> dict:
    config = {
        "infotabs_dir": str(infotabs or env["clean"]),
        "infotabs_verify": False,  # a hand-written fixture, not the official data
        "seed": 1,
        "splits": ["alpha1"],
        "max_examples": 5,
        "probes": {"original": {}},
        "models": {"tiny": {"checkpoint": str(env["ckpt"]), "premise": "para", "max_length": 64}},
        "scoring": {"samplings": 10, "fraction": 0.8, "bootstrap": 10, "confidence": 0.95},
    }
    config.update(changes)
    return config


@pytest.fixture(scope="module")
def finished(env):
    """A folder holding a finished run of the good config (alpha1, `original`, model `tiny`)."""
    workdir = env["tmp"] / "finished"
    workdir.mkdir()
    configfile = write_config(env["tmp"] / "finished.yaml", base_config(env, env["finished_data"]))
    result = snakemake(workdir, env["workflow"], configfile)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert (workdir / "results" / "report" / "index.html").is_file()
    return {"dir": workdir, "config": yaml.safe_load(configfile.read_text())}


# ---------------------------------------------------------------- the table of cases


@dataclass
class Run:
    """What a case runs: its config file (None: none given), extra arguments, and the patterns
    the terminal output must show."""

    configfile: Path | None
    expect: list[str]
    args: list[str] = field(default_factory=list)


MALFORMED_YAML = "seed: 1\nsplits: [alpha1\nprobes: {original: {}}\n"


def malformed_yaml(env, tmp) -> Run:
    path = tmp / "bad.yaml"
    path.write_text(MALFORMED_YAML)
    # Snakemake parses --configfile itself before the workflow starts, and says only this; the
    # file and line come from `python -m tabprobe.config` (test_the_config_checker_...).
    return Run(path, [r"Config file is not valid JSON or YAML"])


def wrong_types_and_keys(env, tmp) -> Run:
    config = base_config(env, seed="one", max_exampels=5, splits=["alpa1"], probes=["original"])
    path = write_config(tmp / "bad.yaml", config)
    return Run(
        path,
        [
            rf"{path}:{line_of(path, 'seed:')}: config key seed: 'one' is not of type 'integer'",
            rf"{path}:{line_of(path, 'max_exampels:')}: config key \(top level\): unknown key\(s\) 'max_exampels' "
            r"\(did you mean 'max_examples'\?\)",
            rf"{path}:{line_of(path, '- alpa1')}: config key splits\.0: 'alpa1' is not one of \[.*\]\. Did you mean 'alpha1'\?",
            rf"{path}:{line_of(path, 'probes:')}: config key probes: \['original'\] is not of type 'object'",
            r"the config is not valid \(read from " + re.escape(str(path)),
        ],
    )


def unknown_probe_in_config(env, tmp) -> Run:
    config = base_config(env, probes={"original": {}, "row_delete": {}})
    path = write_config(tmp / "bad.yaml", config)
    return Run(
        path,
        [
            rf"{path}:{line_of(path, 'row_delete:')}: config key probes\.row_delete: no such probe\. "
            r"Did you mean 'row_deletion'\? Registered: "
        ],
    )


def unknown_model_references(env, tmp) -> Run:
    """A model whose checkpoint folder, base package or premise does not exist."""
    config = base_config(env)
    config["models"] = {
        "tiny": {"checkpoint": str(tmp / "no_such_checkpoint"), "premise": "paragraph"},
        "trained": {"train": {"base": "pkg://no_such_package/model"}, "premise": "para"},
    }
    path = write_config(tmp / "bad.yaml", config)
    return Run(
        path,
        [
            rf"{path}:{line_of(path, 'checkpoint:')}: config key models\.tiny\.checkpoint: .*no_such_checkpoint: "
            r"checkpoint directory .* does not exist",
            rf"{path}:{line_of(path, 'premise: paragraph')}: config key models\.tiny\.premise: 'paragraph' is not one of .*"
            r"Did you mean 'para'\?",
            rf"{path}:{line_of(path, 'base:')}: config key models\.trained\.train\.base: pkg://no_such_package/model: "
            r"python package 'no_such_package' is not installed \(pip install no-such-package\)",
        ],
    )


def names_with_path_characters(env, tmp) -> Run:
    config = base_config(env, splits=["../alpha1"], probes={"original": {}, "a/b": {}})
    config["models"]["../evil"] = dict(config["models"]["tiny"])
    path = write_config(tmp / "bad.yaml", config)
    return Run(
        path,
        [
            r"config key probes: 'a/b' is not a valid name: a probe name may hold only letters, digits and _",
            r"config key models: '\.\./evil' is not a valid name: a model name may hold only letters, digits, _, \. and -",
            r"config key splits\.0: '\.\./alpha1' is not one of \['train', 'dev', 'alpha1', 'alpha2', 'alpha3'\]",
        ],
    )


def infotabs_dir_without_data(env, tmp) -> Run:
    path = write_config(tmp / "bad.yaml", base_config(env, tmp / "not_infotabs"))
    return Run(
        path,
        [
            rf"{path}:{line_of(path, 'infotabs_dir:')}: config key infotabs_dir: .*not_infotabs has no "
            r"data/maindata/ folder; give the folder that holds data/maindata/ and data/tables/json/"
        ],
    )


def zero_examples_cap(env, tmp) -> Run:
    path = write_config(tmp / "bad.yaml", base_config(env, max_examples=0))
    return Run(
        path, [rf"{path}:{line_of(path, 'max_examples:')}: config key max_examples: 0 is less than the minimum of 1"]
    )


def broken_rows(env, tmp) -> Run:
    root = tmp / "infotabs"
    shutil.copytree(env["clean"], root)
    break_rows(root, ALPHA1)
    tsv = root / ALPHA1
    return Run(
        write_config(tmp / "bad.yaml", base_config(env, root)),
        [
            rf"{tsv}:3: has 5 tab-separated columns, the header has 4",
            rf"{tsv}:4: label 'CONTRADICTION' is not one of E, N, C",
            rf"{tsv}:5: table T99 is missing: no file {root / TABLES / 'T99.json'}",
            rf"{root / TABLES / 'T7.json'}:\d+: malformed JSON: Expecting ',' delimiter",
            r"How to fix: correct the lines named above",
        ],
    )


def header_only_split(env, tmp) -> Run:
    root = tmp / "infotabs"
    shutil.copytree(env["clean"], root)
    tsv = root / ALPHA1
    tsv.write_text(tsv.read_text().split("\n")[0] + "\n")
    return Run(
        write_config(tmp / "bad.yaml", base_config(env, root)),
        [rf"{tsv}:1: has a header but no examples below it", r"How to fix: "],
    )


def missing_split_file(env, tmp) -> Run:
    root = tmp / "infotabs"
    shutil.copytree(env["clean"], root)
    (root / ALPHA1).unlink()
    path = write_config(tmp / "bad.yaml", base_config(env, root))
    return Run(
        path,
        [
            rf"{path}:{line_of(path, 'infotabs_dir:')}: config key infotabs_dir: .*infotabs lacks "
            r"data/maindata/infotabs_test_alpha1\.tsv, the alpha1 split this config reads; restore the file"
        ],
    )


def a_key_given_twice(env, tmp) -> Run:
    """Two `probes:` blocks: YAML keeps the last, and the first block's probes would vanish."""
    config = base_config(env)
    text = yaml.safe_dump(config, sort_keys=False) + "probes:\n  row_deletion: {}\n"
    path = tmp / "bad.yaml"
    path.write_text(text)
    first, second = line_of(path, "probes:"), line_of(path, "probes:", after="scoring:")
    return Run(
        path,
        [
            rf"{path}:{second}: config key probes: given twice in one block \(lines {first} and {second}\); YAML keeps "
            rf"only the last, so what line {first} sets would be dropped without a word: merge the two into one"
        ],
    )


def an_option_the_probe_does_not_take(env, tmp) -> Run:
    config = base_config(
        env, probes={"original": {}, "num_distractor_rows": {"row": 5}, "num_comparative": {"range": [9, 3]}}
    )
    path = write_config(tmp / "bad.yaml", config)
    return Run(
        path,
        [
            rf"{path}:{line_of(path, 'row: 5')}: config key probes\.num_distractor_rows\.row: num_distractor_rows takes "
            r"no option 'row'\. Did you mean 'rows'\? Its options: rows",
            rf"{path}:\d+: config key probes\.num_comparative\.range: \[9, 3\] is not \[low, high\] with low < high",
        ],
    )


def a_list_given_as_a_word_on_the_command_line(env, tmp) -> Run:
    path = write_config(tmp / "good.yaml", base_config(env))
    return Run(
        path,
        [
            r"--config: config key splits: 'alpha1' is not of type 'array'; write a list in brackets, in a file "
            r"`splits: \[alpha1\]`, on the command line `--config 'splits=\[alpha1\]'`\n\(schema: "  # and nothing else
        ],
        ["--config", "splits=alpha1"],
    )


def curation_lines_that_can_never_apply(env, tmp) -> Run:
    """A uid without its split and one past the split's last line: named with the config, file and
    line, instead of counted as stale in a job's log."""
    curated = tmp / "negation_flip.curation.tsv"
    curated.write_text(
        "uid\tdecision\tlabel\thypothesis\n"
        "12/negation_flip\taccept\t\tAda was not born.\n"
        "alpha1:999999/negation_flip\treject\t\tAda was not born.\n"
    )
    config = base_config(env, probes={"original": {}, "negation_flip": {"curation": str(curated)}})
    path = write_config(tmp / "bad.yaml", config)
    return Run(
        path,
        [
            rf"{path}:{line_of(path, 'curation:')}: config key probes\.negation_flip\.curation: {curated}:2: uid "
            r"'12/negation_flip' names no example: a uid starts with <split>:<line>",
            rf"config key probes\.negation_flip\.curation: {curated}:3: uid alpha1:999999/negation_flip: alpha1 has no "
            r"example on line 999999 \(its examples are on lines 2-\d+\); remove the line",
        ],
    )


def tabfact_copy(root: Path, program: str) -> Path:
    """A TabFact folder of one val table, whose one bootstrap statement comes with `program`."""
    (root / "data" / "all_csv").mkdir(parents=True)
    (root / "data" / "all_csv" / "1-1.html.csv").write_bytes(b"player#points#team\r\nann#3#reds\r\nbo#5#blues\r\n")
    (root / "data" / "val_id.json").write_text(json.dumps(["1-1.html.csv"]))
    (root / "data" / "test_id.json").write_text("[]")
    (root / "tokenized_data").mkdir()
    (root / "tokenized_data" / "val_examples.json").write_text(
        json.dumps({"1-1.html.csv": [["ann score 3 point"], [1], "club points"]})
    )
    (root / "bootstrap").mkdir()
    entry = ["ann scored 3 points .", None, "club points", None, program]
    (root / "bootstrap" / "bootstrap.json").write_text(json.dumps({"1-1.html.csv": [entry]}, indent=2))
    return root


def tabfact_program_case(program: str, problem: str) -> Callable:
    """Ingesting TabFact's bootstrap split, whose program is `program`: stopped by the check, before any
    result, with bootstrap.json's line, the table and the program."""

    def make(env, tmp) -> Run:
        root = tabfact_copy(tmp / "tabfact", program)
        config = base_config(
            env, tabfact_dir=str(root), probes={"original": {}, "tf_original": {"splits": ["bootstrap"]}}
        )
        bootstrap = root / "bootstrap" / "bootstrap.json"
        return Run(
            write_config(tmp / "bad.yaml", config),
            [
                rf"{bootstrap}:2: table '1-1\.html\.csv': program 0 \(counted from 0\) is malformed: {problem}",
                r"How to fix: correct the entries named above: each is \[statement, null, caption, null, program\]",
                r"Error in rule check_tabfact",
            ],
            ["results/data/tabfact/bootstrap.parquet"],
        )

    make.__name__ = f"tabfact_{problem.split()[0].strip(chr(39))}_program"
    return make


# 50,000 braces deep: a RecursionError once; the program quoted by its start and its length.
tabfact_nested_program = tabfact_program_case(
    "eq{" * 50_000 + "all_rows" + "}" * 50_000 + "=True",
    r"calls nested more than 100 calls deep at character 300 .* in program 'eq\{eq\{.*'\.\.\. \(200,008 characters\)",
)
# Dropped with an INFO line in the job's log once.
tabfact_malformed_program = tabfact_program_case(
    "eq{hop{filter_eq{all_rows; player; ann}; points}; 3=True",
    r"'\}' or ';' is expected at character \d+ \(near .*\) in program 'eq\{hop\{filter_eq\{all_rows; player; ann\}; points\}; 3'",
)

FRESH_CASES = [
    malformed_yaml,
    a_key_given_twice,
    an_option_the_probe_does_not_take,
    a_list_given_as_a_word_on_the_command_line,
    curation_lines_that_can_never_apply,
    wrong_types_and_keys,
    unknown_probe_in_config,
    unknown_model_references,
    names_with_path_characters,
    infotabs_dir_without_data,
    zero_examples_cap,
    broken_rows,
    header_only_split,
    missing_split_file,
    tabfact_nested_program,
    tabfact_malformed_program,
]


@pytest.mark.parametrize("case", FRESH_CASES, ids=lambda f: f.__name__)
def test_bad_input_in_an_empty_folder_stops_and_writes_nothing(env, tmp_path, case):
    run = case(env, tmp_path)
    workdir = tmp_path / "run"
    workdir.mkdir()
    result = snakemake(workdir, env["workflow"], run.configfile, *run.args)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-3000:]
    for pattern in run.expect:
        assert re.search(pattern, output), f"{pattern!r} not in:\n{output[-4000:]}"
    assert snapshot(workdir) == {}, "a failed run left files behind"


# Cases added to a finished run: the new thing is bad, and what was there stays as it was.


def target(path: str) -> Callable:
    """Requesting one result file of the finished run's config."""

    def make(env, finished, tmp) -> Run:
        return Run(write_config(tmp / "run.yaml", finished["config"]), [], [path])

    return make


def with_model(build: Callable, labels: dict | None = None, max_length: int | None = 64) -> Callable:
    """The finished run's config with a second model whose checkpoint `build` makes (max_length
    None: left out, the schema's default)."""

    def make(env, finished, tmp) -> Run:
        config = json.loads(json.dumps(finished["config"]))
        config["models"]["tiny2"] = {
            "checkpoint": str(build(tmp / "ckpt2")),
            "premise": "para",
            **({"labels": labels} if labels else {}),
            **({"max_length": max_length} if max_length else {}),
        }
        return Run(write_config(tmp / "run.yaml", config), [])

    return make


def without(path: Path, *names: str) -> Path:
    for name in names:
        (path / name).unlink()
    return path


def no_weights(path: Path) -> Path:
    return without(tiny_checkpoint(path), "model.safetensors")


def cut_short(path: Path) -> Path:
    """The checkpoint with its weights file cut at two thirds, as a full disk or a broken copy leaves it."""
    weights = path / "model.safetensors"
    data = weights.read_bytes()
    weights.write_bytes(data[: len(data) * 2 // 3])
    return path


FINISHED_CASES = {
    "unknown_model_in_target": (
        target("results/scores/tinyy/original/alpha1.parquet"),
        [
            r"no model 'tinyy' in config\. Did you mean 'tiny'\? Configured models: tiny\. Fix the name in the requested "
            r"path, or add it under `models:`"
        ],
    ),
    "unknown_probe_in_target": (
        target("results/predictions/tiny/orignal/alpha1.parquet"),
        [r"no probe 'orignal' in config\. Did you mean 'original'\?"],
    ),
    "registered_probe_not_in_config_in_target": (
        target("results/scores/tiny/row_delete/alpha1.parquet"),
        [
            r"no probe 'row_delete' in config\. Did you mean 'row_deletion'\? It is a registered probe: list it under "
            r"`probes:`"
        ],
    ),
    # Snakemake folds ".." before matching, so these ask for files outside results/ (and the
    # first outside the working folder); no rule makes them, and the model and probe wildcards
    # never match a "/" (see test_name_patterns_refuse_path_characters).
    "target_climbing_out_of_results": (
        target("results/scores/tiny/../../../../escaped/alpha1.parquet"),
        [r"No rule to produce \.\./escaped/alpha1\.parquet"],
    ),
    "target_with_dotdot_inside_results": (
        target("results/predictions/tiny/../escaped/original/alpha1.parquet"),
        [r"no model 'escaped' in config"],
    ),
    "target_with_a_slash_in_a_name": (
        target("results/predictions/a/b/original/alpha1.parquet"),
        [r"No rule to produce results/predictions/a/b/original/alpha1\.parquet"],
    ),
    "checkpoint_with_pickled_weights_only": (
        with_model(lambda p: pickled_only(tiny_checkpoint(p))),
        [
            r"config key models\.tiny2\.checkpoint: .*ckpt2: no \*\.safetensors weights \(found \[.*'pytorch_model\.bin'.*\]\)\. "
            r"tabprobe loads safetensors only, because pickled weights \(\.bin/\.pt\) can run arbitrary code\. Convert the "
            r"checkpoint with model\.save_pretrained\(dir, safe_serialization=True\)"
        ],
    ),
    "checkpoint_without_weights": (
        with_model(no_weights),
        [
            r"config key models\.tiny2\.checkpoint: .*ckpt2: no \*\.safetensors weights \(found \['config\.json', "
            r"'tokenizer\.json', 'tokenizer_config\.json'\]\)"
        ],
    ),
    "checkpoint_without_tokenizer": (
        with_model(lambda p: without(tiny_checkpoint(p), "tokenizer.json", "tokenizer_config.json")),
        [
            r"config key models\.tiny2\.checkpoint: .*ckpt2: no tokenizer files \(none of tokenizer\.json, vocab\.txt.*; found "
            r"\['config\.json', 'model\.safetensors'\]\)\. Without them every word would be read as an unknown token\. "
            r"Save the checkpoint's tokenizer beside its weights: tokenizer\.save_pretrained\(dir\)"
        ],
    ),
    # Its files pass the checks made before any job; loading it on the model server shows the head
    # is missing, and the infer_nli job that waited for it, with everything after it, writes nothing.
    "checkpoint_without_a_classification_head": (
        with_model(lambda p: tiny_checkpoint(p, head=False)),
        [
            r"ckpt2: the checkpoint lacks trained weights for classifier\.bias, classifier\.weight, which would be "
            r"initialised at random\. Give a checkpoint fine-tuned for sequence classification",
            r"Error in rule infer_nli",
            r"tabprobe error \(full log: logs/infer_nli/tiny2/original/alpha1\.log\)",
        ],
    ),
    "checkpoint_weights_cut_short": (
        with_model(lambda p: cut_short(tiny_checkpoint(p))),
        [
            r"config key models\.tiny2\.checkpoint: .*ckpt2/model\.safetensors: cut short: its header describes \d+ "
            r"bytes of tensors and header, the file holds \d+; copy or save the checkpoint again"
        ],
    ),
    "checkpoint_path_naming_a_file": (
        with_model(lambda p: tiny_checkpoint(p) / "config.json"),
        [
            r"config key models\.tiny2\.checkpoint: .*ckpt2/config\.json: is a file \(config\.json\), not a "
            r"checkpoint folder; give the folder that holds it: .*ckpt2"
        ],
    ),
    # The model block leaves max_length out: the schema's 512, past the checkpoint's 128 positions.
    "classifier_max_length_past_its_positions": (
        with_model(tiny_checkpoint, max_length=None),
        [
            r"config key models\.tiny2\.max_length: 512 tokens are more than this model's context window \(128 "
            r"tokens, its config\.json's max_position_embeddings\); set max_length to at most 128"
        ],
    ),
    "labels_that_do_not_map_onto_ENC": (
        with_model(lambda p: tiny_checkpoint(p, {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})),
        [
            r"config key models\.tiny2\.checkpoint: .*ckpt2: the checkpoint's labels \{0: 'LABEL_0', 1: 'LABEL_1', 2: 'LABEL_2'\} "
            r"do not map one-to-one onto E, N, C .*Add `labels:` to this model in config\.yaml"
        ],
    ),
    "labels_map_with_a_typo": (
        with_model(tiny_checkpoint, {"ENTAIL": "E", "NEUTRAL": "N", "CONTRADICTION": "C"}),
        [r"config key models\.tiny2\.labels: .*'ENTAIL' is not one of its labels \(did you mean 'ENTAILMENT'\?\)"],
    ),
    "two_class_checkpoint": (
        with_model(lambda p: tiny_checkpoint(p, {0: "positive", 1: "negative"})),
        [r"config key models\.tiny2\.checkpoint: .*labels \{0: 'positive', 1: 'negative'\} do not map one-to-one"],
    ),
    # A TabFact-style head probed on InfoTabS would be scored as if it could answer NEUTRAL.
    "two_label_checkpoint_for_infotabs": (
        with_model(lambda p: tiny_checkpoint(p, {0: "ENTAILED", 1: "REFUTED"})),
        [
            r"config key models\.tiny2\.checkpoint: tiny2's checkpoint \S*ckpt2 has a two-label head \(ENTAILED -> E, "
            r"REFUTED -> C\) and cannot answer InfoTabS's NEUTRAL; probe it on TabFact alone: add `datasets: \[tabfact\]` "
            r"to models\.tiny2\n\(schema: "
        ],
    ),
    "labels_map_naming_a_label_the_head_lacks": (
        with_model(
            lambda p: tiny_checkpoint(p, {0: "ENTAILED", 1: "REFUTED"}),
            {"ENTAILED": "E", "REFUTED": "C", "NEUTRAL": "N"},
        ),
        [
            r"config key models\.tiny2\.labels: \S*ckpt2: `labels:` names what the checkpoint does not have: 'NEUTRAL' "
            r"is not one of its labels\. Its labels: \{0: 'ENTAILED', 1: 'REFUTED'\}, by name or index; remove the key "
            r"from `labels:`, or write one of them\n\(schema: "
        ],
    ),
}


def add_broken_split(env, finished, tmp) -> Run:
    config = dict(finished["config"], splits=["alpha1", "alpha2"])
    tsv = env["finished_data"] / ALPHA2
    return Run(
        write_config(tmp / "run.yaml", config),
        [
            rf"{tsv}:3: has 5 tab-separated columns",
            rf"{tsv}:4: label 'CONTRADICTION' is not one of E, N, C",
            rf"{tsv}:5: table T99 is missing",
            r"T5\.json:\d+: malformed JSON",
            r"How to fix: ",
        ],
    )


FINISHED_CASES["broken_rows_in_an_added_split"] = (add_broken_split, [])


def add_damaged_hand_made_counterfactuals(env, finished, tmp) -> Run:
    """The paper's hand-made counterfactuals are read as any input: a pair whose modified label is
    not E or C stops the job that reads them, naming the file and line."""
    root = tmp / "counterfactuals"
    shutil.copytree(ROOT / "tests" / "fixtures" / "mini_counterfactuals", root)
    tsv = root / "data" / "counterfactuals" / "alpha1" / "cf_alpha1_anonymized.tsv"
    lines = tsv.read_bytes().decode("utf-8").split("\r\n")
    lines[2] = lines[2].rsplit("\t", 1)[0] + "\tMAYBE"
    tsv.write_bytes("\r\n".join(lines).encode("utf-8"))
    config = json.loads(json.dumps(finished["config"]))
    config["probes"]["cf_human"] = {"splits": ["alpha1"]}
    # A hand-written stand-in for the release (tests/fixtures/mini_counterfactuals), not the release.
    config.update(counterfactuals_dir=str(root), counterfactuals_verify=False)
    return Run(
        write_config(tmp / "run.yaml", config),
        [rf"{tsv}:3: labels 'C' -> 'MAYBE': each must be E or C", r"How to fix: ", r"Error in rule generate_probe"],
    )


FINISHED_CASES["damaged_hand_made_counterfactuals"] = (add_damaged_hand_made_counterfactuals, [])


@pytest.mark.parametrize("name", FINISHED_CASES)
def test_bad_input_added_to_a_finished_run_stops_and_changes_nothing(env, finished, tmp_path, name):
    make, expect = FINISHED_CASES[name]
    run = make(env, finished, tmp_path)
    before, around = snapshot(finished["dir"]), sorted(env["tmp"].iterdir())
    result = snakemake(finished["dir"], env["workflow"], run.configfile, *run.args)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-3000:]
    for pattern in expect + run.expect:
        assert re.search(pattern, output), f"{pattern!r} not in:\n{output[-4000:]}"
    assert "Trying to restart" not in output, "a job was retried for an error that cannot go away"
    assert snapshot(finished["dir"]) == before, "the failed run changed or added files"
    assert sorted(env["tmp"].iterdir()) == around and not list(env["tmp"].rglob("escaped")), "a file outside the run"


def test_a_split_broken_in_place_stops_the_run_and_keeps_the_finished_results(env, finished):
    """A good line of the finished run's alpha1 replaced by one with a bad label, in place: the
    raw split is checked in a job of its own, so the ingested alpha1 is not deleted."""
    tsv = env["finished_data"] / ALPHA1
    good = tsv.read_bytes()
    before = snapshot(finished["dir"])
    configfile = write_config(env["tmp"] / "in_place.yaml", finished["config"])
    try:
        set_line(tsv, 3, "C1\tT7\tThe Order of Tidewatchers admits only sailors.\tMAYBE")
        result = snakemake(finished["dir"], env["workflow"], configfile)
        output = result.stdout + result.stderr
        assert result.returncode != 0, output[-3000:]
        assert f"{tsv}:3: label 'MAYBE' is not one of E, N, C" in output
        assert "Error in rule check_infotabs" in output
        assert snapshot(finished["dir"]) == before, "the failed run changed or removed finished results"
        assert (finished["dir"] / "results" / "data" / "alpha1.parquet").is_file()
    finally:
        tsv.write_bytes(good)
    # The same bytes again: the data is what it was, so nothing is left to do.
    again = snakemake(finished["dir"], env["workflow"], configfile, "--dry-run")
    assert "Nothing to be done" in again.stdout + again.stderr, again.stdout[-3000:]


def test_a_copied_finished_run_with_its_data_spelled_another_way_has_nothing_to_do(env, finished, tmp_path):
    """`cp -a` of a finished run to another folder, and the data named by a relative path
    instead of an absolute one: the cache holds, nothing is scheduled."""
    copy = env["tmp"] / "finished_copy"
    shutil.copytree(finished["dir"], copy, symlinks=True)
    try:
        config = dict(finished["config"], infotabs_dir=os.path.relpath(finished["config"]["infotabs_dir"], copy))
        assert not Path(config["infotabs_dir"]).is_absolute()
        result = snakemake(copy, env["workflow"], write_config(tmp_path / "relative.yaml", config), "--dry-run")
        assert result.returncode == 0 and "Nothing to be done" in result.stdout + result.stderr, result.stdout[-3000:]
    finally:
        shutil.rmtree(copy)


def test_the_config_checker_names_the_file_and_line_snakemake_does_not(tmp_path):
    """What docs/configuration.md and docs/bad-input.md tell a user to run when Snakemake says only "not valid JSON or YAML"."""
    bad = tmp_path / "bad.yaml"
    bad.write_text(MALFORMED_YAML)
    command = [sys.executable, "-m", "tabprobe.config", str(ROOT / "config.yaml"), str(bad)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert re.search(
        rf"^{bad}:3:7: not valid YAML: expected ',' or '\]', but got ':' \(while parsing a flow sequence "
        r"opened at line 2, column 9\); fix the syntax there",
        result.stderr,
    ), result.stderr
    # The same checker on files that are valid: merged in order, as Snakemake merges them.
    good = tmp_path / "good.yaml"
    good.write_text("max_examples: 300\n")
    result = subprocess.run(command[:-1] + [str(good)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and "valid" in result.stdout, result.stderr
    # `original` capped below the evidence probes' own caps of config.yaml
    good.write_text("probes:\n  original:\n    max_examples: 20\n")
    result = subprocess.run(command[:-1] + [str(good)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert re.search(
        r"config\.yaml:\d+: config key probes\.evidence_selection\.max_examples: 60 examples need "
        r"original predictions, but `original` is capped at 20",
        result.stderr,
    ), result.stderr


def test_name_patterns_refuse_path_characters():
    """The schema's name rules and the rules' wildcard constraints are the same patterns, and
    no name they allow can leave its folder."""
    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
    assert schema["properties"]["probes"]["propertyNames"]["pattern"] == f"^{PROBE_NAME}$"
    assert schema["properties"]["models"]["propertyNames"]["pattern"] == f"^{MODEL_NAME}$"
    common = (ROOT / "rules" / "common.smk").read_text()
    assert "probe=PROBE_NAME," in common and "model=MODEL_NAME," in common
    for pattern in (PROBE_NAME, MODEL_NAME):
        for name in ["../x", "a/b", "..", ".hidden", "/abs", "a\\b", "", "a b"]:
            assert not re.fullmatch(pattern, name), (pattern, name)
        assert re.fullmatch(pattern, "row_deletion")
    assert re.fullmatch(MODEL_NAME, "minilm-struct") and re.fullmatch(MODEL_NAME, "roberta.large")


def test_a_probe_that_perturbs_no_example_is_a_reported_empty_result(env, tmp_path):
    """Not bad input: a probe whose examples are all skipped (cf_title_swap probes ENTAIL and
    CONTRADICT only; this alpha1 holds NEUTRAL ones only) runs to the end, and the coverage
    file, the scores and the report say it perturbed nothing and why. A split with no examples
    at all is bad input instead (header_only_split above): there the data is broken."""
    root = tmp_path / "infotabs"
    shutil.copytree(env["clean"], root)
    tsv = root / ALPHA1
    tsv.write_text("\n".join(line for line in tsv.read_text().split("\n") if not line.endswith(("\tE", "\tC"))))
    configfile = write_config(
        tmp_path / "run.yaml", base_config(env, root, probes={"original": {}, "cf_title_swap": {}})
    )
    workdir = tmp_path / "run"
    workdir.mkdir()
    result = snakemake(workdir, env["workflow"], configfile)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    coverage = json.loads((workdir / "results" / "probes" / "cf_title_swap" / "alpha1.coverage.json").read_text())
    assert coverage["perturbed"] == 0 and coverage["gold"] == 2
    assert coverage["skipped"] == {"gold label N is not probed": 2}
    scores = pq.read_table(workdir / "results" / "scores" / "tiny" / "cf_title_swap" / "alpha1.parquet").to_pylist()
    assert scores and all(row["n"] == 0 for row in scores)
    report = (workdir / "results" / "report" / "report.md").read_text()
    # Scored on none (n=0), below any minimum: its coverage row says it decides nothing.
    assert (
        "| cf_title_swap | alpha1 | 5 | 2 | 0 | 0: too few examples, decides nothing | 40 | gold label N is not probed: 2 |"
        in report
    )


def test_integer_label_keys_name_the_outputs_through_to_inference(env, finished, tmp_path):
    """Not bad input: `labels: {0: C, 1: N, 2: E}` (YAML's integer keys, the outputs by index, as
    docs/configuration.md allows) is the tiny checkpoint's own order, so the run predicts exactly
    what the finished run (its labels read from the names) predicted. It crashed the config check."""
    config = base_config(env)
    config["models"]["tiny"]["labels"] = {0: "C", 1: "N", 2: "E"}
    configfile = write_config(tmp_path / "run.yaml", config)
    assert "\n      0: C\n" in configfile.read_text()  # an integer key, as a user writes it
    workdir = tmp_path / "run"
    workdir.mkdir()
    result = snakemake(workdir, env["workflow"], configfile)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    columns = ["uid", "pred", "probs"]
    predictions = Path("results") / "predictions" / "tiny" / "original" / "alpha1.parquet"
    mapped = pq.read_table(workdir / predictions, columns=columns)
    assert mapped.num_rows == 5 and mapped.equals(pq.read_table(finished["dir"] / predictions, columns=columns))
