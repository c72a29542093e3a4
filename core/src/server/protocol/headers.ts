/**
 * zod schemas of every protocol v1 header, requests and replies (docs/protocol.md is the prose twin).
 * Request schemas are strict: a misspelt field is an INVALID_REQUEST naming it, never silently dropped.
 */
import { z } from 'zod';
import { PROTOCOL_VERSION } from './version.ts';

const requestId = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const handle = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const index = z.number().int().min(0).max(2 ** 31 - 1);
const plainMap = z.record(z.string(), z.unknown());

/** Fields every request carries. */
export const RequestBaseSchema = z.object({ v: z.literal(PROTOCOL_VERSION), id: requestId, op: z.string() });

function request<S extends z.ZodRawShape, O extends string>(op: O, shape: S) {
  return z.object({ v: z.literal(PROTOCOL_VERSION), id: requestId, op: z.literal(op), ...shape }).strict();
}

/** Inline step rows (columns as arrays); the Arrow twin is STEP_REQUEST_SCHEMA. */
export const InlineActionsSchema = z
  .object({ env_index: z.array(index), action: z.array(z.string()) })
  .strict()
  .refine((r) => r.env_index.length === r.action.length, { message: 'env_index and action must have the same length' });

/** How the client wants rows back: `auto` (inline up to inline_max_rows), always `arrow`, always `inline`. */
export const ReplyFormatSchema = z.enum(['auto', 'arrow', 'inline']);

/** GEM wrapper names innermost first, as a list or GEM's comma string ('concat,episode_tracking'). */
export const WrappersSchema = z.union([z.string(), z.array(z.string().min(1))]);

/**
 * `token` is the server's auth token when it requires one (`gem-ts serve --auth-token`); `resume` the
 * secret an earlier hello reply gave this client, to get its session back on a new connection.
 */
export const HelloRequestSchema = request('hello', { client: plainMap.optional(), token: z.string().optional(), resume: z.string().max(256).optional() });
export const PingRequestSchema = request('ping', {});
export const ListEnvsRequestSchema = request('list_envs', { filter: z.string().optional(), verbose: z.boolean().optional() });
export const SpecRequestSchema = request('spec', { env_id: z.string().optional(), handle: handle.optional() }).refine(
  (r) => (r.env_id === undefined) !== (r.handle === undefined),
  { message: 'give exactly one of env_id and handle' },
);
export const MakeRequestSchema = request('make', {
  env_ids: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
  num_envs: z.number().int().min(1).optional(),
  options: plainMap.optional(),
  vec_options: z.array(plainMap).optional(),
  wrappers: WrappersSchema.optional(),
  /** One snake_case bag for the stack, e.g. `{chat_template: '<jinja>'}` for concat_chat. */
  wrapper_options: plainMap.optional(),
  autoreset_mode: z.enum(['same_step', 'next_step', 'disabled']).optional(),
  seed: z.number().int().optional(),
  async_mode: z.boolean().optional(),
});
export const ResetRequestSchema = request('reset', {
  handle,
  seed: z.union([z.number().int(), z.array(z.number().int()), z.null()]).optional(),
  options: z.union([plainMap, z.array(plainMap)]).optional(),
  indices: z.array(index).optional(),
  reply_format: ReplyFormatSchema.optional(),
});
export const StepRequestSchema = request('step', {
  handle,
  rows: InlineActionsSchema.optional(),
  reply_format: ReplyFormatSchema.optional(),
});
/**
 * Single-env steps and resets across this session's handles, one row each (what gem_ts.aio gathers
 * from its coroutines in one event-loop tick). A row with a nil `action` is a reset, with `seed[k]`
 * and `options[k]` when those columns are given. Rows that name one env run in row order.
 */
export const BatchRowsSchema = z
  .object({
    handle: z.array(handle),
    env_index: z.array(index),
    action: z.array(z.string().nullable()),
    seed: z.array(z.number().int().nullable()).optional(),
    options: z.array(plainMap.nullable()).optional(),
  })
  .strict()
  .refine(
    (r) =>
      r.env_index.length === r.handle.length &&
      r.action.length === r.handle.length &&
      (r.seed === undefined || r.seed.length === r.handle.length) &&
      (r.options === undefined || r.options.length === r.handle.length),
    { message: 'every column must have one entry per row' },
  );
export const BatchRequestSchema = request('batch', { rows: BatchRowsSchema });
export const SampleRequestSchema = request('sample', { handle, indices: z.array(index).optional() });
/** Env attributes (core/envAttributes.ts): `name` of the envs at `indices` (all when absent). */
export const GetAttrRequestSchema = request('get_attr', { handle, name: z.string().min(1), indices: z.array(index).optional() });
/** A write: one `value` for every env at `indices`, or `values`, one per env; exactly one of them. */
export const SetAttrRequestSchema = request('set_attr', {
  handle,
  name: z.string().min(1),
  indices: z.array(index).optional(),
  value: z.unknown().optional(),
  values: z.array(z.unknown()).optional(),
}).refine((r) => ('value' in r) !== (r.values !== undefined), { message: "give exactly one of 'value' and 'values'" });
export const CloseRequestSchema = request('close', { handle: handle.optional() });
export const RegisterDatasetRequestSchema = request('register_dataset', { name: z.string().min(1) });
export const RegisterEnvRequestSchema = request('register_env', {
  env_id: z.string().min(1),
  description: z.string().optional(),
  defaults: plainMap.optional(),
});
export const StatsRequestSchema = request('stats', {});
/** The client's answer to a server→client env_call. */
export const EnvReturnSchema = z
  .object({
    v: z.literal(PROTOCOL_VERSION),
    id: requestId,
    op: z.literal('env_return'),
    ok: z.boolean(),
    result: z.unknown().optional(),
    error: z.object({ code: z.string(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .strict();

export const REQUEST_SCHEMAS = {
  hello: HelloRequestSchema,
  ping: PingRequestSchema,
  list_envs: ListEnvsRequestSchema,
  spec: SpecRequestSchema,
  make: MakeRequestSchema,
  reset: ResetRequestSchema,
  step: StepRequestSchema,
  batch: BatchRequestSchema,
  sample: SampleRequestSchema,
  get_attr: GetAttrRequestSchema,
  set_attr: SetAttrRequestSchema,
  close: CloseRequestSchema,
  register_dataset: RegisterDatasetRequestSchema,
  register_env: RegisterEnvRequestSchema,
  stats: StatsRequestSchema,
  env_return: EnvReturnSchema,
} as const;

export type HelloRequest = z.infer<typeof HelloRequestSchema>;
export type ListEnvsRequest = z.infer<typeof ListEnvsRequestSchema>;
export type SpecRequest = z.infer<typeof SpecRequestSchema>;
export type MakeRequest = z.infer<typeof MakeRequestSchema>;
export type ResetRequest = z.infer<typeof ResetRequestSchema>;
export type StepRequest = z.infer<typeof StepRequestSchema>;
export type BatchRequest = z.infer<typeof BatchRequestSchema>;
export type CloseRequest = z.infer<typeof CloseRequestSchema>;
export type GetAttrRequest = z.infer<typeof GetAttrRequestSchema>;
export type SetAttrRequest = z.infer<typeof SetAttrRequestSchema>;
export type RegisterDatasetRequest = z.infer<typeof RegisterDatasetRequestSchema>;
export type RegisterEnvRequest = z.infer<typeof RegisterEnvRequestSchema>;
export type EnvReturn = z.infer<typeof EnvReturnSchema>;
export type ReplyFormat = z.infer<typeof ReplyFormatSchema>;

// ── Replies ─────────────────────────────────────────────────────────────────────────────────────

export const ErrorBodySchema = z.object({ code: z.string(), message: z.string(), data: z.unknown().optional() });

const replyBase = { v: z.literal(PROTOCOL_VERSION), id: requestId.nullable() };

export const ErrorReplySchema = z.object({ ...replyBase, ok: z.literal(false), error: ErrorBodySchema });

function reply<S extends z.ZodRawShape>(shape: S) {
  return z.object({ ...replyBase, ok: z.literal(true), ...shape });
}

export const LimitsSchema = z.object({
  max_message_bytes: z.number(),
  max_envs_per_handle: z.number(),
  max_handles_per_client: z.number(),
  max_inflight_per_client: z.number(),
  idle_timeout_ms: z.number(),
  heartbeat_ms: z.number(),
  inline_max_rows: z.number(),
  /** Tenancy quotas (docs/protocol.md, "Tenancy"): a breach is LIMIT_EXCEEDED naming the limit. */
  max_envs_per_client: z.number(),
  max_dataset_bytes_per_client: z.number(),
  max_dataset_bytes_total: z.number(),
  memory_headroom_bytes: z.number(),
});

export const HelloReplySchema = reply({
  protocol: z.literal(PROTOCOL_VERSION),
  server: z.object({ name: z.string(), version: z.string(), node: z.string(), pid: z.number() }),
  limits: LimitsSchema,
  /** Random, fixed for the life of the server process: a client that finds another one after a
   * reconnect knows the server restarted and every handle it holds is gone. */
  boot_id: z.string(),
  /** This session's secret: a client that reconnects sends it as `resume` in its hello (after the
   * token, when the server wants one) to find its handles again; without it a new connection starts a
   * new session. Optional: servers before it did not send one. */
  resume: z.string().optional(),
});
export const PingReplySchema = reply({ time_ms: z.number() });
export const EnvSummarySchema = z.object({
  id: z.string(),
  family: z.string(),
  description: z.string(),
  defaults: plainMap,
  source: z.enum(['server', 'client']),
});
export const ListEnvsReplySchema = reply({ envs: z.array(z.union([z.string(), EnvSummarySchema])) });
export const SpecReplySchema = reply({ specs: z.array(plainMap) });
export const MakeReplySchema = reply({
  handle,
  num_envs: z.number().int(),
  env_ids: z.array(z.string()),
  autoreset_mode: z.enum(['same_step', 'next_step', 'disabled']),
  wrappers: z.array(z.string()),
  repr: z.array(z.string()),
});
/** Inline rows: the Arrow ROWS_SCHEMA as columns, `info` as maps instead of JSON text. */
export const InlineRowsSchema = z.object({
  env_index: z.array(z.number()),
  observation: z.array(z.string()),
  reward: z.array(z.number()),
  terminated: z.array(z.boolean()),
  truncated: z.array(z.boolean()),
  info: z.array(plainMap),
});
/** Reset and step replies: `n` rows, inline in `rows` or in the Arrow body frame. */
export const RowsReplySchema = reply({ n: z.number().int().min(0), rows: InlineRowsSchema.optional() });
/** One row of a batch that failed: the error it would have had alone (its data names `handle` and `index`). */
export const BatchRowErrorSchema = z.object({ row: z.number().int().min(0), code: z.string(), message: z.string(), data: z.unknown().optional() });
/** A batch reply: one inline row per request row, in request order; a failed row's values are empty and its error is in `errors`. */
export const BatchReplySchema = reply({ n: z.number().int().min(0), rows: InlineRowsSchema, errors: z.array(BatchRowErrorSchema).optional() });
export type BatchRowError = z.infer<typeof BatchRowErrorSchema>;
export const SampleReplySchema = reply({ env_index: z.array(z.number()), action: z.array(z.string()) });
export const GetAttrReplySchema = reply({ env_index: z.array(z.number()), value: z.array(z.unknown()) });
export const SetAttrReplySchema = reply({ env_index: z.array(z.number()) });
export const CloseReplySchema = reply({ closed: z.array(handle) });
export const RegisterDatasetReplySchema = reply({ name: z.string(), rows: z.number().int(), columns: z.array(z.string()) });
export const RegisterEnvReplySchema = reply({ env_id: z.string() });
export const StatsReplySchema = reply({ server: plainMap, client: plainMap });

/** A server→client call on an env defined in the client's Python process. */
export const EnvCallSchema = z.object({
  v: z.literal(PROTOCOL_VERSION),
  id: requestId,
  op: z.literal('env_call'),
  env_id: z.string(),
  instance: z.number().int(),
  call: z.enum(['create', 'reset', 'step', 'close', 'get_attr', 'set_attr']),
  args: plainMap,
});
export type EnvCall = z.infer<typeof EnvCallSchema>;
export type InlineRows = z.infer<typeof InlineRowsSchema>;
