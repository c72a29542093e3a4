import { afterEach, describe, expect, it, vi } from 'vitest';
import { collectReport, formatReport, run } from '../../src/cli/doctor.ts';
import { bwrapWorks } from '../sandbox/sandboxSupport.ts';

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

function captureLog(): string[] {
  const out: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  return out;
}

describe('gem-ts doctor', () => {
  it.skipIf(!bwrapWorks())('reports bubblewrap isolation and checks that it holds', async () => {
    const r = await collectReport();
    expect(r.node).toBe(process.version);
    expect(r.python.version).toMatch(/^3\.\d+\.\d+$/);
    expect(r.isolation.kind).toBe('bwrap');
    expect(r.isolation.perRunNamespaces).toBe(true);
    expect(r.sandboxChecks.run.ok).toBe(true);
    expect(r.sandboxChecks.network).toMatchObject({ ok: true });
    expect(r.sandboxChecks.hostFiles).toEqual({ ok: true, detail: 'host files are hidden' });
    expect(r.sandboxUsable).toBe(true);
    expect(r.nodePackages['@modelcontextprotocol/sdk']).toMatch(/^\d+\.\d+/);
    const text = formatReport(r);
    expect(text).toMatch(/Isolation {9}bubblewrap/);
    expect(text).toContain('Sandboxed code can run here.');
  });

  it('says when no isolation is available and exits 1 (sandboxed code is refused)', async () => {
    vi.stubEnv('GEM_TS_BWRAP', '');
    vi.stubEnv('GEM_TS_ALLOW_UNSANDBOXED', '');
    const out = captureLog();
    expect(await run([])).toBe(1);
    const text = out.join('\n');
    expect(text).toMatch(/Isolation {9}none — bubblewrap \(bwrap\) is not installed/);
    expect(text).toContain('sandboxed code is refused');
    expect(text).toContain('Sandboxed code cannot run here');
  });

  it('prints JSON with --json and rejects unknown arguments', async () => {
    vi.stubEnv('GEM_TS_BWRAP', '');
    vi.stubEnv('GEM_TS_ALLOW_UNSANDBOXED', '');
    const out = captureLog();
    await run(['--json']);
    const report = JSON.parse(out.join('\n'));
    expect(report.isolation).toMatchObject({ kind: 'none', unsandboxedAllowed: false });
    out.length = 0;
    expect(await run(['--verbose'])).toBe(2);
    expect(out.join('\n')).toContain('unknown argument --verbose');
  });
});
