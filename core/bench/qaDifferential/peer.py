"""GEM's side of the QA differential (../qaDifferential.ts): every case graded by gem-llm 0.1.0's own
QaEnv.step (extract_boxed for the RuleTaker cases), with the gold in its column type.

    python peer.py CASES.json

Prints one JSON line per case: {"id", "reward"} or {"id", "error"} when step raised, then
{"timing": {"cases", "seconds"}}.
"""
from __future__ import annotations

import json
import logging
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "codeDifferential"))
from gem_peer_support import install_datasets_stub, step_verdict  # noqa: E402


def typed(g):
    kind, value = g["type"], g["value"]
    if kind == "list":
        return [typed(x) for x in value]
    return {"str": str, "int": int, "float": float, "bool": bool}[kind](value)


def main() -> int:
    install_datasets_stub()
    logging.disable(logging.CRITICAL)
    from datasets import Dataset
    from gem.envs.qa_env import QaEnv

    cases = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    rows = Dataset.from_list([{"question": "q", "answer": "a"}])
    envs = {False: QaEnv(dataset=rows), True: QaEnv(dataset=rows, extract_boxed=True)}
    t0 = time.perf_counter()
    for c in cases:
        env = envs[c["boxed"]]
        env.set_state({"first_obs": c["question"], "answer": typed(c["gold"])})
        print(json.dumps(step_verdict(env, c["reply"], {"id": c["id"]})))
    print(json.dumps({"timing": {"cases": len(cases), "seconds": time.perf_counter() - t0}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
