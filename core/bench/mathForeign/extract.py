"""Builds core/bench/mathForeign/corpus.jsonl: graded answer pairs that math-verify publishes as its own
tests, taken as data (gold, prediction, expected verdict, the test's precision/strict), each with its
source named. Reads the test files with Python's `ast` (nothing of them runs); no code carries over.

    python -m pip download math-verify==0.9.0 --no-binary :all: --no-deps -d /tmp/mv && tar xzf /tmp/mv/*.tar.gz -C /tmp/mv
    python core/bench/mathForeign/extract.py /tmp/mv/math_verify-0.9.0 > core/bench/mathForeign/corpus.jsonl

The peers' verdicts are added afterwards by `npm run bench mathForeign -- --write-verdicts`.
Which tests are left out, and why, is in DROPPED below (the report prints the counts).
"""
from __future__ import annotations

import ast
import json
import math
import re
import sys
from pathlib import Path

REPO = "huggingface/Math-Verify"
# Tests that are not about answer equivalence, or that set a knob gem-ts does not have.
DROPPED = {
    "test_string_extraction.py": "StringExtractionConfig: which letter a multiple-choice parser extracts, not answer equivalence",
    "test_configs.py": "math-verify's own extraction/normalisation switches (boxed_match_priority, NormalizationConfig)",
    "test_timeout.py": "math-verify's timeout plumbing (mocked parsers)",
    "test_raise_on_error.py": "math-verify's raise_on_error flag",
    "test_gamma_func.py": "how math-verify's sympy parser names the gamma function (no gold/answer pair)",
    "test_precision": "sympy_expr_eq on sympy objects, not text (its one text pair is kept)",
}
# Within a kept test: a case that depends on a knob gem-ts lacks.
SET_RELATION_KNOB = "decided by allow_set_relation_comp, a math-verify switch gem-ts does not have (gem-ts matches a relation and the set it describes both ways)"


def literal(node: ast.AST) -> object:
    """A literal, or an f-string / expression over `math` (test_all.py computes one gold as sqrt(17))."""
    try:
        return ast.literal_eval(node)
    except ValueError:
        return eval(compile(ast.Expression(node), "<case>", "eval"), {"math": math, "__builtins__": {}})  # noqa: S307 - a test file's constant


def call_config(call: ast.Call) -> dict[str, object]:
    """precision / strict / allow_set_relation_comp / match_types as the test passes them to its helper."""
    out: dict[str, object] = {}
    for kw in call.keywords:
        if kw.arg in ("precision", "strict", "allow_set_relation_comp", "match_types"):
            try:
                out[kw.arg] = ast.literal_eval(kw.value)
            except ValueError:
                out[kw.arg] = ("param", kw.value.id) if isinstance(kw.value, ast.Name) else None
    return out


def graded_calls(fn: ast.FunctionDef) -> list[ast.Call]:
    return [n for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("compare_strings", "verify")]


# A source verdict that is mathematically wrong: (file, gold, pred) -> the right verdict and why.
CORRECTIONS = {
    ("test_yujianll.py", "$1 - \\frac{1}{\\mathrm{e}}$", "$1 + \\frac{1}{\\mathrm{e}}$"): (False, "1 - 1/e and 1 + 1/e differ; the test asserts 1 (math-verify 0.9.0 itself returns 0 on it)"),
}


def cases_of(path: Path) -> tuple[list[dict], list[str]]:
    tree = ast.parse(path.read_text())
    cases: list[dict] = []
    dropped: list[str] = []
    for fn in [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test")]:
        if fn.name in DROPPED:
            dropped.append(f"{path.name}::{fn.name}: {DROPPED[fn.name]}")
            # Its text pairs (compare_strings with literal arguments) are still cases.
        calls = graded_calls(fn)
        config = call_config(calls[0]) if calls else {}
        for dec in fn.decorator_list:
            if not (isinstance(dec, ast.Call) and getattr(dec.func, "attr", "") == "parametrize"):
                continue
            names = [s.strip() for s in ast.literal_eval(dec.args[0]).split(",")]
            for row in dec.args[1].elts:  # type: ignore[attr-defined]
                values = dict(zip(names, (literal(v) for v in row.elts)))
                expected = values.get("expected", values.get("result"))
                case_config = {k: (values[v[1]] if isinstance(v, tuple) else v) for k, v in config.items()}
                for k in ("precision", "strict", "allow_set_relation_comp"):
                    if k in values:
                        case_config[k] = values[k]
                if "allow_set_relation_comp" in case_config and "\\in" in values["gold"]:
                    # A gold set against a relation answer: the verdict is the switch's, not the answer's.
                    dropped.append(f"{path.name}::{fn.name}: {values['gold']!r} vs {values['pred']!r} (allow_set_relation_comp={case_config['allow_set_relation_comp']}): {SET_RELATION_KNOB}")
                    continue
                if case_config.get("allow_set_relation_comp"):
                    dropped.append(f"{path.name}::{fn.name}: {values['gold']!r} vs {values['pred']!r}: {SET_RELATION_KNOB}")
                    continue
                case = {"gold": values["gold"], "pred": values["pred"], "expected": bool(expected), "test": fn.name, "config": case_config}
                fix = CORRECTIONS.get((path.name, values["gold"], values["pred"]))
                if fix:
                    case.update(expected=fix[0], source_expected=bool(expected), correction=fix[1])
                cases.append(case)
        if fn.name == "test_precision":
            for call in calls:
                if call.func.id == "compare_strings" and all(isinstance(a, ast.Constant) for a in call.args[:2]):  # type: ignore[attr-defined]
                    parent = next(n for n in ast.walk(fn) if isinstance(n, ast.Compare) and n.left is call)
                    cases.append({"gold": call.args[0].value, "pred": call.args[1].value, "expected": bool(ast.literal_eval(parent.comparators[0])), "test": fn.name, "config": call_config(call)})  # type: ignore[attr-defined]
    return cases, dropped


BARE_WORDS = {"and", "or", "percent", "percentage", "pct", "cm", "meters", "text", "textbf"}
MATH_SPAN = re.compile(r"^\s*(?:\$\$(.+)\$\$|\$(.+)\$|\\\((.+)\\\)|\\\[(.+)\\\])\s*\.?\s*$", re.S)


def as_response(pred: str) -> tuple[str, str]:
    """The response a math env would grade, and how it was made (docs/math-grader.md, "The foreign corpus").

    - boxed: the prediction already has a box: it is the response as written;
    - wrapped: the prediction is one answer (a single $…$, $$…$$, \\(…\\) or \\[…\\] span, or bare LaTeX
      without prose): its content goes into one box;
    - prose: a free-form model output without a box: kept as it is (a math env, GEM's or ours, pays 0
      for it; gem-ts's eval option extract_from_prose grades it), reported apart from the boxed cases.
    """
    if "\\boxed" in pred or "\\fbox" in pred:
        return pred, "boxed"
    m = MATH_SPAN.match(pred)
    inner = next((g for g in m.groups() if g is not None), None) if m else None
    if inner is not None and "$" not in inner:
        return f"The final answer is $\\boxed{{{inner.strip()}}}$.", "wrapped"
    # Bare LaTeX: no math delimiters and at most one word that is not a unit or a connective.
    words = [w for w in re.findall(r"(?<![\\A-Za-z])[A-Za-z]{2,}", re.sub(r"\\(?:begin|end)\{\w+\}", "", pred)) if w.lower() not in BARE_WORDS]
    if not re.search(r"\$|\\[([]", pred) and len(words) <= 1:
        return f"The final answer is $\\boxed{{{pred.strip()}}}$.", "wrapped"
    return pred, "prose"


def main() -> int:
    root = Path(sys.argv[1])
    out: list[dict] = []
    dropped: list[str] = []
    for path in sorted((root / "tests").glob("test_*.py")):
        if path.name in DROPPED:
            dropped.append(f"{path.name}: {DROPPED[path.name]}")
            continue
        cases, gone = cases_of(path)
        dropped += gone
        for c in cases:
            response, shape = as_response(c["pred"])
            out.append({"id": f"mv-{len(out) + 1}", "source": {"repo": REPO, "file": f"tests/{path.name}", "test": c.pop("test"), "version": "math-verify 0.9.0 sdist"}, **c, "response": response, "shape": shape})
    # Hand-entered pairs of other projects' grader tests (their arguments and asserted verdicts).
    for line in (Path(__file__).parent / "others.jsonl").read_text().splitlines():
        c = json.loads(line)
        response, shape = as_response(c["pred"])
        out.append({"id": f"other-{len(out) + 1}", **c, "response": response, "shape": shape})
    for c in out:
        print(json.dumps(c, ensure_ascii=False))
    for d in dropped:
        print(f"dropped: {d}", file=sys.stderr)
    print(f"{len(out)} cases; {len(dropped)} dropped entries", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
