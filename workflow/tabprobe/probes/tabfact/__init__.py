"""TabFact's probes (relational tables, two labels), by family: record/ (records and columns edited,
judged by transitions), program/ (edits whose expected label the statement's human-written program
gives, executed on the edited table) and statement/ (edits of the statement); helpers beside the
probes that use them (record_edits, statement_kinds: of record/ and program/); its own need
(needs.py) and its registry (registry.py)."""
