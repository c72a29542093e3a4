/**
 * OpenEnv's wire shapes (pip `openenv` 0.10), as its clients send and read them, written out for the
 * OpenEnv front door (docs/interop.md, "OpenEnv"). Only the facts of the protocol are here: the
 * message types on `/ws`, the error codes a client sees, the JSON-RPC codes of `/mcp`, and the
 * request shapes, checked with zod so that bad input is answered with OpenEnv's own error shapes.
 *
 * WebSocket `/ws`, one JSON text frame per message, answered in order:
 *   → {type: 'reset', data: {seed?, episode_id?, …}}   ← {type: 'observation', data: StepPayload}
 *   → {type: 'step', data: <action>}                    ← {type: 'observation', data: StepPayload}
 *   → {type: 'state'}                                   ← {type: 'state', data: {episode_id, step_count, …}}
 *   → {type: 'mcp', data: <JSON-RPC request>}           ← {type: 'mcp', data: <JSON-RPC response>}
 *   → {type: 'close'}                                   (the server ends the session and closes)
 *   any failure                                         ← {type: 'error', data: {message, code, …}}
 */
import { z } from 'zod';

/** The `code` of an OpenEnv WebSocket error frame. */
export const WS_ERROR = {
  INVALID_JSON: 'INVALID_JSON',
  UNKNOWN_TYPE: 'UNKNOWN_TYPE',
  VALIDATION_ERROR: 'VALIDATION_ERROR',
  EXECUTION_ERROR: 'EXECUTION_ERROR',
  CAPACITY_REACHED: 'CAPACITY_REACHED',
  FACTORY_ERROR: 'FACTORY_ERROR',
  SESSION_ERROR: 'SESSION_ERROR',
} as const;
export type WsErrorCode = (typeof WS_ERROR)[keyof typeof WS_ERROR];

/** JSON-RPC 2.0 error codes, as `/mcp` uses them. */
export const RPC_ERROR = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  SERVER_ERROR: -32000,
} as const;

/** What every observation reply carries (OpenEnv's StepResult, before the client parses it). */
export interface StepPayload {
  observation: Record<string, unknown>;
  reward: number | null;
  done: boolean;
  metadata?: Record<string, unknown>;
}

export interface WsErrorData {
  message: string;
  code: WsErrorCode;
  [extra: string]: unknown;
}

export type WsReply =
  | { type: 'observation'; data: StepPayload }
  | { type: 'state'; data: Record<string, unknown> }
  | { type: 'mcp'; data: RpcResponse }
  | { type: 'error'; data: WsErrorData };

export interface RpcError {
  code: number;
  message: string;
  data: unknown;
}

/** A JSON-RPC response has either `result` or `error`, and always `id` (null when unknown). */
export type RpcResponse = { jsonrpc: '2.0'; id: string | number | null; result: unknown } | { jsonrpc: '2.0'; id: string | number | null; error: RpcError };

export function rpcResult(id: string | number | null | undefined, result: unknown): RpcResponse {
  return { jsonrpc: '2.0', id: id ?? null, result };
}

export function rpcError(id: string | number | null | undefined, code: number, message: string, data: unknown = null): RpcResponse {
  return { jsonrpc: '2.0', id: id ?? null, error: { code, message, data } };
}

export function wsError(code: WsErrorCode, message: string, extra: Record<string, unknown> = {}): WsReply {
  return { type: 'error', data: { message, code, ...extra } };
}

// ── requests ───────────────────────────────────────────────────────────────────────────────────

const plainMap = z.record(z.string(), z.unknown());

/** One WebSocket message: its `type` picks the shape; other fields are refused, as OpenEnv's server does. */
export const WsMessageSchemas = {
  reset: z.object({ type: z.literal('reset'), data: plainMap.default({}) }).strict(),
  step: z.object({ type: z.literal('step'), data: plainMap }).strict(),
  state: z.object({ type: z.literal('state') }).strict(),
  close: z.object({ type: z.literal('close') }).strict(),
  mcp: z.object({ type: z.literal('mcp'), data: plainMap }).strict(),
} as const;
export type WsMessageType = keyof typeof WsMessageSchemas;

/**
 * Reset parameters: OpenEnv's (`seed`, `episode_id`) and gem-ts's, which pick the env of the session
 * (`env_id`, `options`, `wrappers`, `wrapper_options`) and pass per-reset options (`reset_options`).
 */
export const ResetDataSchema = z
  .object({
    seed: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().optional(),
    episode_id: z.string().max(255).nullable().optional(),
    env_id: z.string().min(1).optional(),
    options: plainMap.optional(),
    wrappers: z.union([z.string(), z.array(z.string().min(1))]).optional(),
    wrapper_options: plainMap.optional(),
    reset_options: plainMap.optional(),
  })
  .strict();
export type ResetData = z.infer<typeof ResetDataSchema>;

/** A text action: OpenEnv's text envs name the field `message`; `metadata` is every Action's. */
export const TextActionSchema = z.object({ message: z.string(), metadata: plainMap.optional() }).strict();
export const ListToolsActionSchema = z.object({ type: z.literal('list_tools'), metadata: plainMap.optional() }).strict();
export const CallToolActionSchema = z
  .object({ type: z.literal('call_tool'), tool_name: z.string().min(1), arguments: plainMap.default({}), metadata: plainMap.optional() })
  .strict();

/** HTTP `POST /step`: the action, OpenEnv's optional fields, and reset parameters for the fresh env. */
export const HttpStepSchema = ResetDataSchema.extend({
  action: plainMap,
  timeout_s: z.number().positive().nullable().optional(),
  request_id: z.string().max(255).nullable().optional(),
}).strict();

export const RpcRequestSchema = z
  .object({
    jsonrpc: z.literal('2.0'),
    method: z.string(),
    params: plainMap.default({}),
    id: z.union([z.string(), z.number()]).nullable().optional(),
  })
  .strict();
export type RpcRequest = z.infer<typeof RpcRequestSchema>;

/** zod issues in the shape FastAPI (and so OpenEnv) reports validation errors: `{type, loc, msg}`. */
export function validationDetail(error: z.ZodError, root: string): { type: string; loc: (string | number)[]; msg: string }[] {
  return error.issues.map((i) => {
    const keys = i.code === 'unrecognized_keys' ? ` (${i.keys.map((k) => `'${k.slice(0, 64)}'`).join(', ')})` : '';
    return { type: i.code, loc: [root, ...i.path.map((p) => (typeof p === 'number' ? p : String(p)))], msg: `${i.message}${keys}` };
  });
}

/** One line naming every problem, for the `message` of an error frame. */
export function describeValidation(error: z.ZodError, what: string): string {
  const parts = error.issues.map((i) => {
    const at = i.path.map(String).join('.');
    const keys = i.code === 'unrecognized_keys' ? `: ${i.keys.map((k) => `'${k.slice(0, 64)}'`).join(', ')}` : '';
    return `${at ? `'${at}': ` : ''}${i.message}${keys}`;
  });
  return `Invalid ${what}: ${parts.join('; ')}`.slice(0, 2000);
}

/**
 * `JSON.stringify(reply)`, the same text, with the usual observation reply (a step or reset row:
 * `{observation: {text, terminated, truncated, metadata}, reward, done, metadata?}`) written field by
 * field: its text escaped once and its metadata, which it carries twice, serialised once. Anything
 * of another shape goes to JSON.stringify whole.
 */
export function replyText(reply: WsReply | RpcResponse): string {
  if (!('type' in reply) || reply.type !== 'observation') return JSON.stringify(reply);
  const d = reply.data;
  const o = d.observation;
  const { text, terminated, truncated, metadata } = o as { text?: unknown; terminated?: unknown; truncated?: unknown; metadata?: unknown };
  if (
    typeof text !== 'string' ||
    typeof terminated !== 'boolean' ||
    typeof truncated !== 'boolean' ||
    typeof metadata !== 'object' ||
    metadata === null ||
    typeof d.done !== 'boolean' ||
    !(d.reward === null || typeof d.reward === 'number') ||
    (d.metadata !== undefined && d.metadata !== metadata) ||
    !hasKeys(o, 4) ||
    !hasKeys(d, d.metadata === undefined ? 3 : 4)
  ) {
    return JSON.stringify(reply);
  }
  const meta = JSON.stringify(metadata);
  return (
    `{"type":"observation","data":{"observation":{"text":${JSON.stringify(text)},"terminated":${terminated},"truncated":${truncated},` +
    `"metadata":${meta}},"reward":${JSON.stringify(d.reward)},"done":${d.done}${d.metadata === undefined ? '' : `,"metadata":${meta}`}}}`
  );
}

/** Whether `o` has exactly `n` own enumerable keys (the ones checked by name above). */
function hasKeys(o: object, n: number): boolean {
  let k = 0;
  for (const key in o) if (Object.hasOwn(o, key)) k++;
  return k === n;
}
