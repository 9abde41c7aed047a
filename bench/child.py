"""`python -m bench.child GROUP CONTEXT_JSON`: measure one group in its own process.

Each group runs in a child so that a crash in native code (llama.cpp, Qt) costs that group's
figures, reported as "not measured", and never the whole run.
"""

from __future__ import annotations

import json
import sys

from bench.context import BenchContext
from bench.groups import BY_NAME
from bench.llama_env import install_if_asked
from bench.runner import RESULT_PREFIX, guarded_group


def main(argv: list[str]) -> int:
    group = BY_NAME[argv[0]]
    ctx = BenchContext.from_json(json.loads(argv[1]))
    workaround = install_if_asked()
    results = guarded_group(group.specs, group.measure, ctx)
    for r in results:
        r.details["llama_extra_bufts_off"] = workaround
    print(RESULT_PREFIX + json.dumps([r.to_json() for r in results], default=str), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
