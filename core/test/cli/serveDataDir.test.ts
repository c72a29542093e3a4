// `gem-ts serve --data-dir DIR`: a directory that is not there stops the server before it binds.
import { afterEach, expect, it, vi } from 'vitest';
import { run } from '../../src/cli/serve.ts';

afterEach(() => vi.restoreAllMocks());

it('refuses a --data-dir that does not exist, naming it (exit 2)', async () => {
  const errors: string[] = [];
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void errors.push(a.join(' ')));
  expect(await run(['--data-dir', '/tmp', '--data-dir', '/no/such/gem-ts-dir'])).toBe(2);
  expect(errors.join('\n')).toMatch(/data directory '\/no\/such\/gem-ts-dir' cannot be used/);
});
