/**
 * Where gem-ts grades QA replies differently from GEM (gem-llm 0.1.0 QaEnv) on purpose, by the
 * corpus kind `<gold type>/<perturbation>`, and why gem-ts's verdict is the better one. The QA
 * differential and its `npm test` fixture fail on a disagreement not listed here, and on a listed
 * kind that no longer disagrees anywhere. The rules are in docs/code-qa-graders.md.
 */
const NO_ANSWER = 'GEM extracts no answer, then raises UnboundLocalError in step (is_correct is never set); gem-ts scores 0 and goes on.';
const BOXED_FORM = 'GEM finds the box but its remove_boxed needs the exact prefix "\\boxed{", so it extracts nothing and raises; gem-ts reads this form of the box.';

export const QA_DELIBERATE_DIFFERENCES: Record<string, string> = {
  'str/bom': 'A leading U+FEFF (byte-order mark, invisible) is dropped by gem-ts; GEM keeps it (Python does not count it as whitespace), so the answer never matches.',
  'str/decomposed': 'gem-ts compares in Unicode NFC and keeps combining marks inside their word; GEM compares code points, so a decomposed "José" differs from the composed gold, and a decomposed "ã" even loses its "a" as an article.',
  'str/no_tag': NO_ANSWER,
  'str/unclosed_tag': NO_ANSWER,
  'int/float_form': 'The gold is the integer 100: gem-ts takes "100.0" by value; GEM compares "100" with "1000" (the point removed as punctuation).',
  'int/exponent': 'gem-ts takes "1.2e2" as 120 by value; GEM compares text.',
  'float/int_form': 'A float gold 100.0 is the number 100: gem-ts takes "100"; GEM compares str(100.0) = "100.0", without punctuation "1000", and fails it.',
  'float/times_ten': 'The same GEM rule passes "1000" for a gold of 100.0; gem-ts fails it.',
  'float_frac/digits_only': 'GEM passes "25" for a gold of 2.5 (the point is removed as punctuation); gem-ts fails it.',
  'float_frac/trailing_zero': 'gem-ts takes "2.50" for 2.5 by value; GEM compares "250" with "25".',
  'bool/yes_no': 'A boolean gold is graded by meaning: true matches "yes", false matches "no"; GEM compares str(True) = "True" only.',
  'bool/boxed_space': BOXED_FORM,
  'bool/fbox': BOXED_FORM,
  'bool/no_box': NO_ANSWER,
};
