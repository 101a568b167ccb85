"""The text npm bullmq 6.7.0 sends for each script: the `content` of its
`dist/cjs/scripts/NAME.js` (includes resolved), read by Node from tests/oracles/node_modules.
The course's copy comes from the PyPI `bullmq` wheel instead (emqsim/engine/bullmq_scripts/
package.py); tests/test_bullmq_scripts_package.py holds the two equal. None where Node or
`npm ci` is missing (the recorded SHA-256s in package.py are then what the tests hold to)."""

from __future__ import annotations

import json
import subprocess

import oracle

READ = """
const out = {};
for (const name of JSON.parse(process.argv[1])) {
  const m = require('./node_modules/bullmq/dist/cjs/scripts/' + name.replace(/\\.lua$/, '.js'));
  const s = Object.values(m)[0];
  out[name] = {content: s.content, keys: s.keys, version: require('./node_modules/bullmq/package.json').version};
}
process.stdout.write(JSON.stringify(out));
"""


def npm_scripts(names) -> dict | None:
    """{file name: {"content", "keys", "version"}} as npm bullmq has them, or None."""
    exe = oracle.node()
    if exe is None:
        return None
    proc = subprocess.run([exe, "-e", READ, json.dumps(list(names))], capture_output=True, text=True,
                          cwd=oracle.HERE, timeout=60)
    if proc.returncode != 0:
        raise RuntimeError(f"reading npm bullmq's scripts failed: {proc.stderr.strip()[-500:]}")
    return json.loads(proc.stdout)
