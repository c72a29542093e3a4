/** `gem-ts play` as a person runs it: the real bin script, scripted stdin. */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { make } from '../../src/index.ts';

const BIN = fileURLToPath(new URL('../../bin/gem-ts.js', import.meta.url));

function gemTs(args: string[], input = '') {
  const r = spawnSync(process.execPath, [BIN, ...args], { input, encoding: 'utf8', timeout: 20_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The hidden number of GuessTheNumber-easy under `seed`, found by guessing on copies of the env. */
async function targetOf(seed: number): Promise<number> {
  const env = make('game:GuessTheNumber-v0-easy');
  await env.reset({ seed });
  for (let g = 1; g <= 10; g++) if ((await env.spawn({ sameState: true }).step(`\\boxed{${g}}`)).reward === 1) return g;
  throw new Error('no target');
}

describe('gem-ts play', () => {
  it('plays a seeded episode to a win from scripted stdin', async () => {
    const target = await targetOf(1);
    const miss = target === 1 ? 2 : 1;
    const { code, out } = gemTs(['play', 'game:GuessTheNumber-v0-easy', '--seed', '1'], `${miss}\nmy answer is \\boxed{${target}}\n`);
    expect(code).toBe(0);
    expect(out).toMatch(/^You are playing Guess The Number/);
    expect(out).toMatch(/Enter your next guess\./); // the suffix is shown
    expect(out).toContain(`> ${miss}\n`);
    expect(out).toMatch(/\[reward 0\.0, total 0\.0\]/);
    expect(out).toMatch(/Congratulations!/);
    expect(out).toMatch(/The episode is over after 2 turns; return 1\.0\./);
  });

  it('shows the −0.1 of a format error and ends the episode', () => {
    const { code, out } = gemTs(['play', 'game:GuessTheNumber-v0-easy', '--seed', '2'], '\\boxed{five}\n');
    expect(code).toBe(0);
    expect(out).toMatch(/\[reward -0\.1, total -0\.1\]/);
    expect(out).toMatch(/The episode is over after 1 turns/);
  });

  it('passes options and reports the turn limit', () => {
    const { code, out } = gemTs(['play', 'game:TowerofHanoi-v0-easy', '--option', 'max_turns=1'], 'A C\n');
    expect(code).toBe(0);
    expect(out).toMatch(/A: \[3, 2, 1\]/);
    expect(out).toMatch(/cut off at the turn limit after 1 turns; return 0\.3333/);
  });

  it('stops cleanly when input ends or the player quits', () => {
    expect(gemTs(['play', 'game:Wordle-v0-easy'], '').out).toMatch(/input ended before the episode did/);
    expect(gemTs(['play', 'game:Wordle-v0-easy'], '/quit\nCAT\n').out).toMatch(/\(stopped\)/);
  });

  it('exits 2 with the registry message for an unknown id', () => {
    const { code, err } = gemTs(['play', 'game:GuessTheNumbr-v0-easy']);
    expect(code).toBe(2);
    expect(err).toMatch(/'game:GuessTheNumbr-v0-easy' is not registered\. Did you mean: game:GuessTheNumber-v0-easy/);
  });

  it('suggests the CLI, not TypeScript, for an id without its data', () => {
    const { code, err } = gemTs(['play', 'math:GSM8K']);
    expect(code).toBe(2);
    expect(err).toContain('--option dataset=/path/to/data.parquet');
    expect(err).not.toContain("make('math:GSM8K'");
  });

  it('exits 2 on bad arguments and bad options', () => {
    expect(gemTs(['play']).code).toBe(2);
    const seed = gemTs(['play', 'game:Wordle-v0-easy', '--seed', 'x']);
    expect(seed.code).toBe(2);
    expect(seed.err).toMatch(/--seed needs an integer/);
    const opt = gemTs(['play', 'game:Wordle-v0-easy', '-o', 'max_turns=ten']);
    expect(opt.code).toBe(2);
    expect(opt.err).toMatch(/option 'max_turns': expected number/);
  });
  it('lets two players take turns at one terminal in a multi-agent game', () => {
    const { code, out } = gemTs(['play', 'multi:TicTacToe-v0', '--seed', '0'], '1\n4\n2\n2\n5\n3\n');
    expect(code).toBe(0);
    expect(out).toMatch(/\nX > 1\n[^]*\nO > 4\n/);
    expect(out).toMatch(/not accepted: cell 2 is already taken by X/);
    expect(out).toMatch(/\[rewards X: 0\.0, O: -0\.1; totals X: 0\.0, O: -0\.1\]/);
    expect(out).toMatch(/X wins[^]*returns X: 1\.0, O: -1\.1\./);
  });
});
