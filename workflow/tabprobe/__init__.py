"""tabprobe: probes that tell whether a tabular NLI model reasons from its table's evidence."""

LABELS = ("E", "N", "C")
LABEL_NAMES = {"E": "ENTAIL", "N": "NEUTRAL", "C": "CONTRADICT"}

__version__ = "0.1.0"
