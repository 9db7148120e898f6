"""Edits of a hypothesis read off its spaCy parse (paper section 4), shared by the hypothesis probes.

Every edit replaces character spans of the original text, so the rest of the sentence stays
byte for byte as the annotator wrote it, and returns a provenance record saying exactly what
changed (`changes`: a list of {start, end, old, new} on the original text) plus the rule used.

One module per family, so that a probe's code inputs hold only the families it uses (editing the
date edits re-runs only the probes that change dates; tabprobe.code_inputs):

- reading: what every family reads off the parse first (a negation, a quantified subject, a
  calendar year, a comparative that compares)
- numbers: numbers under monotone function words (paper Table 2)
- durations: amounts of time, under a comparative or bare
- dates: dates made less precise, moved, or kept false against the table's years
- relations: the words of a sentence that name a row's relation
- negation: the main clause negated, or its negation removed
- quantifiers: comparative quantifiers and quantifying determiners replaced

This face imports nothing: import from the family modules.
"""
