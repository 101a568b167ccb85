"""BullMQ 6.7.0's own job-scheduler scripts, run unmodified in-process.

The scripts' text is never in this repository: `package` reads it at run time from the
pinned PyPI `bullmq` wheel (installed with `--no-deps`), each file held to the SHA-256 of
npm bullmq 6.7.0's text. `runtime` gives fakeredis's Lua the two modules Redis has and
fakeredis lacks or writes differently (`lua/cmsgpack.lua`, `lua/cjson.lua`, this project's
own code). `driver` calls the scripts with the KEYS and ARGV the 6.7.0 client builds.
"""
