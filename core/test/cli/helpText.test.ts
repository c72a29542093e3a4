// Every subcommand's --help is plain text: a `\b` in a template literal once printed `^Hoxed{}`.
import { afterEach, describe, expect, it, vi } from 'vitest';

const COMMANDS = ['list', 'play', 'serve', 'eval', 'ui'] as const;

afterEach(() => vi.restoreAllMocks());

async function helpOf(cmd: (typeof COMMANDS)[number]): Promise<string> {
  const lines: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void lines.push(a.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void lines.push(a.join(' ')));
  const mod = (await import(`../../src/cli/${cmd}.ts`)) as { run: (args: string[]) => Promise<number> };
  expect(await mod.run(['--help'])).toBe(0);
  return lines.join('\n');
}

describe('gem-ts <command> --help', () => {
  for (const cmd of COMMANDS) {
    it(`${cmd}: no control characters`, async () => {
      const text = await helpOf(cmd);
      expect(text.length).toBeGreaterThan(40);
      expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
    });
  }
  it('eval names the \\boxed{} answer it asks for', async () => {
    expect(await helpOf('eval')).toContain('asks for a \\boxed{} answer');
  });
});
