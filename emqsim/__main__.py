"""`python -m emqsim trace ...`: the same command as the `emqsim` console script."""

from .cli import main

raise SystemExit(main())
