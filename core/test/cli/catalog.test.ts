/** The env catalog behind `gem-ts list --markdown` and docs/environments.md. */
import { homedir, tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { renderCatalog, summariseOptions } from '../../src/cli/catalog.ts';
import { BaseEnv } from '../../src/core/baseEnv.ts';
import type { StepResult } from '../../src/core/env.ts';
import { builtinCatalog, type Catalog } from '../../src/envs/builtinCatalog.ts';

class Idle extends BaseEnv<null> {
  protected clone() {
    return new Idle();
  }
  protected newEpisode() {
    return { observation: 'idle', info: {} };
  }
  protected applyAction(): StepResult {
    return { observation: 'done', reward: 0, terminated: true, truncated: false, info: {} };
  }
  sampleRandomAction() {
    return 'x';
  }
}

/** The built-in catalogue with two made-up ids of a family the page does not know. */
function withFakes(): Catalog {
  const catalog = builtinCatalog();
  const register = catalog.envs.register.bind(catalog.envs);
  register({
    id: 'zzfake:Odd-v0',
    description: 'Pipes | and <tags> stay inside the cell.',
    schema: z.object({ max_turns: z.number().default(7), random: z.boolean().default(true), label: z.string().default('a|b') }).strict(),
    create: () => new Idle(),
  });
  register({
    id: 'zzfake:Needy-v0',
    description: 'Needs an option.',
    schema: z.object({ max_turns: z.number().default(3), target: z.string() }).strict(),
    create: () => new Idle(),
  });
  return catalog;
}

/** The table row of an id: the line that starts with its code span. */
function rowOf(page: string, id: string): string {
  const rows = page.split('\n').filter((l) => l.startsWith(`| \`${id}\` |`));
  expect(rows, id).toHaveLength(1);
  return rows[0];
}

describe('renderCatalog', () => {
  it('has one table row per registered id and one per wrapper', () => {
    const catalog = builtinCatalog();
    const page = renderCatalog(catalog);
    for (const id of catalog.envs.ids()) rowOf(page, id);
    for (const name of catalog.wrappers.names()) expect(page).toMatch(new RegExp(`^\\| \`${name}\` \\| (limit|tool|observation|tracking) \\|`, 'm'));
  });

  it('orders families as documented and ids by code point within one', () => {
    const page = renderCatalog();
    const headings = [...page.matchAll(/^## (\w+): /gm)].map((m) => m[1]);
    const known = ['game', 'multi', 'math', 'code', 'qa', 'logic', 'rg', 'eval'];
    expect(headings.filter((h) => known.includes(h))).toEqual(known);
    const games = [...page.matchAll(/^\| `(game:[^`]+)` \|/gm)].map((m) => m[1]);
    expect(games).toEqual([...games].sort((a, b) => (a < b ? -1 : 1)));
    expect(games.indexOf('game:Wordle-v0')).toBeLessThan(games.indexOf('game:Wordle-v0-easy'));
  });

  it('shows options after the preset defaults, with the turn limit in its own column', () => {
    const row = rowOf(renderCatalog(), 'game:Mastermind-v0-easy');
    expect(row).toBe(
      '| `game:Mastermind-v0-easy` | Crack a secret digit code from black/white peg feedback. | 10 | ' +
        '`code_length=2` `num_numbers=6` `duplicate_numbers=false` `random=false` |',
    );
    expect(rowOf(renderCatalog(), 'game:Mastermind-v0-random')).toContain('| 20\\* |');
  });

  it('names the data source of dataset ids and the key a stand-in sample needs', () => {
    const page = renderCatalog();
    expect(rowOf(page, 'math:GSM8K')).toContain('`axon-rl/GSM-8k:train`<br>sample `math.jsonl` |');
    expect(rowOf(page, 'math:GSM8K')).toContain('also `dataset`, `dataset_name`, `split`, `revision`, `image_key`');
    // The QA sample holds 'question' while NaturalQuestions reads 'problem' by default.
    expect(rowOf(page, 'qa:NaturalQuestions')).toContain('sample `qa.jsonl` with `question_key="question"`');
    expect(rowOf(page, 'qa:HotpotQA')).not.toContain('with `');
    expect(rowOf(page, 'eval:AMC')).toContain('`axon-rl/math-eval:amc`');
  });

  it('puts an unknown family last, escapes cells, and says what an id needs', () => {
    const catalog = withFakes();
    const page = renderCatalog(catalog);
    const headings = [...page.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(headings.at(-2)).toBe('zzfake: other environments');
    expect(headings.at(-1)).toBe('Wrappers');
    expect(page).toContain('| [zzfake: other environments](#zzfake-other-environments) | 2 |');
    expect(rowOf(page, 'zzfake:Odd-v0')).toBe(
      '| `zzfake:Odd-v0` | Pipes \\| and &lt;tags&gt; stay inside the cell. | 7\\* | `random=true` `label="a\\|b"` |',
    );
    expect(rowOf(page, 'zzfake:Needy-v0')).toBe(
      "| `zzfake:Needy-v0` | Needs an option. | 3 | —<br>also `target`<br>**needs:** option 'target': expected string |",
    );
    expect(page).toMatch(/^\\\* A `-random` variant/m);
    const ids = catalog.envs.ids();
    const families = new Set(ids.map((id) => id.split(':')[0]));
    expect(page).toContain(`Every environment id that gem-ts registers: ${ids.length} ids in ${families.size} families.`);
  });

  it('is the same text whatever the machine has: data dirs, Python, working directory', () => {
    const before = renderCatalog();
    const saved = { data: process.env.GEM_TS_DATA_DIR, python: process.env.GEM_TS_PYTHON, cwd: process.cwd() };
    try {
      process.env.GEM_TS_DATA_DIR = tmpdir();
      process.env.GEM_TS_PYTHON = '/nonexistent/python';
      process.chdir(tmpdir());
      expect(renderCatalog()).toBe(before);
    } finally {
      for (const [key, value] of [['GEM_TS_DATA_DIR', saved.data], ['GEM_TS_PYTHON', saved.python]] as const) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
      process.chdir(saved.cwd);
    }
    const repo = fileURLToPath(new URL('../../../', import.meta.url));
    for (const local of [repo, homedir(), tmpdir()]) expect(before).not.toContain(local);
    expect(before.endsWith('\n') && !before.endsWith('\n\n')).toBe(true);
  });
});

describe('summariseOptions', () => {
  const { envs } = builtinCatalog();
  it('gives the resolved options and the options left unset', () => {
    expect(summariseOptions(envs, 'game:GuessTheNumber-v0-easy')).toEqual({
      options: { min_number: 1, max_number: 10, max_turns: 4, random: false },
      unset: [],
    });
    expect(summariseOptions(envs, 'code:Taco8k').unset).toEqual(['dataset', 'dataset_name', 'split', 'revision']);
  });

  it('says what an id needs when its defaults alone do not make it', () => {
    const s = summariseOptions(envs, 'rg:composite');
    expect(s.options).toEqual({ size: 500, config: {} });
    expect(s.needs).toMatch(/^option 'config': rg:composite mixes other tasks: give them as config\.datasets/);
    expect(s.needs).not.toMatch(/known options/);
  });
});
