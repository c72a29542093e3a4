"""Peer side of core/bench/mathForeign.ts: grades the foreign corpus's (gold, response) cases with
math-verify 0.9.0 (the way the case's source calls it: its extraction targets, precision and strict)
and with GEM's math reward (gem-llm 0.1.0 `boxed_reward_fn(response, gold, fast=False)`, as GEM's
MathEnv calls it). Runs in core/bench/.venv-gem. Reads JSON lines {"id", "gold", "response", "config"}
on stdin; writes {"id", "math_verify", "gem"} per case and, last, {"timing": {...}}.

    core/bench/.venv-gem/bin/python core/bench/mathForeign/peer.py < cases.jsonl
"""
from __future__ import annotations

import logging
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "mathDifferential"))
from peer import grade_stream  # noqa: E402 - the shared grading loop of the math peers


def main() -> int:
    logging.disable(logging.CRITICAL)
    from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify

    def targets(config: dict) -> list | None:
        kinds = config.get("match_types")
        if kinds is None:
            return None  # math-verify's default targets (the source called parse() bare)
        made = {"latex": lambda: LatexExtractionConfig(boxed_match_priority=0), "expr": ExprExtractionConfig}
        return [made[k]() for k in kinds]

    def math_verify(gold: str, response: str, config: dict) -> bool:
        t = targets(config)
        if t is None and "$" not in gold and "\\boxed" not in gold:
            gold = f"${gold}$"  # a bare gold, as a math env holds it
        kw = {} if t is None else {"extraction_config": t}
        try:
            return bool(verify(parse(gold, **kw), parse(response, **kw), float_rounding=config.get("precision", 6), strict=config.get("strict", True)))
        except Exception:  # noqa: BLE001 - a failure to parse is a "no", as in an env
            return False

    grade_stream(lambda case: math_verify(case["gold"], case["response"], case.get("config", {})))
    return 0


if __name__ == "__main__":
    sys.exit(main())
