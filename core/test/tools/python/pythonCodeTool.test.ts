import { afterAll, describe, expect, it } from 'vitest';
import { PythonCodeTool } from '../../../src/tools/python/pythonCodeTool.ts';
import { Sandbox } from '../../../src/sandbox/sandbox.ts';
import { executeAction } from '../../../src/tools/tool.ts';
import { bwrapWorks } from '../../sandbox/sandboxSupport.ts';

const FENCE = '```';

describe('PythonCodeTool parsing (GEM rules)', () => {
  const tool = new PythonCodeTool();
  const parse = (a: string) => tool.parseAction(a);

  it('finds <python> tags and ```python fences, and keeps the text up to the block', () => {
    expect(parse('think <python> print(1) </python> tail')).toEqual({ kind: 'call', args: { code: 'print(1)' }, parsedAction: 'think <python> print(1) </python>' });
    expect(parse(`a\n${FENCE}python\nx = 2\nprint(x)\n${FENCE}\nb`)).toEqual({
      kind: 'call',
      args: { code: 'x = 2\nprint(x)' },
      parsedAction: `a\n${FENCE}python\nx = 2\nprint(x)\n${FENCE}`,
    });
  });

  it('takes the block that ends first, and only the first of each kind', () => {
    const a = `${FENCE}python\nprint("fence")\n${FENCE} then <python>print("tag")</python>`;
    expect(parse(a)).toMatchObject({ args: { code: 'print("fence")' } });
    const b = `<python>print(1)</python> ${FENCE}python\nprint(2)\n${FENCE} <python>print(3)</python>`;
    expect(parse(b)).toMatchObject({ args: { code: 'print(1)' } });
  });

  it('tolerates a newline before "python" but no other language tag', () => {
    expect(parse(`${FENCE}\npython\nprint(1)\n${FENCE}`)).toMatchObject({ kind: 'call', args: { code: 'print(1)' } });
    expect(parse(`${FENCE}py\nprint(1)\n${FENCE}`)).toEqual({ kind: 'none', parsedAction: `${FENCE}py\nprint(1)\n${FENCE}` });
    expect(parse('no code')).toEqual({ kind: 'none', parsedAction: 'no code' });
  });

  it('rejects a bad timeout', () => {
    expect(() => new PythonCodeTool({ timeout: 0 })).toThrow(/timeout/);
  });
});

describe.skipIf(!bwrapWorks())('PythonCodeTool runs', () => {
  const sandbox = new Sandbox({ poolSize: 1 });
  afterAll(() => sandbox.close());
  const tool = new PythonCodeTool({ sandbox, timeout: 2 });

  it('shows stdout after "Code execution result: "', async () => {
    const r = await executeAction(tool, '<python>print("  hi")\nprint(6*7)</python>');
    expect(r).toEqual({ isValid: true, hasError: false, observation: 'Code execution result: hi\n42\n\n', parsedAction: '<python>print("  hi")\nprint(6*7)</python>' });
  });

  it('adds stderr on a failure and flags the error', async () => {
    const r = await executeAction(tool, '<python>print("before")\nraise ValueError("boom")</python>');
    expect(r.hasError).toBe(true);
    expect(r.observation).toMatch(/^Code execution result: before\n\nTraceback \(most recent call last\):\n[\s\S]*ValueError: boom\n\n$/);
  });

  it('keeps only the last error line when asked', async () => {
    const short = new PythonCodeTool({ sandbox, keepErrorLastLine: true });
    const r = await executeAction(short, '<python>1/0</python>');
    expect(r.observation).toBe('Code execution result: ZeroDivisionError: division by zero\n');
  });

  it('reports a timeout in the observation', async () => {
    const r = await executeAction(tool, '<python>while True: pass</python>');
    expect(r.hasError).toBe(true);
    expect(r.observation).toBe('Code execution result: Execution timed out after 2 seconds.\n');
  });

  it('treats a bare "..." as an error without running it', async () => {
    const r = await executeAction(tool, '<python>...</python>');
    expect(r).toMatchObject({ isValid: true, hasError: true });
    expect(r.observation).toMatch(/SyntaxError/);
  });
});
