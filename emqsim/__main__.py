"""`python -m emqsim trace ...`: the same command as the `emqsim` console script.

A Ctrl-C before `main` has put its handlers in (while `cli` itself loads) is the same one
line and status 130 as one during a run."""

import sys

try:
    from .cli import main

    status = main()
except KeyboardInterrupt:
    print("emqsim: stopped by SIGINT", file=sys.stderr)
    status = 130
raise SystemExit(status)
