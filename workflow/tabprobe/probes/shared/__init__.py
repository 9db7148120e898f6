"""Probes any dataset takes whose table type they are written for (base.SharedProbe): the
unperturbed examples (identity), and the premise controls (hypothesis only, a swapped table, a
dummy table). One implementation each, registered for every dataset that fits under its prefix
(`original` and `tf_original` are one probe); and two helpers the datasets' own probes share: the
text surgery (text_edits) and the stop-word lookup (stop_words). The registry lines are in
probes/__init__.py (`SHARED`)."""
