"""Problems of models that read the table itself (`premise: table`, a TAPAS checkpoint): found from
config.json alone before any job, rather than by the first inference job after the upstream ones ran.

`premise: table` goes with a TAPAS checkpoint and a TAPAS checkpoint with it (models/tapas.py,
`pairing_problem`); it is given by `checkpoint:` or built by `init:` from a TAPAS base. Training,
inoculation and controlled variance fine-tune on premises rendered to text, and a causal LM reads a
prompt: none of them takes a table.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabprobe.errors import TabprobeError
from tabprobe.models.checkpoints import read_config, require_base
from tabprobe.models.tapas import TABLE_PREMISE, pairing_problem


def _model_type(location: str) -> tuple[bool, str | None]:
    """(whether its files could be read, the config.json model_type) of a checkpoint or base; the
    checkpoint checks in problems.py report files that cannot be read."""
    try:
        return True, read_config(require_base(location)).get("model_type")
    except TabprobeError:
        return False, None


def _model_problems(name: str, model: Mapping[str, Any]) -> list[str]:
    premise = model.get("premise")
    if premise == TABLE_PREMISE and ("train" in model or "causal" in model):
        how = "fine-tunes on premises rendered to text" if "train" in model else "prompts with a rendered premise"
        return [
            f"config key models.{name}.premise: `premise: {TABLE_PREMISE}` is for a TAPAS checkpoint (`checkpoint:`, "
            f"or `init:` from a TAPAS base); `{'train' if 'train' in model else 'causal'}` {how}: give it a "
            "rendering (para, struct, markdown or hypothesis_only)"
        ]
    problems = []
    location = model.get("checkpoint") or (model.get("init") or {}).get("base")
    if isinstance(location, str) and isinstance(premise, str):
        readable, model_type = _model_type(location)
        problem = pairing_problem(premise, model_type) if readable else None
        if problem:
            problems.append(f"config key models.{name}.premise: {problem}")
    return problems


def table_premise_problems(config: Mapping[str, Any], models: Mapping[str, Any]) -> list[str]:
    """Each model's premise fits its checkpoint, and no experiment fine-tunes a table-reading model."""
    problems = [p for name, model in models.items() if isinstance(model, dict) for p in _model_problems(name, model)]
    for block in ("inoculation", "controlled_variance"):
        chosen = config[block].get("model") if isinstance(config.get(block), dict) else None
        if isinstance(models.get(chosen), dict) and models[chosen].get("premise") == TABLE_PREMISE:
            problems.append(
                f"config key {block}.model: {chosen} reads the table itself (premise: {TABLE_PREMISE}); the experiment "
                "fine-tunes on premises rendered to text: name a model with a rendering"
            )
    return problems
