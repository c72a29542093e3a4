/**
 * Renders the wire contract (contract.ts) as the Python module core/python/gem_ts/_contract.py:
 * a TypedDict per message, the error codes with their kinds, and one exception class per code.
 * Deterministic text, so the contract test can compare it with the checked-in file.
 */
import { contract, type Contract, type ErrorKind, type JsonSchema } from './contract.ts';

export const PYTHON_CONTRACT_PATH = 'core/python/gem_ts/_contract.py';

/** The Python family each kind raises (hand-written in gem_ts/_error_bases.py). */
const KIND_BASES: Record<ErrorKind, string> = {
  invalid_request: 'InvalidRequestError',
  env_state: 'EnvStateError',
  unknown_handle: 'UnknownHandleError',
  limit: 'LimitExceededError',
  unavailable: 'ServerUnavailableError',
  timeout: 'RequestTimeoutError',
  unauthorized: 'UnauthorizedError',
  not_supported: 'NotSupportedError',
  failure: 'GemError',
};

/** Class names that are not the code in CamelCase: TimeoutError would shadow the built-in. */
const CLASS_NAMES: Record<string, string> = { TIMEOUT: 'RequestTimeoutError' };

/** GEM-compatible extra bases: GEM raises ValueError for stepping before reset, so callers catch that. */
const EXTRA_BASES: Record<string, string[]> = { RESET_NEEDED: ['ValueError'], UNKNOWN_ATTRIBUTE: ['AttributeError'] };

function pascal(snake: string): string {
  return snake
    .toLowerCase()
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
}

export function errorClassName(code: string): string {
  const name = pascal(code);
  return CLASS_NAMES[code] ?? (name.endsWith('Error') ? name : `${name}Error`);
}

function pyLiteral(v: unknown): string {
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (v === null) return 'None';
  return JSON.stringify(v);
}

class Renderer {
  readonly classes: string[] = [];

  type(s: JsonSchema, hint: string): string {
    if ('const' in s) return `Literal[${pyLiteral(s.const)}]`;
    if (Array.isArray(s.enum)) return `Literal[${s.enum.map(pyLiteral).join(', ')}]`;
    if (Array.isArray(s.anyOf)) {
      const parts = (s.anyOf as JsonSchema[]).map((p, i) => this.type(p, `${hint}${i}`));
      const nonNull = [...new Set(parts.filter((p) => p !== 'None'))];
      const inner = nonNull.length === 1 ? nonNull[0] : `Union[${nonNull.join(', ')}]`;
      return parts.includes('None') ? `Optional[${inner}]` : inner;
    }
    switch (s.type) {
      case 'integer':
        return 'int';
      case 'number':
        return 'float';
      case 'string':
        return 'str';
      case 'boolean':
        return 'bool';
      case 'null':
        return 'None';
      case 'array':
        return `List[${s.items ? this.type(s.items as JsonSchema, `${hint}Item`) : 'Any'}]`;
      case 'object':
        if (s.properties) return this.typedDict(hint, s);
        return 'Dict[str, Any]';
      default:
        return 'Any';
    }
  }

  /** A TypedDict; optional keys go in a `total=False` subclass of the required ones (3.10 has no NotRequired). */
  typedDict(name: string, s: JsonSchema): string {
    const props = s.properties as Record<string, JsonSchema>;
    const required = new Set((s.required as string[] | undefined) ?? []);
    const lines = (keys: string[]) => keys.map((k) => `    ${k}: ${this.type(props[k], name + pascal(k))}`);
    const req = Object.keys(props).filter((k) => required.has(k));
    const opt = Object.keys(props).filter((k) => !required.has(k));
    const reqBody = lines(req);
    const optBody = lines(opt);
    if (opt.length && req.length) {
      this.classes.push(`class _${name}Required(TypedDict):\n${reqBody.join('\n')}\n`);
      this.classes.push(`class ${name}(_${name}Required, total=False):\n${optBody.join('\n')}\n`);
    } else if (opt.length) {
      this.classes.push(`class ${name}(TypedDict, total=False):\n${optBody.join('\n')}\n`);
    } else {
      this.classes.push(`class ${name}(TypedDict):\n${reqBody.length ? reqBody.join('\n') : '    pass'}\n`);
    }
    return name;
  }
}

function fieldSets(c: Contract): { all: string; required: string } {
  const all: string[] = [];
  const required: string[] = [];
  for (const [op, name] of Object.entries(c.requests)) {
    const s = c.messages[name];
    const props = Object.keys(s.properties as object);
    const req = (s.required as string[]) ?? [];
    all.push(`    ${JSON.stringify(op)}: frozenset({${props.map((p) => JSON.stringify(p)).join(', ')}}),`);
    required.push(`    ${JSON.stringify(op)}: frozenset({${req.map((p) => JSON.stringify(p)).join(', ')}}),`);
  }
  return { all: all.join('\n'), required: required.join('\n') };
}

export function renderPythonContract(c: Contract = contract()): string {
  const r = new Renderer();
  for (const [name, schema] of Object.entries(c.messages)) r.typedDict(name, schema);
  const bases = [...new Set(Object.values(KIND_BASES))].sort();
  const errorClasses: string[] = [];
  const table: string[] = [];
  for (const { code, kind } of c.error_codes) {
    const cls = errorClassName(code);
    const base = KIND_BASES[kind];
    if (cls !== base) {
      const parents = [base, ...(EXTRA_BASES[code] ?? [])].join(', ');
      errorClasses.push(`class ${cls}(${parents}):\n    """Error code ${code} (${kind})."""\n`);
    }
    table.push(`    ${JSON.stringify(code)}: ${cls},`);
  }
  const fields = fieldSets(c);
  return `# Generated by \`npm run gen:contract\` from core/src/server/protocol/contract.ts: do not edit.
"""The wire contract of protocol v${c.protocol_version}, for the Python client.

A TypedDict per header (requests and replies), every error code with its kind, and one exception
class per code. The test core/test/server/protocol/contract.test.ts fails when this file is stale.
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, TypedDict, Union

from ._error_bases import (
${bases.map((b) => `    ${b},`).join('\n')}
)

PROTOCOL_VERSION = ${c.protocol_version}

ERROR_CODES: tuple[str, ...] = (
${c.error_codes.map((e) => `    ${JSON.stringify(e.code)},`).join('\n')}
)

ERROR_KINDS: Dict[str, str] = {
${c.error_codes.map((e) => `    ${JSON.stringify(e.code)}: ${JSON.stringify(e.kind)},`).join('\n')}
}

#: Every field a request of each op may carry (the server rejects any other).
REQUEST_FIELDS: Dict[str, frozenset[str]] = {
${fields.all}
}

#: The fields a request of each op must carry.
REQUEST_REQUIRED: Dict[str, frozenset[str]] = {
${fields.required}
}

# ── messages ────────────────────────────────────────────────────────────────────────────────────


${r.classes.join('\n\n')}

# ── one exception class per error code ──────────────────────────────────────────────────────────


${errorClasses.join('\n\n')}

ERROR_CLASSES: Dict[str, type[GemError]] = {
${table.join('\n')}
}
`;
}
