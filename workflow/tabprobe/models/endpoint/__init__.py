"""Served models: a model behind an OpenAI-compatible API (vLLM, SGLang, llama.cpp's server,
`transformers serve`, a hosted provider), probed like any other model (docs/models.md, "A served
model").

    settings   the config's `endpoint:` block as the jobs read it, and the API key by its variable's name
    prompts    the prompts, from tabprobe.models.lm_prompts: the same text (completions) or messages
               (chat) as an in-process causal LM with the same prompting keys
    cache      the response cache on disk, one private file per request digest
    client     the requests: the official `openai` async client, bounded concurrency, retries,
               a rate limit, the run's request budget, the cache before the network
    parsing    what a generated answer says: the label, or unparsed; a reasoning model's thinking apart
    scorings   the three scorings (generate, first_token, prompt_logprobs): their requests and how
               an answer becomes E/N/C probabilities
    check      the checks before any job: the key's variable, the server, the model, the scoring
    lifecycle  an optional `serve:` command started once per model and stopped when idle
    supervisor the process that runs that command
    access     what that server may be open to: a private network, a key, or (if config says so) all
    namespace  the private network: a Linux network namespace for the engine
    bridge     the supervisor's Unix socket into that network, for this user alone
    reach      how a job reaches a server, every connection checked to lead to this user's
    job        rule query_endpoint: one probe file's predictions from the server
"""
