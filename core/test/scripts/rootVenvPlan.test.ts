// What each top-level command installs into the root .venv: the demo's venv held lint and Ray
// packages it never used (1.9 GB); npm test still gets every stack.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script, no declarations
import { rootVenvPlan } from '../../../scripts/lib.mjs';

type Plan = { base: string[][]; extraFiles: string[] };
const packagesOf = (plan: Plan): string => [...plan.base.flat(), ...plan.extraFiles].filter((f) => f.endsWith('.txt')).map((f) => readFileSync(f, 'utf8')).join('\n');

describe('root venv plan', () => {
  it('setup and the demo install no lint or Ray packages', () => {
    for (const extras of [[], ['bench']]) {
      const text = packagesOf(rootVenvPlan({ extras }) as Plan);
      expect(text).toMatch(/^math-verify==/m);
      expect(text).not.toMatch(/^(ray|ruff|mypy|virtualenv)==/m);
    }
    expect(packagesOf(rootVenvPlan({ extras: ['bench'] }) as Plan)).toMatch(/^torch==2\.13\.0$/m);
  });

  it('npm test (all extras) installs lint, Ray and the MCP server stack too', () => {
    const text = packagesOf(rootVenvPlan({ extras: 'all' }) as Plan);
    for (const pkg of ['ray', 'ruff', 'mypy', 'torch', 'fastmcp']) expect(text).toMatch(new RegExp(`^${pkg}==`, 'm'));
  });

  it('refuses an extra that has no requirements file', () => {
    expect(() => rootVenvPlan({ extras: ['nope'] })).toThrow(/no requirements file scripts\/requirements\/extras\/nope.txt/);
  });
});
