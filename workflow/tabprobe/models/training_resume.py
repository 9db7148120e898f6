"""The resume state of a training (tabprobe.models.training): where it is kept, the key of the inputs it
was saved from, and the store that saves and loads it.

A state is only ever resumed from by a run of the very inputs, settings and code that saved it,
so a resumed training writes the checkpoint an uninterrupted one writes.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
from pathlib import Path

import numpy as np

from tabprobe import code_inputs
from tabprobe.io import atomic_path
from tabprobe.models.checkpoints import fingerprint, resolve_base
from tabprobe.models.inference import input_digest

log = logging.getLogger(__name__)


def resume_dir_for(out_dir: str | Path) -> Path:
    """Where training keeps its resume state: beside the checkpoint folder, hidden, and not a
    Snakemake output, so Snakemake neither deletes it when a job fails nor counts it as a result."""
    out_dir = Path(out_dir)
    return out_dir.with_name(f".{out_dir.name}.resume")


def resume_key(
    settings: dict,
    premise: str,
    device: str,
    precision: str,
    train_features,
    train_labels: np.ndarray,
    dev_features,
    dev_labels: np.ndarray,
) -> str:
    """Digest of everything that determines the trained checkpoint: the settings and seed (which
    seed the new head; training's TrainSettings as a dict, so that this module needs nothing of
    training's), the base's weights, config and tokenizer files, every training and dev
    input token and label, device, precision, library versions and every library file training
    imports (the train_model rule's code inputs, read the same way).
    A resume state saved under another key is never used."""
    import torch
    import transformers

    digest = hashlib.sha256(
        json.dumps(
            {
                "settings": settings,
                "premise": premise,
                "device": device,
                "precision": precision,
                "torch": torch.__version__,
                "transformers": transformers.__version__,
                "base": fingerprint(resolve_base(settings["base"])),
            },
            sort_keys=True,
        ).encode()
    )
    # The code a resumed run computes with: every library file training imports (the model, its
    # batches, how an example becomes tokens), found as the rule's code inputs are, so that a
    # module split out of one of them is covered without a list to keep.
    for path in code_inputs.closure(["training.py"]):
        digest.update(path.encode() + b"\0" + (code_inputs.PACKAGE_DIR / path).read_bytes())
    for features, labels in ((train_features, train_labels), (dev_features, dev_labels)):
        for f in features:
            digest.update(input_digest(f).encode())
        digest.update(labels.astype(np.int64).tobytes() + b"#")
    return digest.hexdigest()


class ResumeStore:
    """One training state file in `folder`, named by the key of the inputs it was saved from.

    Written with `atomic_path` (temporary file, fsync, rename), so a kill while saving leaves
    the previous state intact. Loaded with `torch.load(weights_only=True)`: tensors and plain
    values only, no pickled code.
    """

    def __init__(self, folder: str | Path, key: str):
        self.folder = Path(folder)
        self.key = key
        self.path = self.folder / f"state-{key[:32]}.pt"

    def load(self) -> dict | None:
        import torch

        if not self.folder.is_dir():
            return None
        for other in self.folder.iterdir():
            # Leftovers of a save that was killed, and states of other inputs (another seed,
            # edited settings or data): never resumed from, so they go.
            if other != self.path:
                log.info("discarding %s: not a resume state of these inputs and settings", other)
                shutil.rmtree(other) if other.is_dir() and not other.is_symlink() else other.unlink()
        if not self.path.exists():
            return None
        try:
            state = torch.load(self.path, map_location="cpu", weights_only=True)
        except Exception as err:  # an unreadable state costs a restart, never a wrong model
            log.warning("resume state %s cannot be read (%s); training from the start", self.path, err)
            self.path.unlink()
            return None
        if state.get("key") != self.key:
            log.warning("resume state %s belongs to other inputs; training from the start", self.path)
            self.path.unlink()
            return None
        return state

    def save(self, state: dict) -> None:
        import torch

        with atomic_path(self.path) as tmp:
            torch.save({**state, "key": self.key}, tmp)
