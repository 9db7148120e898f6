# The input functions of models.smk: a model's checkpoint and its files, its k-shot examples, and
# the settings its training and inference jobs get (tabprobe.config.job_settings).

from tabprobe.config.job_settings import (
    endpoint_gpus,
    endpoint_settings,
    inference_settings,
    train_priority,
    train_settings,
)
from tabprobe.data.datasets import get_dataset
from tabprobe.models.checkpoints import PACKAGE_SCHEME, resolve_location


def get_checkpoint(wildcards):
    """The checkpoint's path: a folder, or one GGUF file, where pkg:// names one inside a package."""
    model_config(wildcards)  # a model of config, or an inoculated one: else "did you mean"
    location = checkpoint_of(wildcards.model)
    # Other paths stay as written: a trained model's must match its rule's output to the letter.
    return str(resolve_location(location)) if location.startswith(PACKAGE_SCHEME) else location


def get_checkpoint_files(wildcards):
    """A user's checkpoint is tracked by its files, not by its folder: weights re-saved into the
    same folder do not change the folder's modification time. A GGUF checkpoint is its one file."""
    model = model_config(wildcards)
    if not ({"checkpoint", "causal"} & set(model)) or wildcards.model in INOCULATED:
        return []
    folder = resolve_location(checkpoint_of(wildcards.model))
    if folder.is_file():
        return [str(folder)]
    return sorted(str(p) for p in folder.glob("*") if p.suffix in {".safetensors", ".json", ".txt", ".model"})


def get_shots(wildcards):
    """A prompted model's k-shot examples (select_shots), when it asks for any."""
    return [layout.shots(wildcards.model)] if derived.prompt_block(model_config(wildcards)).get("shots") else []


def get_shot_count(wildcards):
    """How many k-shot examples select_shots picks for a causal LM or a served model."""
    return derived.prompt_block(model_config(wildcards))["shots"]


def get_training_data(wildcards):
    """The train and dev splits (examples and tables) of the dataset the model learns
    (`train.dataset`: InfoTabS's train and dev, TabFact's train and val)."""
    dataset = get_dataset(model_config(wildcards)["train"].get("dataset", "infotabs"))
    return {
        "train": layout.examples(dataset.train_split, dataset=dataset.name),
        "train_tables": layout.tables(dataset.train_split, dataset=dataset.name),
        "dev": layout.examples(dataset.dev_split, dataset=dataset.name),
        "dev_tables": layout.tables(dataset.dev_split, dataset=dataset.name),
    }


def get_model_init(wildcards):
    return canonical(model_config(wildcards)["init"])


def get_model_premise(wildcards):
    return model_config(wildcards)["premise"]


def get_pair_order(wildcards):
    return model_config(wildcards)["pair_order"]


def get_train_priority(wildcards):
    return train_priority(model_config(wildcards))


def get_train_settings(wildcards):
    return train_settings(config, model_config(wildcards))


def get_inference_settings(wildcards):
    return inference_settings(config, model_config(wildcards))


def get_endpoint_settings(wildcards):
    return endpoint_settings(model_config(wildcards), get_unpacked(wildcards)[0] if get_unpacked(wildcards) else None)


def get_unpacked(wildcards):
    """A served model's GGUF file unpacked into a folder for its server, when serve.unpack names one."""
    return [layout.unpacked_checkpoint(wildcards.model)] if wildcards.model in UNPACKED_MODELS else []


def get_unpack_source(wildcards):
    """The GGUF file serve.unpack names (pkg:// resolved)."""
    return str(resolve_location(model_config(wildcards)["endpoint"]["serve"]["unpack"]))


def get_endpoint_gpus(wildcards):
    return endpoint_gpus(model_config(wildcards))
