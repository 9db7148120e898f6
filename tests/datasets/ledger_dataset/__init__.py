"""Ledger: a dataset a user plugs into tabprobe without a fork (docs/adding-a-dataset.md). Its
examples are statements about small infoboxes (an account's ledger), labelled TRUE or FALSE."""
