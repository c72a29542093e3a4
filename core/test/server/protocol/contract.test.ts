import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GEM_ERROR_CODES } from '../../../src/core/errors.ts';
import { ERROR_CODE_KINDS, ERROR_KINDS, MESSAGE_SCHEMAS, REQUEST_MESSAGES, contract } from '../../../src/server/protocol/contract.ts';
import { PYTHON_CONTRACT_PATH, errorClassName, renderPythonContract } from '../../../src/server/protocol/contractPython.ts';
import { REQUEST_SCHEMAS } from '../../../src/server/protocol/headers.ts';
import { REQUEST_OPS } from '../../../src/server/protocol/version.ts';

const repoRoot = join(import.meta.dirname, '..', '..', '..', '..');

describe('wire contract', () => {
  it('gives every error code exactly one kind, and no kind to a code errors.ts lacks', () => {
    expect(Object.keys(ERROR_CODE_KINDS).sort()).toEqual([...GEM_ERROR_CODES].sort());
    for (const kind of Object.values(ERROR_CODE_KINDS)) expect(ERROR_KINDS).toContain(kind);
    expect(new Set(GEM_ERROR_CODES).size).toBe(GEM_ERROR_CODES.length);
  });

  it('names a message type for every request op the server parses', () => {
    expect(Object.keys(REQUEST_MESSAGES).sort()).toEqual([...REQUEST_OPS].sort());
    expect(Object.keys(REQUEST_SCHEMAS).sort()).toEqual([...REQUEST_OPS].sort());
    for (const name of Object.values(REQUEST_MESSAGES)) expect(MESSAGE_SCHEMAS[name]).toBeDefined();
  });

  it('exports every header as a JSON Schema object with its fields', () => {
    const c = contract();
    expect(Object.keys(c.messages)).toEqual(Object.keys(MESSAGE_SCHEMAS));
    for (const schema of Object.values(c.messages)) expect(schema.type).toBe('object');
    expect(Object.keys(c.messages.HelloReply.properties as object)).toContain('boot_id');
    expect(Object.keys(c.messages.HelloRequest.properties as object)).toContain('token');
  });

  it('gives each code its own Python class name', () => {
    const names = GEM_ERROR_CODES.map(errorClassName);
    expect(new Set(names).size).toBe(names.length);
    expect(errorClassName('RESET_NEEDED')).toBe('ResetNeededError');
    expect(errorClassName('TOOL_ERROR')).toBe('ToolError');
  });

  it(`matches the checked-in ${PYTHON_CONTRACT_PATH} (run npm run gen:contract when this fails)`, () => {
    const checkedIn = readFileSync(join(repoRoot, PYTHON_CONTRACT_PATH), 'utf8');
    expect(checkedIn === renderPythonContract(), `${PYTHON_CONTRACT_PATH} is stale: run npm run gen:contract`).toBe(true);
    for (const code of GEM_ERROR_CODES) expect(checkedIn).toContain(`"${code}": ${errorClassName(code)},`);
  });
});
