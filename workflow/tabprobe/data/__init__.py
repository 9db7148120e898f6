"""Stage `data` (rules/data.smk): a dataset's files read, checked and ingested into the Parquet
contracts (schemas.py), and the hypotheses parsed with spaCy (parsing.py).

Each dataset is a package here (`infotabs/`): its table type, label set, renderings, ingest and
the probes that apply to it are its own, so a second dataset is a new package beside InfoTabS.
"""
