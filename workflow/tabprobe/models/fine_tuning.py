"""The fine-tuning steps that training (training.py) and inoculation (inoculation/inoculate.py)
share: length-grouped batches, AdamW with its schedule, one optimiser step per batch, accuracy of
a model being trained."""

from __future__ import annotations

import math

import numpy as np

from tabprobe.models.classifiers import predict_batches
from tabprobe.models.encoding import collate
from tabprobe.models.inference import plan_batches
from tabprobe.models.precision import LoadedModel, autocast


def length_grouped_batches(
    lengths: np.ndarray, batch_size: int, rng: np.random.Generator, chunk: int = 50
) -> list[np.ndarray]:
    """Shuffled batches of similar-length examples: shuffle, cut into chunks of `chunk` batches,
    sort each chunk by length, split into batches, shuffle the batches."""
    order = rng.permutation(len(lengths))
    batches = []
    span = batch_size * chunk
    for start in range(0, len(order), span):
        block = order[start : start + span]
        block = block[np.argsort(-lengths[block], kind="stable")]
        batches += [block[i : i + batch_size] for i in range(0, len(block), batch_size)]
    return [batches[i] for i in rng.permutation(len(batches))]


def accuracy(loaded: LoadedModel, encoded, labels: np.ndarray, batch_size: int, precision: str) -> float:
    """Accuracy (%) of a model being trained (fp32 weights, autocast to `precision`)."""
    lengths = encoded.lengths()
    order = np.argsort(-lengths, kind="stable")
    probs = predict_batches(
        loaded.model,
        [encoded.features[i] for i in order],
        plan_batches(lengths[order], batch_size),
        loaded.tokenizer.pad_token_id or 0,
        loaded.order,
        loaded.device,
        precision,
    )
    return float(100.0 * np.mean(probs.argmax(axis=1) == labels[order]))


def optimizer_and_schedule(model, learning_rate: float, weight_decay: float, warmup_ratio: float, total_steps: int):
    """AdamW (no weight decay on biases and LayerNorm) with linear warm-up, then linear decay."""
    import torch
    from transformers import get_linear_schedule_with_warmup

    no_decay = ("bias", "LayerNorm.weight", "layer_norm")
    groups = [
        {
            "params": [p for n, p in model.named_parameters() if not any(k in n for k in no_decay)],
            "weight_decay": weight_decay,
        },
        {"params": [p for n, p in model.named_parameters() if any(k in n for k in no_decay)], "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=learning_rate)
    return optimizer, get_linear_schedule_with_warmup(optimizer, math.ceil(warmup_ratio * total_steps), total_steps)


class Stepper:
    """One optimiser step per batch: cross-entropy, gradients clipped at 1.0, AdamW, schedule.

    With `accumulation_steps` > 1 a batch runs forward and backward as that many micro-batches
    whose gradients add up to the whole batch's (each micro-batch's mean loss weighted by its
    share of the batch), so a batch too big for the GPU's memory trains as if it fitted. In fp16
    (GPUs without native bf16) the loss is scaled by a GradScaler, whose state is part of the
    resume state, so gradients too small for fp16 do not vanish.
    """

    def __init__(self, model, optimizer, scheduler, pad_id: int, device: str, precision: str, accumulation_steps=1):
        import torch

        self.model, self.optimizer, self.scheduler = model, optimizer, scheduler
        self.pad_id, self.device, self.precision = pad_id, device, precision
        self.accumulation_steps = max(1, accumulation_steps)
        self.scaler = torch.amp.GradScaler(device.split(":")[0]) if precision == "fp16" else None

    def __call__(self, features: list[dict], targets: np.ndarray) -> float:
        """Train on one batch; its loss."""
        import torch

        parts = np.array_split(np.arange(len(features)), min(self.accumulation_steps, len(features)))
        losses = []
        for part in parts:
            batch = {k: v.to(self.device) for k, v in collate([features[i] for i in part], self.pad_id).items()}
            with autocast(self.device, self.precision):
                logits = self.model(**batch).logits
            loss = torch.nn.functional.cross_entropy(logits.float(), torch.from_numpy(targets[part]).to(self.device))
            if len(parts) > 1:
                loss = loss * (len(part) / len(features))
            (self.scaler.scale(loss) if self.scaler else loss).backward()
            losses.append(loss.detach())
        if self.scaler:
            self.scaler.unscale_(self.optimizer)  # clip the true gradients, not the scaled ones
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        if self.scaler:
            self.scaler.step(self.optimizer)  # skipped when a gradient overflowed fp16
            self.scaler.update()
        else:
            self.optimizer.step()
        self.scheduler.step()
        self.optimizer.zero_grad(set_to_none=True)
        return (losses[0] if len(losses) == 1 else torch.stack(losses).sum()).item()

    def state_dict(self) -> dict | None:
        return self.scaler.state_dict() if self.scaler else None

    def load_state_dict(self, state: dict | None) -> None:
        if self.scaler and state:
            self.scaler.load_state_dict(state)
