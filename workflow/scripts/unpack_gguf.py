from tabprobe import logs
from tabprobe.models.gguf_unpack import unpack_gguf

logs.to_file(snakemake.log[0])
unpack_gguf(checkpoint=snakemake.input.gguf, out=snakemake.output[0])
