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
"""

from __future__ import annotations

import inspect
import json
import logging
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from . import LABELS
from .encoding import collate
from .errors import ModelError
from .models import (
    LoadedModel,
    context_problems,
    fingerprint,
    pick_device,
    predictions_table,
    read_config,
    require_base,
    resolve_precision,
    run_in_blocks,
)
from .render import render
from .seeding import seeded_rng
from .table import Table

log = logging.getLogger(__name__)

# lm-evaluation-harness's prompt for NLI tasks (ANLI, RTE), with the table as the premise.
DEFAULT_TEMPLATE = "{premise}\nQuestion: {hypothesis} {question}\nAnswer:"
DEFAULT_QUESTION = "True, false, or neither?"
DEFAULT_VERBALISERS = {"E": "true", "N": "neither", "C": "false"}
TEMPLATE_FIELDS = ("premise", "hypothesis", "question")
# Contextual calibration's content-free input (Zhao et al., 2021): the label priors the model
# gives a prompt with nothing in it.
CONTENT_FREE = "N/A"
# Between two shots, and between the shots and the test prompt.
SHOT_SEPARATOR = "\n\n"
# The date a chat template that would write today's gets (Llama 3.1's own default date_string).
CHAT_DATE = "26 Jul 2024"


def template_problems(template: str) -> list[str]:
    """What is wrong with a prompt template: fields other than {premise}, {hypothesis} and
    {question}, no {hypothesis}, or a field given twice. Empty when it is usable."""
    try:
        fields = [name for _, name, _, _ in string.Formatter().parse(template) if name is not None]
    except ValueError as err:
        return [f"it is not a format string ({err}); write a literal brace as {{{{ or }}}}"]
    problems = [
        f"{{{name}}} is not a field (known: {', '.join('{' + f + '}' for f in TEMPLATE_FIELDS)})"
        for name in dict.fromkeys(fields)
        if name not in TEMPLATE_FIELDS
    ]
    if "hypothesis" not in fields:
        problems.append("it has no {hypothesis}")
    problems += [f"{{{name}}} appears {fields.count(name)} times" for name in TEMPLATE_FIELDS if fields.count(name) > 1]
    return problems


@dataclass(frozen=True)
class Prompting:
    """How examples become prompts and labels become continuations (the config's `causal:` block)."""

    template: str = DEFAULT_TEMPLATE
    question: str = DEFAULT_QUESTION
    verbalisers: Mapping[str, str] = None  # E / N / C -> text
    shots: tuple = ()  # ({"table": ..., "hypothesis": ..., "label": ...}, ...), in prompt order
    chat_template: bool = False
    calibrate: bool = False

    @classmethod
    def from_settings(cls, settings: Mapping) -> Prompting:
        return cls(
            template=settings.get("template") or DEFAULT_TEMPLATE,
            question=settings.get("question", DEFAULT_QUESTION),
            verbalisers=dict(settings.get("verbalisers") or DEFAULT_VERBALISERS),
            shots=tuple(settings.get("shots") or ()),
            chat_template=bool(settings.get("chat_template")),
            calibrate=bool(settings.get("calibrate")),
        )

    def fill(self, premise: str, hypothesis: str) -> tuple[str, tuple[int, int]]:
        """One example's prompt text and the span of its premise in it."""
        marker = "\x00"  # never in a rendered table or a hypothesis (InfoTabS text is printable)
        text = self.template.format(premise=marker, hypothesis=hypothesis, question=self.question).strip()
        at = text.find(marker)
        if at < 0:  # a template without {premise}: a hypothesis-only prompt
            return text, (len(text), len(text))
        # An empty premise (the hypothesis_only rendering) leaves no blank line at the start.
        filled = text.replace(marker, premise)
        kept = filled.lstrip()
        start = max(0, at - (len(filled) - len(kept)))
        return kept.rstrip(), (start, start + len(premise))


def check_checkpoint(checkpoint: str | Path) -> Path:
    """The folder of a causal-LM checkpoint the jobs would accept as far as its files go:
    safetensors weights, a config.json and a fast tokenizer (tokenizer.json). Nothing is loaded."""
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


def verbaliser_problems(settings: Mapping) -> list[tuple[list[str], str]]:
    """(key path under `causal`, problem) for verbalisers the checkpoint's tokenizer cannot tell
    apart, found before any job runs (a chat template's prompt ending is left to the job, which
    checks with the real prompt)."""
    # The config's `shots` is a count; the shots themselves do not shape the prompt's end.
    prompting = Prompting.from_settings({k: v for k, v in settings.items() if k != "shots"})
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
    """A local causal-LM checkpoint (safetensors only, never remote code) with a fast tokenizer."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = check_checkpoint(checkpoint)
    try:
        # In fp32, although most released LMs are saved in bf16: `precision` decides the weights
        # inference runs in (models.LoadedModel.weights_in), so fp32 on a CPU means fp32.
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
    tokenizer = AutoTokenizer.from_pretrained(path, trust_remote_code=False)
    device = pick_device()
    model.to(device).eval()
    log.info("loaded causal LM %s on %s", path, device)
    return LoadedModel(model, tokenizer, [], fingerprint(path), device, kind="causal")


def continuation_text(prompt: str, verbaliser: str) -> str:
    """What follows the prompt for a label: the verbaliser after one space, unless the prompt
    already ends in whitespace (a chat template's assistant turn ends in a newline)."""
    return verbaliser if not prompt or prompt[-1].isspace() else " " + verbaliser


def verbaliser_ids(tokenizer, prompting: Prompting, prompt_end: str) -> list[list[int]]:
    """The token ids of each label's continuation, in E, N, C order, as they follow a prompt
    ending in `prompt_end`: the tokens of prompt_end + continuation past those of prompt_end
    alone. Raises ModelError (naming the config key) when a verbaliser has no tokens of its own or
    two labels' continuations are the same tokens."""
    base = tokenizer(prompt_end, add_special_tokens=False)["input_ids"]
    ids = {}
    for label in LABELS:
        text = prompting.verbalisers[label]
        whole = tokenizer(prompt_end + continuation_text(prompt_end, text), add_special_tokens=False)["input_ids"]
        # A merge across the boundary would change the prompt's own tokens: then take the
        # continuation's tokens alone.
        own = (
            whole[len(base) :]
            if whole[: len(base)] == base
            else tokenizer(continuation_text(prompt_end, text), add_special_tokens=False)["input_ids"]
        )
        if not own:
            raise ModelError(f"config key causal.verbalisers.{label}: {text!r} has no tokens of its own")
        ids[label] = own
    for i, first in enumerate(LABELS):
        for second in LABELS[i + 1 :]:
            if ids[first] == ids[second]:
                raise ModelError(
                    f"config key causal.verbalisers: {first} ({prompting.verbalisers[first]!r}) and {second} "
                    f"({prompting.verbalisers[second]!r}) are the same tokens {ids[first]} for this tokenizer, "
                    "so the model could never tell them apart; give distinct verbalisers"
                )
    unknown = tokenizer.unk_token_id
    for label in LABELS:
        if unknown is not None and unknown in ids[label]:
            raise ModelError(
                f"config key causal.verbalisers.{label}: {prompting.verbalisers[label]!r} contains a token this "
                "tokenizer does not know (it reads as unknown); give a verbaliser in its vocabulary"
            )
    return [ids[label] for label in LABELS]


def _chat(tokenizer, messages: list[dict]) -> str:
    # Llama 3.x's templates write today's date into the system turn unless given `date_string`:
    # they get a fixed one, as the same config must give the same prompts on any day (and a run
    # across midnight must not give `original` and a probe different prompts).
    return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True, date_string=CHAT_DATE)


def _check_chat_template(tokenizer) -> None:
    template = getattr(tokenizer, "chat_template", None)
    if not template:
        raise ModelError(
            "config key causal.chat_template: this checkpoint's tokenizer has no chat template; set it false"
        )
    if not isinstance(template, str):  # several named templates: transformers picks "default"
        template = str(template)
    if "strftime_now" in template and "date_string" not in template:
        raise ModelError(
            "config key causal.chat_template: this checkpoint's chat template writes today's date into every "
            "prompt (strftime_now), so its numbers would change from day to day; set chat_template false, or "
            "save the tokenizer with a chat template that takes the date as `date_string`"
        )


def _leading_special_ids(tokenizer) -> list[int]:
    """The special tokens the tokenizer puts before a text (a BOS), without any it puts after it
    (an EOS, from `add_eos_token`): a prompt must end in its own last token, which the
    verbalisers' tokens follow."""
    bare = tokenizer("Answer", add_special_tokens=False)["input_ids"]
    whole = tokenizer("Answer")["input_ids"]
    for start in range(len(whole) - len(bare) + 1):
        if whole[start : start + len(bare)] == bare:
            return whole[:start]
    return []


class PromptBuilder:
    """Prompts for one model: shots first, then the test example, as plain text or through the
    tokenizer's chat template (each shot a user turn answered by its verbaliser)."""

    def __init__(self, tokenizer, prompting: Prompting, rendering: str, max_tokens: int | None = None):
        if prompting.chat_template:
            _check_chat_template(tokenizer)
        self.tokenizer = tokenizer
        self.prompting = prompting
        self.rendering = rendering
        # A chat template writes its own special tokens into the text.
        self.leading_ids = [] if prompting.chat_template else _leading_special_ids(tokenizer)
        self.shot_tables = [Table.from_arrow(shot["table"]) for shot in prompting.shots]
        self.shot_rows_dropped = 0
        self._fill_shots()
        # The shots take at most half of the prompt, so that the test example's table, the one
        # the probes change, keeps the other half: the longest shot table loses its last row
        # until they fit. Done once, so every example of every probe sees the same shots.
        while max_tokens and self.shot_tokens() > max_tokens // 2 and any(t.rows for t in self.shot_tables):
            longest = max(range(len(self.shot_tables)), key=lambda i: (len(self.shot_tables[i].rows), -i))
            self.shot_tables[longest] = self.shot_tables[longest].with_rows(self.shot_tables[longest].rows[:-1])
            self.shot_rows_dropped += 1
            self._fill_shots()
        if self.shot_rows_dropped:
            log.info("the shots' tables lost %d rows to fit half of max_length", self.shot_rows_dropped)

    def _fill_shots(self) -> None:
        self.shot_turns = []
        for shot, shot_table in zip(self.prompting.shots, self.shot_tables):
            text, _ = self.prompting.fill(render(shot_table, self.rendering), shot["hypothesis"])
            self.shot_turns.append((text, self.prompting.verbalisers[shot["label"]]))
        # Plain prompts: the shots' text is the same before every test example.
        self.shot_prefix = "".join(
            text + continuation_text(text, answer) + SHOT_SEPARATOR for text, answer in self.shot_turns
        )

    def shot_tokens(self) -> int:
        return len(self.tokenizer(self.shot_prefix, add_special_tokens=False)["input_ids"])

    @property
    def end(self) -> str:
        """How every prompt ends (the same for all), which the verbalisers' tokens follow."""
        return self.text(CONTENT_FREE, CONTENT_FREE)[0][-32:]

    def text(self, premise: str, hypothesis: str) -> tuple[str, tuple[int, int]]:
        """A whole prompt and the span of the test example's premise in it."""
        test, (start, stop) = self.prompting.fill(premise, hypothesis)
        if not self.prompting.chat_template:
            offset = len(self.shot_prefix)
            return self.shot_prefix + test, (offset + start, offset + stop)
        messages = []
        for shot_text, answer in self.shot_turns:
            messages += [{"role": "user", "content": shot_text}, {"role": "assistant", "content": answer}]
        whole = _chat(self.tokenizer, messages + [{"role": "user", "content": test}])
        offset = whole.rfind(test)
        if offset < 0:
            raise ModelError(
                "config key causal.chat_template: the tokenizer's chat template changes the prompt's text, so "
                "the table's place in it cannot be found; set chat_template false"
            )
        return whole, (offset + start, offset + stop)

    def encode(self, premise: str, hypothesis: str, max_tokens: int) -> tuple[list[int], bool]:
        """Token ids of a prompt, at most `max_tokens` long: over-long prompts lose tokens from the
        end of the test example's table. (ids, whether it was cut)."""
        text, (start, stop) = self.text(premise, hypothesis)
        encoded = self.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        ids = self.leading_ids + encoded["input_ids"]
        offsets = [(0, 0)] * len(self.leading_ids) + encoded["offset_mapping"]
        excess = len(ids) - max_tokens
        if excess <= 0:
            return ids, False
        in_table = [i for i, (a, b) in enumerate(offsets) if b > a and a >= start and b <= stop]
        if len(in_table) < excess:
            raise ModelError(
                f"config key max_length: {max_tokens} tokens (max_length less the longest verbaliser) do not hold "
                "this prompt even without its table "
                f"({len(ids) - len(in_table)} tokens of shots, question and hypothesis: {hypothesis!r}); raise "
                "max_length or use fewer shots"
            )
        dropped = set(in_table[len(in_table) - excess :])
        return [t for i, t in enumerate(ids) if i not in dropped], True


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
) -> tuple[pa.Table, dict]:
    """Predictions of a causal LM for every probe example (`schemas.PREDICTIONS`) and run
    statistics, as models.infer gives for a classifier. `prompt`: the config's `causal:` block
    (template, question, verbalisers, chat_template, calibrate) with the shots' examples."""
    for problem in context_problems(loaded.model.config.to_dict(), max_length):
        raise ModelError(f"config key max_length: {problem}")
    prompting = Prompting.from_settings(prompt)
    builder = PromptBuilder(loaded.tokenizer, prompting, premise, max_length)
    continuations = verbaliser_ids(loaded.tokenizer, prompting, builder.end)
    room = max_length - max(len(c) for c in continuations)
    records = probe_examples.select(["table", "hypothesis"]).to_pylist()
    features, truncated = [], 0
    for r in records:
        ids, cut = builder.encode(render(Table.from_arrow(r["table"]), premise), r["hypothesis"], room)
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


def select_shots(examples: pa.Table, tables: pa.Table, k: int, seed: int) -> list[dict]:
    """`k` training examples for a k-shot prompt, seeded: the labels take turns (E, N, C, E, ...)
    so that no label is favoured by the shots alone, and within a label the examples are a seeded
    random draw. The same for every probe, so each probe's comparison with `original` stays
    paired. Each shot: uid, table (as in probe examples), hypothesis, label."""
    if k == 0:
        return []
    by_id = {t["table_id"]: t for t in tables.to_pylist()}
    rows = examples.to_pylist()
    rng = seeded_rng(seed, "causal-shots")
    pools = {label: [r for r in rows if r["label"] == label and r["table_id"] in by_id] for label in LABELS}
    drawn = {label: list(rng.permutation(len(pool))) for label, pool in pools.items()}
    shots = []
    for i in range(k):
        label = LABELS[i % len(LABELS)]
        if not drawn[label]:
            raise ModelError(
                f"config key causal.shots: train has only {len(pools[label])} {label} examples for {k} shots"
            )
        row = pools[label][drawn[label].pop(0)]
        shots.append(
            {"uid": row["uid"], "table": by_id[row["table_id"]], "hypothesis": row["hypothesis"], "label": label}
        )
    return shots


def write_shots(shots: list[dict], path: str | Path) -> None:
    from .io import atomic_path

    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(shots, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
