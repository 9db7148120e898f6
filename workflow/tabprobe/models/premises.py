"""A model's premise texts: each table rendered, after premise selection where the model asks for it
(data/premise_selection.py), within the token budget the model's tokenizer and max_length leave
beside the hypothesis. Training, inference and inoculation call `rendered_premises`, so a model is
served exactly the premises it was trained on; a checkpoint records its selection (tabprobe.json) and
inference refuses a config that reads it otherwise (`require_same_selection`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tabprobe.data import premise_selection
from tabprobe.data.tables import AnyTable, render, table_from_arrow
from tabprobe.errors import ModelError


class TokenCounter:
    """Tokens of texts by `tokenizer`, each text counted once: a table's rows, counted alone, come back
    with every hypothesis about it."""

    def __init__(self, tokenizer):
        self.tokenizer, self.known = tokenizer, {}

    def __call__(self, texts) -> list[int]:
        new = [t for t in dict.fromkeys(texts) if t not in self.known]
        if new:
            ids = self.tokenizer(new, add_special_tokens=False)["input_ids"]
            self.known.update(zip(new, map(len, ids)))
        return [self.known[t] for t in texts]


def budget_beside(counter: TokenCounter, hypothesis: str, max_length: int) -> premise_selection.Budget:
    """The tokens a premise may take to fit `max_length` beside `hypothesis` as a pair (special tokens
    included), counted by `counter`."""
    tokenizer = counter.tokenizer
    room = (
        max_length
        - tokenizer.num_special_tokens_to_add(pair=True)
        - len(tokenizer(hypothesis, add_special_tokens=False)["input_ids"])
    )
    return premise_selection.Budget(room, counter)


def prompt_budget(builder, hypothesis: str, room: int) -> premise_selection.Budget:
    """A causal LM's budget: its prompt (shots, template, `hypothesis`) with a premise text as its table
    must fit `room` tokens uncut (`builder`: the model's lm_prompts.PromptBuilder)."""
    uncut = 1 << 30

    def counts(texts):
        return [len(builder.encode(text, hypothesis, uncut)[0]) for text in texts]

    return premise_selection.Budget(room, counts)


def prompt_premises(records: Sequence[Mapping], how: str, selection: str | None, builder, room: int) -> list[str]:
    """The premise text of each probe example (`records` with `table` and `hypothesis`) in a causal LM's
    prompt: its table rendered whole, or its selection within what the prompt leaves (`prompt_budget`)."""
    texts = []
    for record in records:
        table, hypothesis = table_from_arrow(record["table"]), record["hypothesis"]
        if selection:
            table = premise_selection.select(
                table, hypothesis, how, prompt_budget(builder, hypothesis, room), selection
            )
        texts.append(render(table, how))
    return texts


def rendered_premises(
    tokenizer,
    tables: Sequence[AnyTable],
    hypotheses: Sequence[str],
    how: str,
    selection: str | None,
    max_length: int,
) -> tuple[list[str], int]:
    """Each example's premise text in rendering `how`, and how many lost rows (or records, columns) to
    `selection` (None: none, every table whole; the encoder cuts what does not fit)."""
    if selection is None or how == "hypothesis_only":
        return [render(t, how) for t in tables], 0
    texts, narrowed, counter = [], 0, TokenCounter(tokenizer)
    for table, hypothesis in zip(tables, hypotheses):
        kept = premise_selection.select(
            table, hypothesis, how, budget_beside(counter, hypothesis, max_length), selection
        )
        narrowed += kept is not table
        texts.append(render(kept, how))
    return texts, narrowed


def require_same_selection(meta: Mapping, selection: str | None, checkpoint: str) -> None:
    """Stop where a checkpoint trained by tabprobe recorded another premise selection than the config
    gives its inference: the model would read premises it was never trained on. A checkpoint that
    records none (a user's, or one trained before the key existed) is read as the config says."""
    if "premise_selection" not in meta or meta["premise_selection"] == selection:
        return
    trained = meta["premise_selection"]
    raise ModelError(
        f"{checkpoint}: the model was trained with premise_selection {trained or 'null'} (its tabprobe.json), but "
        f"the config reads it with premise_selection {selection or 'null'}; set the model's "
        f"`premise_selection: {trained or 'null'}` in config, or retrain it"
    )


def premise_holds(how: str, selection: str | None) -> str:
    """What a model's premise holds, by what rule, in words (run.json and the report)."""
    return "no table (hypothesis only)" if how == "hypothesis_only" else premise_selection.describe(selection)
