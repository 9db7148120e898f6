"""Prompted causal LMs (tabprobe.models.causal) on tiny Llama- and GPT-2-shaped models built here:
prompts, verbaliser scoring against a brute-force forward pass, the cache, padding, shots,
truncation, calibration and the config errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import torch
from test_serving import own_servers  # noqa: F401 (a test's own server folder and run, its servers stopped after)
from tiny_causal import HOSTILE_CHAT_TEMPLATE, tiny_causal

from tabprobe import schemas
from tabprobe.config.problems import semantic_problems
from tabprobe.data.infotabs.render import render
from tabprobe.data.infotabs.table import Row, Table
from tabprobe.errors import ModelError, TabprobeError
from tabprobe.models import causal, lm_prompts, serving, shot_selection
from tabprobe.models.predict import load_model

# Verbalisers the tiny tokenizers split into several tokens (the defaults are one token each).
LONG_VERBALISERS = {"E": "entailed", "N": "unknown", "C": "refuted"}


@pytest.fixture(scope="module", params=["llama", "gpt2"])
def lm(request, tmp_path_factory):
    torch.set_num_threads(1)
    path = tiny_causal(tmp_path_factory.mktemp(request.param) / "ckpt", request.param)
    return load_model(path, kind="causal")


def table(n_rows=3, title="Ada Quill"):
    return Table("T1", title, tuple(Row(f"key {i}", (f"value {i}",)) for i in range(n_rows)))


def probe_examples(tables, hypotheses):
    n = len(hypotheses)
    return pa.table(
        {
            "uid": [f"alpha1:{i}" for i in range(n)],
            "orig_uid": [f"alpha1:{i}" for i in range(n)],
            "table_id": ["T1"] * n,
            "hypothesis": hypotheses,
            "label": ["E"] * n,
            "probe": ["original"] * n,
            "table": [t.to_arrow() for t in tables],
            "expected": ["E"] * n,
            "provenance": ["{}"] * n,
        },
        schema=schemas.PROBE_EXAMPLES,
    )


def brute_force(model, prompt_ids, continuation):
    """log P(continuation | prompt) from one forward pass over prompt + continuation, unpadded."""
    ids = torch.tensor([list(prompt_ids) + list(continuation)])
    with torch.no_grad():
        logp = torch.log_softmax(model(input_ids=ids).logits.float(), dim=-1)[0]
    n = len(continuation)
    return sum(float(logp[len(prompt_ids) - 1 + t, continuation[t]]) for t in range(n))


def prompts_for(lm, prompting, hypotheses, rendering="para"):
    builder = lm_prompts.PromptBuilder(lm.tokenizer, prompting, rendering)
    continuations = lm_prompts.verbaliser_ids(lm.tokenizer, prompting, builder.end)
    prompts = [builder.encode(render(table(i + 1), rendering), h, 1000)[0] for i, h in enumerate(hypotheses)]
    return builder, continuations, sorted(prompts, key=len, reverse=True)


HYPOTHESES = ["Ada Quill was born in London.", "Ada Quill is a film.", "The population of Ada is 30,000 people."]


def test_the_default_prompt_holds_table_hypothesis_and_question():
    prompting = lm_prompts.Prompting.from_settings({})
    text, (start, stop) = prompting.fill("The key of T are v.", "T is v.")
    assert text == "The key of T are v.\nQuestion: T is v. True, false, or neither?\nAnswer:"
    assert text[start:stop] == "The key of T are v."
    assert lm_prompts.continuation_text(text, "true") == " true"
    assert lm_prompts.continuation_text("<|assistant|>\n", "true") == "true"


def test_verbaliser_scores_equal_a_brute_force_forward_pass_per_label(lm):
    prompting = lm_prompts.Prompting.from_settings({"verbalisers": LONG_VERBALISERS})
    _, continuations, prompts = prompts_for(lm, prompting, HYPOTHESES)
    assert max(len(c) for c in continuations) > 1  # several tokens: scored as their sum
    scores = causal.label_log_likelihoods(lm.model, prompts, [(0, 3)], continuations, 0, "cpu")
    expected = [[brute_force(lm.model, p, c) for c in continuations] for p in prompts]
    np.testing.assert_allclose(scores, expected, atol=1e-4)


def test_the_shared_cache_gives_the_numbers_of_running_each_label_whole(lm):
    prompting = lm_prompts.Prompting.from_settings({"verbalisers": LONG_VERBALISERS})
    _, continuations, prompts = prompts_for(lm, prompting, HYPOTHESES)
    cached = causal.label_log_likelihoods(lm.model, prompts, [(0, 3)], continuations, 0, "cpu", use_cache=True)
    whole = causal.label_log_likelihoods(lm.model, prompts, [(0, 3)], continuations, 0, "cpu", use_cache=False)
    np.testing.assert_allclose(cached, whole, atol=1e-5)


def test_left_padding_does_not_change_a_score(lm):
    prompting = lm_prompts.Prompting.from_settings({"verbalisers": LONG_VERBALISERS})
    _, continuations, prompts = prompts_for(lm, prompting, HYPOTHESES)
    assert len({len(p) for p in prompts}) == 3  # so the batch pads the shorter two
    batched = causal.label_log_likelihoods(lm.model, prompts, [(0, 3)], continuations, 0, "cpu")
    alone = causal.label_log_likelihoods(lm.model, prompts, [(0, 1), (1, 2), (2, 3)], continuations, 0, "cpu")
    np.testing.assert_allclose(batched, alone, atol=1e-5)


def test_infer_writes_predictions_like_a_classifiers(lm):
    examples = probe_examples([table(2), table(5), table(9)], HYPOTHESES)
    predictions, stats = causal.infer(examples, lm, "markdown", {}, batch_size=2, max_length=512, precision="fp32")
    assert predictions.schema.equals(schemas.PREDICTIONS)
    probs = np.array(predictions["probs"].to_pylist())
    assert np.allclose(probs.sum(axis=1), 1.0, atol=1e-5)
    assert predictions["pred"].to_pylist() == ["ENC"[i] for i in probs.argmax(axis=1)]
    assert stats["causal"]["verbalisers"] == {"E": "true", "N": "neither", "C": "false"}
    assert stats["truncated"] == 0 and stats["batches"] == 2
    # The probabilities are the softmax of the brute-force label scores.
    builder = lm_prompts.PromptBuilder(lm.tokenizer, lm_prompts.Prompting.from_settings({}), "markdown")
    continuations = lm_prompts.verbaliser_ids(lm.tokenizer, lm_prompts.Prompting.from_settings({}), builder.end)
    ids, _ = builder.encode(render(table(5), "markdown"), HYPOTHESES[1], 500)
    expected = causal.probabilities(np.array([[brute_force(lm.model, ids, c) for c in continuations]]))[0]
    np.testing.assert_allclose(probs[1], expected, atol=1e-4)
    again, _ = causal.infer(examples, lm, "markdown", {}, batch_size=3, max_length=512, precision="fp32")
    np.testing.assert_allclose(np.array(again["probs"].to_pylist()), probs, atol=1e-5)


def test_an_over_long_prompt_loses_the_end_of_its_table_only(lm):
    prompting = lm_prompts.Prompting.from_settings({})
    builder = lm_prompts.PromptBuilder(lm.tokenizer, prompting, "para")
    premise = render(table(40), "para")
    whole, cut = builder.encode(premise, HYPOTHESES[0], 10_000)
    assert not cut
    short, cut = builder.encode(premise, HYPOTHESES[0], 120)
    assert cut and len(short) == 120
    # What follows the table (hypothesis, question, answer cue) is kept whole, and the table's start.
    assert short[-25:] == whole[-25:] and short[:60] == whole[:60]
    decoded = lm.tokenizer.decode(short)
    assert "Question: Ada Quill was born in London. True, false, or neither?" in decoded
    assert "key 39" not in decoded and "key 0" in decoded
    examples = probe_examples([table(40), table(1)], HYPOTHESES[:2])
    _, stats = causal.infer(examples, lm, "para", {}, batch_size=2, max_length=120, precision="fp32")
    assert stats["truncated"] == 1


def test_a_prompt_too_long_even_without_its_table_is_a_clear_error(lm):
    builder = lm_prompts.PromptBuilder(lm.tokenizer, lm_prompts.Prompting.from_settings({}), "para")
    with pytest.raises(ModelError, match="do not hold this prompt even without its table"):
        builder.encode(render(table(3), "para"), "Ada Quill " * 40, 30)


def test_shots_precede_the_prompt_and_answer_with_their_verbaliser(lm):
    shots = [
        {"table": table(1, "Bob").to_arrow(), "hypothesis": "Bob is tall.", "label": "E"},
        {"table": table(1, "Cy").to_arrow(), "hypothesis": "Cy is short.", "label": "C"},
    ]
    prompting = lm_prompts.Prompting.from_settings({"shots": shots})
    builder = lm_prompts.PromptBuilder(lm.tokenizer, prompting, "para")
    text, (start, stop) = builder.text("The key of Ada are v.", "Ada is v.")
    assert text.startswith(
        "The key 0 of Bob are value 0.\nQuestion: Bob is tall. True, false, or neither?\nAnswer: true\n\n"
    )
    assert "Cy is short. True, false, or neither?\nAnswer: false\n\nThe key of Ada are v." in text
    assert text[start:stop] == "The key of Ada are v." and text.endswith("Answer:")


def test_the_chat_template_wraps_shots_as_turns(tmp_path):
    lm = load_model(tiny_causal(tmp_path / "llama", "llama"), kind="causal")
    shots = [{"table": table(1, "Bob").to_arrow(), "hypothesis": "Bob is tall.", "label": "N"}]
    prompting = lm_prompts.Prompting.from_settings({"shots": shots, "chat_template": True})
    builder = lm_prompts.PromptBuilder(lm.tokenizer, prompting, "para")
    text, (start, stop) = builder.text("The key of Ada are v.", "Ada is v.")
    assert text.startswith("<s><|user|>\nThe key 0 of Bob are value 0.")
    assert "<|assistant|>\nneither\n<|user|>\nThe key of Ada are v." in text and text.endswith("<|assistant|>\n")
    assert text[start:stop] == "The key of Ada are v."
    ids, _ = builder.encode("The key of Ada are v.", "Ada is v.", 1000)
    assert ids.count(lm.tokenizer.bos_token_id) == 1  # the template's <s>, not one more from the tokenizer


def test_a_chat_template_the_tokenizer_lacks_is_a_config_error(tmp_path):
    lm = load_model(tiny_causal(tmp_path / "gpt2", "gpt2"), kind="causal")
    with pytest.raises(ModelError, match="config key causal.chat_template: .* has no chat template"):
        lm_prompts.PromptBuilder(lm.tokenizer, lm_prompts.Prompting.from_settings({"chat_template": True}), "para")


def test_shots_are_seeded_label_balanced_and_from_train():
    rows = [("T1", f"h{i}", "ENC"[i % 3]) for i in range(30)]
    examples = pa.table(
        {
            "uid": [f"train:{i}" for i in range(30)],
            "table_id": [r[0] for r in rows],
            "hypothesis": [r[1] for r in rows],
            "label": [r[2] for r in rows],
        },
        schema=schemas.EXAMPLES,
    )
    tables = pa.Table.from_pylist([table(2).to_arrow()], schema=schemas.TABLES)
    first = shot_selection.choose_shots(examples, tables, 5, seed=3)
    assert [s["label"] for s in first] == ["E", "N", "C", "E", "N"]
    assert first == shot_selection.choose_shots(examples, tables, 5, seed=3)
    assert first != shot_selection.choose_shots(examples, tables, 5, seed=4)
    assert all(s["table"]["title"] == "Ada Quill" for s in first)
    assert shot_selection.choose_shots(examples, tables, 0, seed=3) == []
    with pytest.raises(ModelError, match="only 10 E examples for 31 shots"):
        shot_selection.choose_shots(examples, tables, 31, seed=3)


def test_contextual_calibration_divides_by_the_content_free_priors(lm):
    examples = probe_examples([table(2), table(3)], HYPOTHESES[:2])
    plain, _ = causal.infer(examples, lm, "para", {}, batch_size=2, max_length=512, precision="fp32")
    calibrated, stats = causal.infer(
        examples, lm, "para", {"calibrate": True}, batch_size=2, max_length=512, precision="fp32"
    )
    priors = np.array([stats["causal"]["calibrated_priors"][label] for label in "ENC"])
    assert abs(priors.sum() - 1) < 1e-4
    raw = np.array(plain["probs"].to_pylist())
    expected = raw / priors
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(np.array(calibrated["probs"].to_pylist()), expected, atol=1e-4)


def test_verbalisers_the_tokenizer_cannot_tell_apart_are_a_config_error(tmp_path):
    path = tiny_causal(tmp_path / "llama", "llama")
    lm = load_model(path, kind="causal")
    # Characters the tiny tokenizer never saw both read as its unknown token.
    same = {"E": "§", "N": "neither", "C": "¤"}
    prompting = lm_prompts.Prompting.from_settings({"verbalisers": same})
    with pytest.raises(ModelError, match=r"config key causal.verbalisers: E \('§'\) and C \('¤'\) are the same tokens"):
        lm_prompts.verbaliser_ids(lm.tokenizer, prompting, "Answer:")
    # ... and found from config, before any job runs.
    config = {
        "models": {"lm": {"causal": {"checkpoint": str(path), "verbalisers": same}, "premise": "para"}},
        "probes": {"original": {}},
        "splits": ["alpha1"],
    }
    problems = semantic_problems(config)
    assert any(p.startswith("config key models.lm.causal.verbalisers: E ('§') and C ('¤')") for p in problems), problems


def test_config_checks_the_template_checkpoint_and_model_kind(tmp_path):
    path = tiny_causal(tmp_path / "gpt2", "gpt2")

    def problems(causal_block, **model):
        config = {
            "models": {"lm": {"causal": causal_block, "premise": "para", **model}},
            "probes": {"original": {}},
            "splits": ["alpha1"],
            "inoculation": {"model": "lm"},
        }
        return semantic_problems(config)

    found = problems({"checkpoint": str(path), "template": "{premise} {hypotesis}"})
    assert (
        "config key models.lm.causal.template: {hypotesis} is not a field (known: {premise}, {hypothesis}, {question})"
        in found
    )
    assert "config key models.lm.causal.template: it has no {hypothesis}" in found
    assert any("inoculation.model: lm is a prompted causal LM" in p for p in found)
    (path / "tokenizer.json").unlink()
    assert any(
        "models.lm.causal.checkpoint" in p and "no tokenizer files" in p for p in problems({"checkpoint": str(path)})
    )
    assert any("give exactly one of" in p for p in problems({"checkpoint": str(path)}, checkpoint=str(path)))


def test_a_classifier_checkpoint_is_not_a_causal_lm(tmp_path):
    from tiny_bert import tiny_bert

    path = tiny_bert(tmp_path / "bert", head=True)
    with pytest.raises(ModelError, match="not a causal language model"):
        load_model(path, kind="causal")


def test_the_markdown_rendering_is_a_table_under_the_title():
    t = Table("T1", "Ada | Quill", (Row("born", ("1 May 1900", "London")), Row("a|b", ("x",))))
    assert render(t, "markdown") == (
        "Ada | Quill\n| key | value |\n| --- | --- |\n| born | 1 May 1900, London |\n| a\\|b | x |"
    )


def test_shots_reach_the_job_through_its_shots_file(tmp_path, lm):
    from tabprobe.models.predict import infer_nli

    shots = [{"table": table(1, "Bob").to_arrow(), "hypothesis": "Bob is tall.", "label": "E", "uid": "train:1"}]
    shots_file = tmp_path / "shots.json"
    shots_file.write_text(json.dumps(shots))
    probe = tmp_path / "probe.parquet"
    pq.write_table(probe_examples([table(2)], HYPOTHESES[:1]), probe)
    checkpoint = Path(lm.model.name_or_path)
    infer_nli(
        str(probe),
        str(checkpoint),
        str(tmp_path / "p.parquet"),
        str(tmp_path / "s.json"),
        "para",
        prompt={"verbalisers": {"E": "true", "N": "neither", "C": "false"}},
        shots=str(shots_file),
    )
    stats = json.loads((tmp_path / "s.json").read_text())
    assert stats["causal"]["shots"] == 1


def test_a_verbaliser_with_a_token_the_tokenizer_does_not_know_is_a_config_error(tmp_path):
    path = tiny_causal(tmp_path / "llama", "llama")
    config = {
        "models": {
            "lm": {
                "causal": {"checkpoint": str(path), "verbalisers": {"E": "§", "N": "neither", "C": "false"}},
                "premise": "para",
            }
        },
        "probes": {"original": {}},
        "splits": ["alpha1"],
    }
    problems = semantic_problems(config)
    assert any(
        p.startswith("config key models.lm.causal.verbalisers.E: '§' contains a token this tokenizer does not know")
        for p in problems
    ), problems


def test_a_damaged_tokenizer_file_is_a_config_error_naming_the_checkpoint(tmp_path):
    path = tiny_causal(tmp_path / "llama", "llama")
    (path / "tokenizer.json").write_text('{"version": "1.0", "model": ')  # cut off mid-write
    config = {
        "models": {"lm": {"causal": {"checkpoint": str(path)}, "premise": "para"}},
        "probes": {"original": {}},
        "splits": ["alpha1"],
    }
    problems = semantic_problems(config)
    assert any(
        p.startswith("config key models.lm.causal.checkpoint: its tokenizer.json cannot be read") for p in problems
    ), problems


def test_a_checkpoint_saved_in_bf16_runs_in_the_precision_asked_for(tmp_path):
    """Most released LMs are saved in bf16; precision fp32 (a CPU's auto) must still mean fp32."""
    path = tiny_causal(tmp_path / "llama", "llama")
    saved_fp32 = load_model(path, kind="causal")
    saved_fp32.model.to(torch.bfloat16).save_pretrained(path)
    lm = load_model(path, kind="causal")
    assert lm.model.dtype == torch.float32 and lm.weights_in("bf16").dtype == torch.bfloat16
    examples = probe_examples([table(2)], HYPOTHESES[:1])
    predictions, stats = causal.infer(examples, lm, "para", {}, batch_size=1, max_length=256, precision="fp32")
    assert stats["precision"] == "fp32"
    # The bf16 weights, upcast exactly: fp32 arithmetic on them, not bf16's.
    upcast = {name: p.to(torch.bfloat16).float() for name, p in saved_fp32.model.state_dict().items()}
    assert all(torch.equal(p, upcast[name]) for name, p in lm.model.state_dict().items())


def test_a_tokenizer_that_appends_an_eos_does_not_end_the_prompt_with_it(tmp_path):
    from tokenizers import processors

    path = tiny_causal(tmp_path / "llama", "llama")
    plain, appending = load_model(path, kind="causal"), load_model(path, kind="causal")
    bos, eos = appending.tokenizer.bos_token, appending.tokenizer.eos_token
    appending.tokenizer._tokenizer.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A {eos}",
        special_tokens=[(bos, appending.tokenizer.bos_token_id), (eos, appending.tokenizer.eos_token_id)],
    )
    assert appending.tokenizer("Answer")["input_ids"][-1] == appending.tokenizer.eos_token_id
    builders = [
        lm_prompts.PromptBuilder(m.tokenizer, lm_prompts.Prompting.from_settings({}), "para")
        for m in (plain, appending)
    ]
    encoded = [b.encode(render(table(2), "para"), HYPOTHESES[0], 1000)[0] for b in builders]
    assert encoded[0] == encoded[1] and encoded[1][0] == plain.tokenizer.bos_token_id
    assert appending.tokenizer.eos_token_id not in encoded[1]


def test_a_chat_template_that_writes_the_date_gets_a_fixed_one(tmp_path):
    lm = load_model(tiny_causal(tmp_path / "llama", "llama"), kind="causal")
    own = lm.tokenizer.chat_template
    # As Llama 3.x's templates write their system turn's date.
    lm.tokenizer.chat_template = (
        "{%- if not date_string is defined %}{%- set date_string = strftime_now('%d %b %Y') %}{%- endif %}"
        "Today Date: {{ date_string }}\n" + own
    )
    prompting = lm_prompts.Prompting.from_settings({"chat_template": True})
    text, _ = lm_prompts.PromptBuilder(lm.tokenizer, prompting, "para").text("The key of Ada are v.", "Ada is v.")
    assert text.startswith(f"Today Date: {lm_prompts.CHAT_DATE}\n")
    # A template that takes no date from outside would change its prompts every day.
    lm.tokenizer.chat_template = "{{ strftime_now('%d %b %Y') }}" + own
    with pytest.raises(ModelError, match=r"config key causal.chat_template: .*writes today's date"):
        lm_prompts.PromptBuilder(lm.tokenizer, prompting, "para")


def test_a_max_length_past_the_context_window_is_a_config_error(tmp_path):
    path = tiny_causal(tmp_path / "gpt2", "gpt2")
    window = json.loads((path / "config.json").read_text())["n_positions"]
    config = {
        "models": {"lm": {"causal": {"checkpoint": str(path)}, "premise": "para", "max_length": window + 1}},
        "probes": {"original": {}},
        "splits": ["alpha1"],
    }
    assert f"config key models.lm.max_length: {window + 1} tokens are more than this model's context window" in (
        "\n".join(semantic_problems(config))
    )
    config["models"]["lm"]["max_length"] = window
    assert not [p for p in semantic_problems(config) if "context window" in p]
    # The job refuses it too (a config checked by an older version, or the library called directly).
    lm = load_model(path, kind="causal")
    with pytest.raises(ModelError, match="config key max_length: .* context window"):
        causal.infer(probe_examples([table(2)], HYPOTHESES[:1]), lm, "para", {}, max_length=window + 1)


def test_a_hypothesis_only_prompt_starts_with_its_question():
    prompting = lm_prompts.Prompting.from_settings({})
    text, (start, stop) = prompting.fill("", "T is v.")
    assert text == "Question: T is v. True, false, or neither?\nAnswer:" and start == stop == 0


def test_a_verbaliser_key_other_than_ENC_is_named_once_and_the_tokenizer_is_not_blamed(tmp_path):
    """`X` for `C`: the schema names the stray and the missing key; the tokenizer, which reads
    fine, is not said to be unreadable (it once was, from a KeyError on the missing label)."""
    from tabprobe.config import SCHEMA, ConfigError, check, load_files

    path = tiny_causal(tmp_path / "llama", "llama")
    config = load_files([Path(__file__).resolve().parents[1] / "config.yaml"])
    config["models"] = {
        "lm": {
            "causal": {"checkpoint": str(path), "verbalisers": {"E": "true", "N": "neither", "X": "false"}},
            "premise": "para",
        }
    }
    config["inoculation"] = config["controlled_variance"] = None
    with pytest.raises(ConfigError) as raised:
        check(config, SCHEMA)
    message = str(raised.value)
    assert "config key models.lm.causal.verbalisers: unknown key(s) 'X'" in message, message
    assert "'C' is a required property" in message, message
    assert "tokenizer" not in message, message


@pytest.mark.usefixtures("own_servers")
@pytest.mark.parametrize("server", ["1", "0"])
def test_a_chat_template_the_sandbox_refuses_names_its_file_and_the_fix(tmp_path, monkeypatch, server):
    """On the model server and without it (TABPROBE_MODEL_SERVER=0): not a bare SecurityError,
    but the file the template came from and the config key that turns it off."""
    from transformers import AutoTokenizer

    from tabprobe.models.predict import infer_nli

    path = tiny_causal(tmp_path / "llama", "llama")
    tokenizer = AutoTokenizer.from_pretrained(path)
    tokenizer.chat_template = HOSTILE_CHAT_TEMPLATE
    tokenizer.save_pretrained(path)
    probe, out = tmp_path / "probe.parquet", tmp_path / "p.parquet"
    pq.write_table(probe_examples([table(2)], HYPOTHESES[:1]), probe)
    monkeypatch.setenv(serving.SWITCH, server)
    with pytest.raises(TabprobeError) as caught:
        infer_nli(
            str(probe),
            str(path),
            str(out),
            str(out) + ".json",
            "para",
            prompt={"chat_template": True},
            use_server=serving.enabled(),
            server_log=str(tmp_path / "server.log"),
        )
    message = str(caught.value)
    told = (
        f"config key causal.chat_template: the chat template of {path / 'chat_template.jinja'} does something "
        "Jinja's sandbox refuses (SecurityError: access to attribute '__class__' of 'str' object is unsafe.), so no "
        "prompt can be written with it; set `causal.chat_template: false` for this model in config"
    )
    if server == "1":
        assert isinstance(caught.value, serving.ServerError)
        assert message.startswith(f"the model server failed this job (its log has the traceback): {told}"), message
    else:
        assert isinstance(caught.value, ModelError) and message.startswith(told), message
    assert not out.exists()
