"""Prompted decoder-only language models (Llama-, Qwen-, Mistral-, GPT-2-class), probed with the
same probes as the classifiers.

A causal LM is not asked to generate an answer: each example becomes a prompt (the rendered
table, the hypothesis and a question, after optional k-shot examples), and the model's
log-likelihood of each label's verbaliser ("true", "neither", "false") as the prompt's
continuation is its score for that label, as multiple-choice tasks are scored in
lm-evaluation-harness. A softmax over the three scores gives probabilities over E / N / C that
are written exactly like a classifier's (`schemas.PREDICTIONS`), so scoring, transitions,
verdicts and the report read them unchanged.

Cost: the prompt is run once per example; its key/value cache is shared by the three
continuations, which run only for verbalisers longer than one token (the first token of every
verbaliser is read from the prompt's last position). Batches are padded on the left so every
prompt ends at the last position; explicit position ids keep a padded prompt's numbers those of
the prompt alone. A prompt longer than `max_length` (with its longest verbaliser) loses tokens
from the end of the test example's table, never from the question or the hypothesis; shots whose
tables take more than half of `max_length` lose their last rows once, the same for every example.

The prompts themselves (templates, verbalisers, shots, chat templates) are tabprobe.models.lm_prompts'; the
k-shot examples are chosen by tabprobe.models.shot_selection. A checkpoint is a folder, or one GGUF
file (tabprobe.models.gguf), which loads into the same model and tokenizer classes.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa

from tabprobe import LABELS
from tabprobe.errors import ModelError
from tabprobe.models.checkpoints import context_problems, fingerprint, read_config, require_base
from tabprobe.models.encoding import collate
from tabprobe.models.gguf import is_gguf, load_gguf, read_gguf
from tabprobe.models.inference import predictions_table, run_in_blocks
from tabprobe.models.lm_prompts import CONTENT_FREE, PromptBuilder, Prompting, verbaliser_ids
from tabprobe.models.precision import LoadedModel, pick_device, resolve_precision
from tabprobe.models.premises import prompt_premises

log = logging.getLogger(__name__)


def check_checkpoint(checkpoint: str | Path) -> Path:
    """The folder of a causal-LM checkpoint the jobs would accept as far as its files go:
    safetensors weights, a config.json and a fast tokenizer (tokenizer.json); or its GGUF file, of
    an architecture and tokenizer transformers loads (tabprobe.models.gguf). Nothing is loaded."""
    if is_gguf(checkpoint):
        return read_gguf(checkpoint).path
    path = require_base(str(checkpoint))
    architectures = read_config(path).get("architectures")
    if architectures and not any(a.endswith(("ForCausalLM", "LMHeadModel")) for a in architectures):
        raise ModelError(
            f"{path}: not a causal language model (its config.json names {', '.join(architectures)}); "
            "give a checkpoint saved from a *ForCausalLM model, or use `checkpoint:` for a classifier"
        )
    if not (path / "tokenizer.json").is_file():
        raise ModelError(
            f"{path}: no tokenizer.json. tabprobe needs a fast tokenizer, whose character offsets let it cut an "
            "over-long table and nothing else; save one with tokenizer.save_pretrained(dir)"
        )
    return path


class _TokenizerFile:
    """The checkpoint's tokenizer.json through the tokenizers library, called like a transformers
    tokenizer for what `verbaliser_ids` needs: a config check without importing transformers."""

    def __init__(self, path: Path):
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(path))
        unknown = getattr(self.tokenizer.model, "unk_token", None)
        self.unk_token_id = self.tokenizer.token_to_id(unknown) if unknown else None

    def __call__(self, text: str, add_special_tokens: bool = True) -> dict:
        return {"input_ids": self.tokenizer.encode(text, add_special_tokens=add_special_tokens).ids}


def checkpoint_config(checkpoint: str | Path) -> dict:
    """A checkpoint's settings as config.json gives them (a GGUF file's from its metadata), for
    the config check of max_length against its context window."""
    if is_gguf(checkpoint):
        return read_gguf(checkpoint).model_config()
    return read_config(require_base(str(checkpoint)))


def verbaliser_problems(settings: Mapping) -> list[tuple[list[str], str]]:
    """(key path under `causal`, problem) for verbalisers the checkpoint's tokenizer cannot tell
    apart, found before any job runs (a chat template's prompt ending is left to the job, which
    checks with the real prompt). A GGUF file's tokenizer is built by transformers, too slow to
    import for a config check: its verbalisers are the job's to check, its chat template is here."""
    # The config's `shots` is a count; the shots themselves do not shape the prompt's end.
    prompting = Prompting.from_settings({k: v for k, v in settings.items() if k != "shots"})
    if is_gguf(settings["checkpoint"]):
        if prompting.chat_template and not read_gguf(settings["checkpoint"]).chat_template:
            return [(["chat_template"], "this GGUF file has no chat template (tokenizer.chat_template); set it false")]
        return []
    if prompting.chat_template or sorted(prompting.verbalisers) != sorted(LABELS):
        return []  # a chat template's prompt end is the job's to check; other keys than E, N, C the schema's
    try:
        tokenizer = _TokenizerFile(require_base(str(settings["checkpoint"])) / "tokenizer.json")
    except Exception as err:  # a tokenizer.json the tokenizers library cannot read
        return [(["checkpoint"], f"its tokenizer.json cannot be read ({type(err).__name__}: {err})")]
    try:
        verbaliser_ids(tokenizer, prompting, PromptBuilder(tokenizer, prompting, "para").end)
    except ModelError as err:  # "config key causal.verbalisers[.<label>]: <problem>"
        key, problem = str(err).removeprefix("config key causal.").split(": ", 1)
        return [(key.split("."), problem)]
    return []


def load_causal_lm(checkpoint: str | Path) -> LoadedModel:
    """A local causal-LM checkpoint (safetensors only, never remote code, or a GGUF file) with a
    fast tokenizer."""
    if is_gguf(checkpoint):
        model, tokenizer, path = load_gguf(checkpoint)
        return _loaded(model, tokenizer, path)
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = check_checkpoint(checkpoint)
    try:
        # In fp32, although most released LMs are saved in bf16: `precision` decides the weights
        # inference runs in (precision.LoadedModel.weights_in), so fp32 on a CPU means fp32.
        model, loading = AutoModelForCausalLM.from_pretrained(
            path, use_safetensors=True, trust_remote_code=False, output_loading_info=True, dtype=torch.float32
        )
    except ValueError as err:  # an architecture transformers has no causal-LM class for
        raise ModelError(
            f"{path}: not a causal language model transformers can load without remote code: {err}"
        ) from None
    missing = sorted(loading["missing_keys"]) + sorted(str(k) for k in loading["mismatched_keys"])
    if missing:
        raise ModelError(
            f"{path}: the checkpoint lacks trained weights for {', '.join(missing[:6])}, which would be "
            "initialised at random; give a causal LM saved whole (model.save_pretrained(dir))"
        )
    return _loaded(model, AutoTokenizer.from_pretrained(path, trust_remote_code=False), path)


def _loaded(model, tokenizer, path: Path) -> LoadedModel:
    device = pick_device()
    model.to(device).eval()
    log.info("loaded causal LM %s on %s", path, device)
    return LoadedModel(model, tokenizer, [], fingerprint(path), device, kind="causal", path=Path(path))


def _positions(mask):
    """Position ids of left-padded rows: each prompt counts from 0 at its first real token."""
    return (mask.cumsum(-1) - 1).clamp(min=0)


def label_log_likelihoods(
    model,
    prompts: Sequence[Sequence[int]],
    batches: Sequence[tuple[int, int]],
    continuations: Sequence[Sequence[int]],
    pad_id: int,
    device: str,
    use_cache: bool = True,
) -> np.ndarray:
    """log P(continuation | prompt) for every prompt and label continuation ([n, labels]), batch by
    batch over prompts sorted longest first, left-padded. With `use_cache`, a prompt runs once and
    its cache is shared by the continuations' remaining tokens; without, each label's prompt +
    continuation runs whole (the same numbers, for checking)."""
    import torch

    labels = len(continuations)
    longest = max(len(c) for c in continuations)
    takes = inspect.signature(model.forward).parameters
    keep_last = "logits_to_keep" in takes
    # The key-value cache is `cache` in and out since transformers 5.x (`past_key_values`, its
    # old name, is deprecated and goes in 5.40); older releases know only `past_key_values`.
    cache_name = "cache" if "cache" in takes else "past_key_values"
    on_gpu = device.startswith("cuda")
    # Continuations' tokens as fed (all but the last) and as predicted (all but the first),
    # right-padded: the padding comes after the real tokens, so it changes none of them.
    fed = torch.full((labels, max(longest - 1, 1)), pad_id, dtype=torch.long)
    targets = torch.zeros((labels, longest), dtype=torch.long)
    target_mask = torch.zeros((labels, longest), dtype=torch.bool)
    for j, ids in enumerate(continuations):
        fed[j, : len(ids) - 1] = torch.tensor(ids[:-1], dtype=torch.long)
        targets[j, : len(ids)] = torch.tensor(ids, dtype=torch.long)
        target_mask[j, : len(ids)] = True
    fed_mask = (torch.arange(fed.shape[1])[None, :] < torch.tensor([len(c) - 1 for c in continuations])[:, None]).long()
    targets, target_mask = targets.to(device), target_mask.to(device)
    outputs = []
    with torch.inference_mode():
        for start, stop in batches:
            rows = prompts[start:stop]
            if not use_cache:
                outputs.append(_whole_sequences(model, rows, continuations, pad_id, device))
                continue
            batch = collate([{"input_ids": row} for row in rows], pad_id, pin=on_gpu, left=True)
            ids, mask = (batch[k].to(device, non_blocking=on_gpu) for k in ("input_ids", "attention_mask"))
            positions = _positions(mask)
            extra = {"logits_to_keep": 1} if keep_last else {}
            out = model(input_ids=ids, attention_mask=mask, position_ids=positions, use_cache=longest > 1, **extra)
            first = torch.log_softmax(out.logits[:, -1, :].float(), dim=-1)  # [b, vocab]
            # Each label's first token from the prompt's last position.
            scores = first[:, targets[:, 0]]  # [b, labels]
            if longest > 1:
                b = len(rows)
                cache = getattr(out, cache_name)
                cache.batch_repeat_interleave(labels)
                cont_ids = fed.to(device).repeat(b, 1)  # row i * labels + j: prompt i, label j
                cont_mask = fed_mask.to(device).repeat(b, 1)
                full_mask = torch.cat([mask.repeat_interleave(labels, dim=0), cont_mask], dim=1)
                cont_positions = (
                    positions[:, -1:].repeat_interleave(labels, dim=0)
                    + 1
                    + torch.arange(cont_ids.shape[1], device=device)
                )
                more = model(
                    input_ids=cont_ids, attention_mask=full_mask, position_ids=cont_positions, **{cache_name: cache}
                )
                rest = torch.log_softmax(more.logits.float(), dim=-1)  # [b*labels, fed, vocab]
                picked = rest.gather(-1, targets[:, 1:].repeat(b, 1)[:, : rest.shape[1], None])[..., 0]
                picked = picked * target_mask[:, 1:].repeat(b, 1)[:, : rest.shape[1]]
                scores = scores + picked.sum(-1).view(b, labels)
            outputs.append(scores)
        if not outputs:
            return np.zeros((0, labels), dtype=np.float64)
        return torch.cat(outputs).cpu().numpy().astype(np.float64)


def _whole_sequences(model, rows, continuations, pad_id: int, device: str):
    """log P(continuation | prompt) by running each prompt + continuation whole, left-padded."""
    import torch

    sequences = [list(row) + list(c) for row in rows for c in continuations]
    batch = collate([{"input_ids": seq} for seq in sequences], pad_id, left=True)
    ids, mask = batch["input_ids"].to(device), batch["attention_mask"].to(device)
    width = ids.shape[1]
    logits = model(input_ids=ids, attention_mask=mask, position_ids=_positions(mask), use_cache=False).logits
    logp = torch.log_softmax(logits.float(), dim=-1)
    scores = torch.zeros(len(sequences), dtype=torch.float32, device=device)
    for i in range(len(sequences)):
        n = len(continuations[i % len(continuations)])
        # The token at position p is predicted at position p - 1.
        where = torch.arange(width - n - 1, width - 1, device=device)
        scores[i] = logp[i, where, ids[i, width - n :]].sum()
    return scores.view(len(rows), len(continuations))


def probabilities(log_likelihoods: np.ndarray, priors: np.ndarray | None = None) -> np.ndarray:
    """Probabilities over the labels: a softmax of the continuations' log-likelihoods, divided by
    `priors` (contextual calibration) when given."""
    scores = log_likelihoods - (np.log(priors) if priors is not None else 0.0)
    scores = scores - scores.max(axis=1, keepdims=True)
    exp = np.exp(scores)
    return exp / exp.sum(axis=1, keepdims=True)


def infer(
    probe_examples: pa.Table,
    loaded: LoadedModel,
    premise: str,
    prompt: Mapping,
    batch_size: int = 8,
    max_length: int = 2048,
    precision: str = "auto",
    shard_dir: str | Path | None = None,
    shard_size: int = 512,
    batch_tokens: int | None = None,
    premise_selection: str | None = None,
) -> tuple[pa.Table, dict]:
    """Predictions of a causal LM for every probe example (`schemas.PREDICTIONS`) and run
    statistics, as models.infer gives for a classifier. `prompt`: the config's `causal:` block
    (template, question, verbalisers, chat_template, calibrate) with the shots' examples."""
    for problem in context_problems(loaded.model.config.to_dict(), max_length):
        raise ModelError(f"config key max_length: {problem}")
    prompting = Prompting.from_settings(prompt)
    builder = PromptBuilder(loaded.tokenizer, prompting, premise, max_length, loaded.path)
    continuations = verbaliser_ids(loaded.tokenizer, prompting, builder.end)
    room = max_length - max(len(c) for c in continuations)
    records = probe_examples.select(["table", "hypothesis"]).to_pylist()
    features, truncated = [], 0
    for r, text in zip(records, prompt_premises(records, premise, premise_selection, builder, room)):
        ids, cut = builder.encode(text, r["hypothesis"], room)
        features.append({"input_ids": ids})
        truncated += cut
    if truncated:
        log.info(
            "%d of %d prompts lost the end of their table to fit max_length=%d", truncated, len(records), max_length
        )
    precision = resolve_precision(precision, loaded.device)
    model = loaded.weights_in(precision)
    pad_id = loaded.tokenizer.pad_token_id
    pad_id = pad_id if pad_id is not None else (loaded.tokenizer.eos_token_id or 0)  # masked: any id does
    priors = None
    if prompting.calibrate:
        # Content-free, in the shape of every prompt: a hypothesis-only prompt has no premise.
        free_premise = "" if premise == "hypothesis_only" else CONTENT_FREE
        ids, _ = builder.encode(free_premise, CONTENT_FREE, room)
        free = label_log_likelihoods(model, [ids], [(0, 1)], continuations, pad_id, loaded.device)
        priors = probabilities(free)[0]
        log.info("contextual calibration: label priors E %.3f, N %.3f, C %.3f from a content-free prompt", *priors)

    def compute(block_features, batches):
        prompts = [f["input_ids"] for f in block_features]
        scores = label_log_likelihoods(model, prompts, batches, continuations, pad_id, loaded.device)
        return probabilities(scores, priors).astype(np.float32)

    probs, run = run_in_blocks(
        loaded,
        features,
        compute,
        batch_size=batch_size,
        batch_tokens=batch_tokens,
        shard_dir=shard_dir,
        shard_size=shard_size,
        key_settings={"precision": precision, "continuations": continuations, "priors": _listed(priors)},
    )
    stats = {
        "examples": len(records),
        "truncated": truncated,
        "max_length": max_length,
        "precision": precision,
        "device": loaded.device,
        "causal": {
            "template": prompting.template,
            "question": prompting.question,
            "verbalisers": dict(prompting.verbalisers),
            "verbaliser_tokens": dict(zip(LABELS, continuations)),
            "shots": len(prompting.shots),
            "shot_rows_dropped": builder.shot_rows_dropped,
            "chat_template": prompting.chat_template,
            "calibrated_priors": dict(zip(LABELS, _listed(priors))) if priors is not None else None,
        },
        **run,
    }
    return predictions_table(probe_examples, probs, loaded.fingerprint, features), stats


def _listed(values: np.ndarray | None) -> list[float] | None:
    return None if values is None else [round(float(v), 6) for v in values]
