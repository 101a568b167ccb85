"""After the notebook stage: on the real Redis of EMQSIM_REDIS_URL (CI's), no emqsim key is
left (`emq:*`); one line and status 1 otherwise. Without the variable there is nothing to
check: the notebooks ran on the embedded server, which ended with their kernels."""

from __future__ import annotations

import os
import sys


def main() -> int:
    url = os.environ.get("EMQSIM_REDIS_URL")
    if not url:
        return 0
    from emqsim.engine.store import connect, redact

    client = connect(url)
    left = sorted({k.decode().split("}")[0] + "}" for k in client.scan_iter(match="emq:*", count=1000)})
    if left:
        print(f"keys_left: the notebook run left keys of {len(left)} queue(s) on {redact(url)}: "
              f"{', '.join(left[:5])}", file=sys.stderr)
        return 1
    print(f"keys_left: no emqsim key on {redact(url)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
