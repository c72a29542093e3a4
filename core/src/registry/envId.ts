/**
 * GEM's id grammar: `<family>:<Name>[-v<N>][-<variant>]`, e.g. `game:GuessTheNumber-v0-easy`,
 * `math:Math12K`, `rg:letter_counting`. Ids are case-sensitive, as in GEM. On a shared server an id
 * may start with `shared/` (`shared/custom:Foo-v0`): an env one client publishes for every client.
 */
import { GemError } from '../core/errors.ts';

export interface ParsedEnvId {
  family: string;
  name: string;
  version?: number;
  variant?: string;
}

const ENV_ID = /^(?:shared\/)?([a-z][a-z0-9_]*):([A-Za-z0-9_.]+?)(?:-v(\d+))?(?:-([A-Za-z0-9_.-]+))?$/;

export function parseEnvId(id: string): ParsedEnvId {
  const m = ENV_ID.exec(id);
  if (!m) {
    throw new GemError(
      'INVALID_ENV_ID',
      `'${id}' is not an env id; ids look like 'game:GuessTheNumber-v0-easy' or 'math:Math12K'.`,
      { id },
    );
  }
  return {
    family: m[1],
    name: m[2],
    version: m[3] === undefined ? undefined : Number(m[3]),
    variant: m[4],
  };
}

/** Edit distance, for "did you mean" hints. */
export function levenshtein(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length];
}

/** The known ids closest to `id`: same-name variants first, then by edit distance. */
export function closestIds(id: string, known: Iterable<string>, limit = 3): string[] {
  const lower = id.toLowerCase();
  const stem = lower.split('-v')[0];
  return [...known]
    .map((k) => {
      const kl = k.toLowerCase();
      const sameStem = kl.startsWith(stem) || stem.startsWith(kl.split('-v')[0]);
      return { k, score: levenshtein(lower, kl) - (sameStem ? 100 : 0) };
    })
    .sort((x, y) => x.score - y.score || x.k.localeCompare(y.k))
    .slice(0, limit)
    .map((x) => x.k);
}
