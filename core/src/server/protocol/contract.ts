/**
 * The wire contract as data: every header schema of protocol v1 (as JSON Schema) and every error code
 * with its kind. This is what the Python client is generated from (`npm run gen:contract` writes
 * core/python/gem_ts/_contract.py); a test fails when the checked-in output is stale, so a code or a
 * field added on one side reaches the other in the same change.
 */
import { z } from 'zod';
import { GEM_ERROR_CODES, type GemErrorCode } from '../../core/errors.ts';
import * as H from './headers.ts';
import { PROTOCOL_VERSION } from './version.ts';

/**
 * What a client may do about an error, which picks the exception family it raises:
 * - `invalid_request`: the request or its arguments are wrong; resending it fails again.
 * - `env_state`: the env is not in a state for this call (reset it, wait for the pending call).
 * - `unknown_handle`: the handle is gone (closed, freed, another client's, or a restarted server's).
 * - `limit`: a server limit was hit; `data.limit` names it.
 * - `unavailable`: the server (or a worker behind it) is not there; retrying later may work.
 * - `timeout`: no answer in time.
 * - `unauthorized`: the session has not presented the server's auth token.
 * - `not_supported`: the env or server cannot do this at all.
 * - `failure`: something broke while doing it (a tool, a worker, a bug).
 */
export const ERROR_KINDS = [
  'invalid_request',
  'env_state',
  'unknown_handle',
  'limit',
  'unavailable',
  'timeout',
  'unauthorized',
  'not_supported',
  'failure',
] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

/** One kind per code; a code added to errors.ts without a kind here fails the type check and the contract test. */
export const ERROR_CODE_KINDS: Record<GemErrorCode, ErrorKind> = {
  UNKNOWN_ENV: 'invalid_request',
  INVALID_ENV_ID: 'invalid_request',
  ALREADY_REGISTERED: 'invalid_request',
  INVALID_OPTIONS: 'invalid_request',
  RESET_NEEDED: 'env_state',
  ENV_CLOSED: 'env_state',
  ALREADY_PENDING: 'env_state',
  NO_PENDING_CALL: 'env_state',
  INVALID_ACTION_BATCH: 'invalid_request',
  INDEX_OUT_OF_RANGE: 'invalid_request',
  NOT_SUPPORTED: 'not_supported',
  INVALID_WRAPPER: 'invalid_request',
  UNKNOWN_ATTRIBUTE: 'invalid_request',
  INVALID_ATTRIBUTE: 'invalid_request',
  DATASET_MISSING: 'invalid_request',
  DATASET_INVALID: 'invalid_request',
  DEPENDENCY_MISSING: 'failure',
  TOOL_ERROR: 'failure',
  SANDBOX_UNAVAILABLE: 'unavailable',
  TIMEOUT: 'timeout',
  WORKER_FAILED: 'failure',
  PROTOCOL_ERROR: 'invalid_request',
  UNSUPPORTED_VERSION: 'invalid_request',
  UNKNOWN_OP: 'invalid_request',
  INVALID_REQUEST: 'invalid_request',
  INVALID_BODY: 'invalid_request',
  MESSAGE_TOO_LARGE: 'limit',
  SERVER_UNAVAILABLE: 'unavailable',
  UNKNOWN_HANDLE: 'unknown_handle',
  LIMIT_EXCEEDED: 'limit',
  UNAUTHORIZED: 'unauthorized',
  ENDPOINT_ERROR: 'failure',
  INTERNAL: 'failure',
};

/** Every message of protocol v1 by the name its generated type gets. */
export const MESSAGE_SCHEMAS: Record<string, z.ZodType> = {
  HelloRequest: H.HelloRequestSchema,
  PingRequest: H.PingRequestSchema,
  ListEnvsRequest: H.ListEnvsRequestSchema,
  SpecRequest: H.SpecRequestSchema,
  MakeRequest: H.MakeRequestSchema,
  ResetRequest: H.ResetRequestSchema,
  StepRequest: H.StepRequestSchema,
  BatchRequest: H.BatchRequestSchema,
  SampleRequest: H.SampleRequestSchema,
  GetAttrRequest: H.GetAttrRequestSchema,
  SetAttrRequest: H.SetAttrRequestSchema,
  CloseRequest: H.CloseRequestSchema,
  RegisterDatasetRequest: H.RegisterDatasetRequestSchema,
  RegisterEnvRequest: H.RegisterEnvRequestSchema,
  StatsRequest: H.StatsRequestSchema,
  EnvReturn: H.EnvReturnSchema,
  ErrorReply: H.ErrorReplySchema,
  HelloReply: H.HelloReplySchema,
  PingReply: H.PingReplySchema,
  ListEnvsReply: H.ListEnvsReplySchema,
  SpecReply: H.SpecReplySchema,
  MakeReply: H.MakeReplySchema,
  RowsReply: H.RowsReplySchema,
  BatchReply: H.BatchReplySchema,
  SampleReply: H.SampleReplySchema,
  GetAttrReply: H.GetAttrReplySchema,
  SetAttrReply: H.SetAttrReplySchema,
  CloseReply: H.CloseReplySchema,
  RegisterDatasetReply: H.RegisterDatasetReplySchema,
  RegisterEnvReply: H.RegisterEnvReplySchema,
  StatsReply: H.StatsReplySchema,
  EnvCall: H.EnvCallSchema,
};

/** Request message name for each op a client sends. */
export const REQUEST_MESSAGES: Record<keyof typeof H.REQUEST_SCHEMAS, string> = {
  hello: 'HelloRequest',
  ping: 'PingRequest',
  list_envs: 'ListEnvsRequest',
  spec: 'SpecRequest',
  make: 'MakeRequest',
  reset: 'ResetRequest',
  step: 'StepRequest',
  batch: 'BatchRequest',
  sample: 'SampleRequest',
  get_attr: 'GetAttrRequest',
  set_attr: 'SetAttrRequest',
  close: 'CloseRequest',
  register_dataset: 'RegisterDatasetRequest',
  register_env: 'RegisterEnvRequest',
  stats: 'StatsRequest',
  env_return: 'EnvReturn',
};

export type JsonSchema = Record<string, unknown>;

export interface Contract {
  protocol_version: number;
  error_codes: { code: GemErrorCode; kind: ErrorKind }[];
  requests: Record<string, string>;
  messages: Record<string, JsonSchema>;
}

export function contract(): Contract {
  const messages: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(MESSAGE_SCHEMAS)) {
    // Replies are what the server writes (output); requests what it accepts (input): the same here,
    // since no schema transforms.
    messages[name] = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  }
  return {
    protocol_version: PROTOCOL_VERSION,
    error_codes: GEM_ERROR_CODES.map((code) => ({ code, kind: ERROR_CODE_KINDS[code] })),
    requests: { ...REQUEST_MESSAGES },
    messages,
  };
}
