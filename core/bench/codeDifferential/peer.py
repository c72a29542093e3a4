"""GEM's side of the code differential (../codeDifferential.ts): every reply of the corpus graded by
gem-llm 0.1.0's own CodeEnv.step, as a GEM user would run it (sandbox_type "none", max_workers 5,
max_tests 12), one reply at a time, timed.

    python peer.py CORPUS.json TIMEOUT_S [--serve]   (corpus: {"problems": [...], "replies": [...]})

Prints one JSON line per reply, {"id", "reward", "seconds"} (or "error" when step raised), then
{"timing": {...}}. Run it from an empty folder: GEM's sandbox makes its temp folders in the working
directory. Without --serve, run it with stdin closed: for an empty test input GEM lets the program
inherit stdin (the corpus has no empty inputs, so in --serve mode no program reads the id pipe).
"""
from __future__ import annotations

import json
import logging
import sys
import time

from gem_peer_support import install_datasets_stub, step_verdict


def main() -> int:
    corpus_path, timeout = sys.argv[1], float(sys.argv[2])
    install_datasets_stub()
    logging.disable(logging.CRITICAL)
    import gem.utils.sandbox as sandbox
    from datasets import Dataset
    from gem.envs.code_env import CodeEnv

    # GEM's sandbox waits 10 s for a program; use the same limit as gem-ts in this run.
    sandbox.run_python.__defaults__ = (None, timeout)
    sandbox.subprocess_run.__defaults__ = (None, timeout)

    corpus = json.loads(open(corpus_path, encoding="utf-8").read())
    problems = corpus["problems"]
    rows = [{"problem": p["problem"], "tests": json.dumps(p["tests"])} for p in problems]
    env = CodeEnv(dataset_name="axon-rl/CodeContest", dataset=Dataset.from_list(rows))
    replies = {r["id"]: r for r in corpus["replies"]}
    # With --serve, reply ids come one per line on stdin (the caller interleaves GEM's steps with
    # gem-ts's, so both see the same machine load); otherwise every reply, in order.
    serve = "--serve" in sys.argv
    order = (int(line) for line in sys.stdin) if serve else iter(replies)
    total = 0.0
    for rid in order:
        reply = replies[rid]
        p = problems[reply["problem"]]
        env.set_state({"first_obs": p["problem"], "tests": p["tests"]})
        t0 = time.perf_counter()
        out = step_verdict(env, reply["text"], {"id": reply["id"]})
        out["seconds"] = time.perf_counter() - t0
        total += out["seconds"]
        print(json.dumps(out), flush=True)
    print(json.dumps({"timing": {"replies": len(replies), "seconds": total}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
