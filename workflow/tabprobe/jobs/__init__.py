"""What each workflow rule runs, one module per rule, named after it: read the inputs, call the
library, write the outputs atomically.

The Snakemake adapters in workflow/scripts/ only unpack `snakemake.*` and call these, so every job
can also be run and tested without Snakemake. One module per rule keeps each rule's code inputs
(the import closure of its script, tabprobe.code_inputs) to exactly the code it runs.
"""
