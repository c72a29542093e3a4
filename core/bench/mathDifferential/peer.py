"""Peer side of core/bench/mathDifferential.ts: grades (gold, response) cases with math-verify 0.9.0 and
with GEM's own math reward (gem-llm 0.1.0 `boxed_reward_fn`, fast=False, as GEM's MathEnv calls it).
Runs in core/bench/.venv-gem. Reads JSON lines {"id", "gold", "response"} on stdin; writes one JSON
line per case {"id", "math_verify", "gem"} and, last, {"timing": {...}} with the seconds each grader
spent on the cases (parse + verify only, timed separately so the ratio is per grader).

    core/bench/.venv-gem/bin/python core/bench/mathDifferential/peer.py < cases.jsonl
"""
from __future__ import annotations

import json
import logging
import sys
import time


def math_verify_verdict(parse, verify, gold: str, response: str) -> bool:
    # A math env's gold is a bare LaTeX answer: wrap it in $…$ (a boxed gold parses as written).
    gold_text = gold if ("$" in gold or "\\boxed" in gold) else f"${gold}$"
    try:
        return bool(verify(parse(gold_text), parse(response)))
    except Exception:  # noqa: BLE001 - a parse failure is a "no" verdict, as in an env
        return False


def grade_stream(math_verify_of) -> None:
    """Grades the JSON-line cases on stdin: math_verify_of(case) and GEM's boxed_reward_fn, each timed."""
    from gem.utils.math_grader import boxed_reward_fn

    mv_seconds = gem_seconds = 0.0
    n = 0
    for line in sys.stdin:
        if not line.strip():
            continue
        case = json.loads(line)
        t0 = time.perf_counter()
        mv = math_verify_of(case)
        t1 = time.perf_counter()
        try:
            gem = boxed_reward_fn(case["response"], case["gold"], fast=False)[1] == 1.0
        except Exception:  # noqa: BLE001
            gem = False
        t2 = time.perf_counter()
        mv_seconds += t1 - t0
        gem_seconds += t2 - t1
        n += 1
        print(json.dumps({"id": case["id"], "math_verify": mv, "gem": gem}), flush=True)
    print(json.dumps({"timing": {"cases": n, "math_verify_seconds": mv_seconds, "gem_seconds": gem_seconds}}))


def main() -> int:
    logging.disable(logging.CRITICAL)
    from math_verify import parse, verify

    grade_stream(lambda case: math_verify_verdict(parse, verify, case["gold"], case["response"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
