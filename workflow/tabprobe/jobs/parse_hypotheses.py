"""Rule parse_hypotheses: the spaCy parse of every hypothesis of a split."""

from __future__ import annotations

import time

from .. import parsing, schemas
from ..io import read_parquet, write_json


def parse_hypotheses(
    examples_path: str, out: str, summary_out: str, model: str = "auto", batch_size: int = 512, processes: int = 1
) -> None:
    examples = read_parquet(examples_path, schemas.EXAMPLES)
    nlp = parsing.load_pipeline(model)
    start = time.monotonic()
    docs = parsing.parse(
        nlp,
        examples["hypothesis"].to_pylist(),
        examples["uid"].to_pylist(),
        examples["table_id"].to_pylist(),
        batch_size=batch_size,
        n_process=processes,
    )
    parsing.write(docs, out)
    write_json(
        {
            "model": parsing.model_description(nlp),
            "components": nlp.pipe_names,
            "hypotheses": examples.num_rows,
            "seconds": round(time.monotonic() - start, 2),
        },
        summary_out,
    )
