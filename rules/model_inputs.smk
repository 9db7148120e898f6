# The input functions of models.smk: a model's checkpoint and its files, its k-shot examples and
# training data (tabprobe.config.derived), and the settings its training and inference jobs get
# (tabprobe.config.job_settings). Each passes config and the wildcards on; the library decides.

from tabprobe.config.job_settings import (
    endpoint_gpus,
    endpoint_settings,
    inference_settings,
    train_priority,
    train_settings,
)


def get_checkpoint(wildcards):
    # infer_nli's first input function: the model and probe asked for must be config's (an
    # inoculated model is known too), else "did you mean".
    model_config(wildcards)
    return derived.checkpoint_path(config, wildcards.model)


def get_checkpoint_files(wildcards):
    return derived.checkpoint_files(config, wildcards.model)


def get_shots(wildcards):
    return derived.shots(config, wildcards.model)


def get_shot_pool(wildcards):
    return derived.shot_pool(config, wildcards.model)


def get_shot_count(wildcards):
    """How many k-shot examples select_shots picks for a causal LM or a served model."""
    return derived.prompt_block(model_config(wildcards))["shots"]


def get_training_data(wildcards):
    return derived.training_data(config, wildcards.model)


def get_model_init(wildcards):
    return canonical(model_config(wildcards)["init"])


def get_model_premise(wildcards):
    return model_config(wildcards)["premise"]


def get_pair_order(wildcards):
    return model_config(wildcards)["pair_order"]


def get_train_priority(wildcards):
    return train_priority(config, wildcards.model, model_config(wildcards))


def get_train_settings(wildcards):
    return train_settings(config, model_config(wildcards))


def get_inference_settings(wildcards):
    return inference_settings(config, model_config(wildcards))


def get_endpoint_settings(wildcards):
    return endpoint_settings(model_config(wildcards), derived.unpacked_folder(config, wildcards.model))


def get_unpacked(wildcards):
    return derived.unpacked_inputs(config, wildcards.model)


def get_unpack_source(wildcards):
    return derived.unpack_source(config, wildcards.model)


def get_endpoint_gpus(wildcards):
    return endpoint_gpus(model_config(wildcards))
