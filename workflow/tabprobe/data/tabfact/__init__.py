"""TabFact (Chen et al., ICLR 2020): Wikipedia tables as a header and records, statements labelled
entailed / refuted; and its human-written programs (bootstrap.json), which the executor runs to say
which records and columns a statement needs and to recompute its label after a table edit."""
