/** Protocol v1 constants shared by the codecs, the server and the fixtures (docs/protocol.md). */
export const PROTOCOL_VERSION = 1;

/** Requests a client may send. `env_return` answers a server→client `env_call` (Python-defined envs). */
export const REQUEST_OPS = [
  'hello',
  'ping',
  'list_envs',
  'spec',
  'make',
  'reset',
  'step',
  'batch',
  'sample',
  'get_attr',
  'set_attr',
  'close',
  'register_dataset',
  'register_env',
  'stats',
  'env_return',
] as const;
export type RequestOp = (typeof REQUEST_OPS)[number];

/** Rows at or below this count travel inline in the msgpack header unless the client asks otherwise. */
export const DEFAULT_INLINE_MAX_ROWS = 512;

export interface ServerLimits {
  /** Largest accepted request (all frames together), in bytes. */
  max_message_bytes: number;
  max_envs_per_handle: number;
  max_handles_per_client: number;
  /** Requests of one client being processed at once; more get LIMIT_EXCEEDED. */
  max_inflight_per_client: number;
  /** A client with no message and no request in flight for this long loses its handles. */
  idle_timeout_ms: number;
  /** How often a client should ping when it has nothing else to say. */
  heartbeat_ms: number;
  inline_max_rows: number;
  /** Envs one client holds over all its handles (tenancy quota). */
  max_envs_per_client: number;
  /** Bytes of pushed datasets (Arrow IPC as sent) one client holds. */
  max_dataset_bytes_per_client: number;
  /** Bytes of pushed datasets the server holds for all clients together (identical bytes count once). */
  max_dataset_bytes_total: number;
  /** A make or push is refused when it would leave less free memory than this (0: no check). */
  memory_headroom_bytes: number;
}

export const DEFAULT_LIMITS: ServerLimits = {
  max_message_bytes: 64 * 1024 * 1024,
  max_envs_per_handle: 100_000,
  max_handles_per_client: 256,
  max_inflight_per_client: 4096,
  idle_timeout_ms: 60_000,
  heartbeat_ms: 5_000,
  inline_max_rows: DEFAULT_INLINE_MAX_ROWS,
  max_envs_per_client: 200_000,
  max_dataset_bytes_per_client: 2 * 1024 ** 3,
  max_dataset_bytes_total: 8 * 1024 ** 3,
  memory_headroom_bytes: 64 * 1024 ** 2,
};
