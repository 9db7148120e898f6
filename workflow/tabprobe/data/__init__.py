"""Stage `data` (rules/data.smk): a dataset's files read, checked and ingested into the Parquet
contracts (schemas.py), and the hypotheses parsed with spaCy (parsing.py).

Each dataset is a package here (<name>/dataset.py declares it, datasets.py says what a declaration
holds): its label set, splits, ingest and the probes that apply to it are its own; a user's own
dataset is a package anywhere, named in config. Table types (infobox/, relational/: a table's
shape, its Parquet struct and its renderings) are shared by the datasets whose tables have them.
"""
