/**
 * One error hierarchy for programmer and infrastructure faults. Invalid LLM actions are never errors:
 * they are feedback in the observation and a reward. Every error has a stable `code` that survives the
 * wire (the server sends `{code, message, data}`) so Python can raise the matching exception.
 */
/** Every error code, in one runtime list: the wire contract (core/src/server/protocol/contract.ts) exports it. */
export const GEM_ERROR_CODES = [
  'UNKNOWN_ENV',
  'INVALID_ENV_ID',
  'ALREADY_REGISTERED',
  'INVALID_OPTIONS',
  'RESET_NEEDED',
  'ENV_CLOSED',
  'ALREADY_PENDING',
  'NO_PENDING_CALL',
  'INVALID_ACTION_BATCH',
  'INDEX_OUT_OF_RANGE',
  'NOT_SUPPORTED',
  'INVALID_WRAPPER',
  // Env attributes (get_attr/set_attr, core/envAttributes.ts): a name the env does not declare (or a
  // write to a read-only one; Python raises AttributeError), and a value of the wrong type.
  'UNKNOWN_ATTRIBUTE',
  'INVALID_ATTRIBUTE',
  'DATASET_MISSING',
  'DATASET_INVALID',
  // A Python package an env needs (reasoning-gym for rg:*) is not installed in the worker's Python.
  'DEPENDENCY_MISSING',
  'TOOL_ERROR',
  'SANDBOX_UNAVAILABLE',
  'TIMEOUT',
  'WORKER_FAILED',
  'PROTOCOL_ERROR',
  // Wire protocol (docs/protocol.md): a header of a known version whose op or fields are wrong, a
  // body that is not the op's Arrow table, a message over the announced size limit.
  'UNSUPPORTED_VERSION',
  'UNKNOWN_OP',
  'INVALID_REQUEST',
  'INVALID_BODY',
  'MESSAGE_TOO_LARGE',
  'SERVER_UNAVAILABLE',
  'UNKNOWN_HANDLE',
  'LIMIT_EXCEEDED',
  // A session that has not presented the server's auth token (`hello` `token`, gem-ts serve --auth-token).
  'UNAUTHORIZED',
  // `gem-ts eval`: an OpenAI-compatible endpoint that failed after its retries, or answered garbage.
  'ENDPOINT_ERROR',
  'INTERNAL',
] as const;
export type GemErrorCode = (typeof GEM_ERROR_CODES)[number];

export class GemError extends Error {
  readonly code: GemErrorCode;
  readonly data?: unknown;

  constructor(code: GemErrorCode, message: string, data?: unknown) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.data = data;
  }

  toJSON(): { code: GemErrorCode; message: string; data?: unknown } {
    return { code: this.code, message: this.message, data: this.data };
  }
}

export class UnknownEnvError extends GemError {
  constructor(id: string, suggestions: string[]) {
    const hint = suggestions.length ? ` Did you mean: ${suggestions.join(', ')}?` : '';
    super('UNKNOWN_ENV', `Environment '${id}' is not registered.${hint}`, { id, suggestions });
  }
}

export class InvalidOptionsError extends GemError {
  constructor(id: string, problems: string[]) {
    super('INVALID_OPTIONS', `Invalid options for '${id}': ${problems.join('; ')}`, { id, problems });
  }
}

export class ResetNeededError extends GemError {
  constructor(what = 'step') {
    super('RESET_NEEDED', `Cannot ${what} before reset() (or after the episode ended without a reset).`);
  }
}

export class EnvClosedError extends GemError {
  constructor(what = 'use') {
    super('ENV_CLOSED', `Cannot ${what} a closed environment.`);
  }
}

/** True for any GemError, including ones rebuilt from a wire reply. */
export function isGemError(e: unknown): e is GemError {
  return e instanceof GemError;
}
