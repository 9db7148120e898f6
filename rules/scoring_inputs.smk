# The input functions of scoring.smk: what each scoring job compares (tabprobe.config.derived).


def get_score_inputs(wildcards):
    return derived.score_inputs(config, wildcards.model, wildcards.probe, wildcards.split)


def get_pooled_members(wildcards):
    return derived.pooled_split_members(config, wildcards.paper_table, wildcards.column, wildcards.split)


def get_pooled_inputs(wildcards):
    return derived.pooled_inputs(config, wildcards.paper_table, wildcards.model, wildcards.column, wildcards.split)


def is_served(wildcards):
    return derived.is_served(config, wildcards.model)
