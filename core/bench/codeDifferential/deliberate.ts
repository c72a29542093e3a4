/**
 * Where gem-ts grades code replies differently from GEM on purpose, by reply kind/variant, and why
 * gem-ts's verdict is the better one. The differential benchmark and its `npm test` subset fail on a
 * disagreement that is not listed here, and on a listed one that no longer disagrees (except those in
 * LOAD_DEPENDENT, where GEM's verdict depends on how busy the machine is).
 */
export const CODE_DELIBERATE_DIFFERENCES: Record<string, string> = {
  'correct/sys_exit':
    'GEM (sandbox_type "none") refuses any code whose text contains "sys.exit" and scores it 0; gem-ts runs it in the sandbox and reports the exit code, so a correct program ending with sys.exit(0) scores 1.',
  'correct/threading_main':
    'GEM refuses code with "import threading" (the deep-recursion idiom); gem-ts runs it, threads count against the process limit.',
  'correct/fstat_read':
    "GEM pipes stdin, so os.fstat(0).st_size is 0 and a program that reads that many bytes sees no input; gem-ts gives the program its input as a file, as judges do.",
  'correct/missing_import':
    "GEM's NameError retry puts imports of numpy and pandas in front: where pandas is missing (gem-llm does not depend on it) the retry fails, and where it is there each retry spends seconds importing it, 5 at a time, and on a busy machine runs past the 10 s limit (GEM's verdict then depends on the load). gem-ts retries with standard-library imports only.",
  'fence/lang_trailing_space':
    'GEM\'s fence regex needs a newline right after the language word, so "```python \\n" has no code block for it (-0.1); gem-ts allows spaces there.',
};

/** Listed differences that GEM shows only some of the time. */
export const LOAD_DEPENDENT = new Set(['correct/missing_import']);
