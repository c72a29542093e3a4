/**
 * What the server knows about one client: its handles, its in-flight requests, when it last spoke,
 * what it registered and pushed (its own registries, see tenancy.ts), and the calls the server is
 * waiting on it to answer. Handles, registrations and datasets never cross sessions.
 *
 * A session exists only for a connection that is allowed in (it sent the auth token in hello, or the
 * server has none). It is bound to that connection (`peer`, the transport's id for it) until the
 * connection ends; a later connection gets it back only with its `resume` secret (and the token).
 */
import { GemError } from '../core/errors.ts';
import type { DatasetContent, DatasetRegistry } from '../data/datasetRegistry.ts';
import type { EnvRegistry } from '../registry/registry.ts';
import type { WrapperCatalog } from '../registry/wrapperCatalog.ts';
import type { StateMeter } from '../wrappers/heldState.ts';
import type { EnvHandle } from './envHandle.ts';
import type { SessionScope } from './tenancy.ts';

interface PendingCall {
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

export class ClientSession {
  readonly handles = new Map<number, EnvHandle>();
  /** Env ids this client registered (served by it through env_call). */
  readonly registeredEnvs = new Set<string>();
  /** Every dataset name this client pushed (its own, `shared/` and `inline/` ones) and its content. */
  readonly pushed = new Map<string, DatasetContent>();
  /** The catalog as this client sees it: its own registrations over the shared ones and the built-ins. */
  readonly envs: EnvRegistry;
  /** The datasets this client sees: its own pushes over the shared ones. */
  readonly datasets: DatasetRegistry;
  /** The wrapper names this client's stacks are built from: an overlay over the server's catalogue. */
  readonly wrappers: WrapperCatalog;
  readonly pendingCalls = new Map<number, PendingCall>();
  inflight = 0;
  /** Envs of makes still being built, counted against max_envs_per_client. */
  pendingEnvs = 0;
  /** Inline rows of makes still being built, counted against the dataset quotas. */
  pendingBytes = 0;
  /** Env state its envs' wrappers hold (history wrappers' kept turns), reported to `stateMeter`. */
  stateBytes = 0;
  /** Action bytes of admitted steps still running on envs that keep state (see admitState). */
  stateReserved = 0;
  /** What its envs' state-keeping wrappers report to; made with its first such env (Tenancy.stateMeter). */
  stateMeter?: StateMeter;
  lastSeen = Date.now();
  requests = 0;
  nextInstance = 0;
  ended = false;
  /** Free-form fields the client sent in hello (name, version, pid). */
  clientInfo: Record<string, unknown> = {};
  /** The connection this session answers to; undefined while none is bound (replies are dropped). */
  peer?: Buffer;

  /**
   * @param serial a number for logs (never the routing id, which a client may choose and reuse).
   * @param resume the secret a new connection presents in hello to get this session back.
   */
  constructor(
    readonly serial: number,
    readonly resume: string,
    scope: SessionScope,
  ) {
    this.envs = scope.envs;
    this.datasets = scope.datasets;
    this.wrappers = scope.wrappers;
  }

  envCount(): number {
    let n = 0;
    for (const h of this.handles.values()) n += h.numEnvs;
    return n;
  }

  /** Bytes of the distinct datasets this client pushed. */
  pushedBytes(): number {
    let n = 0;
    for (const c of new Set(this.pushed.values())) n += c.bytes;
    return n;
  }

  /** Server-side files its handles' envs read: path → size (a file read by many handles once). */
  heldFiles(): Map<string, number> {
    const files = new Map<string, number>();
    for (const h of this.handles.values()) for (const [path, bytes] of h.held.files) files.set(path, bytes);
    return files;
  }

  /** Bytes its handles hold: rows sent inline in make, and server-side files read for them. */
  heldBytes(): { inline: number; files: number } {
    const held = { inline: 0, files: 0 };
    for (const h of this.handles.values()) held.inline += h.held.inline;
    for (const bytes of this.heldFiles().values()) held.files += bytes;
    return held;
  }

  /** Every byte this client makes the server hold: pushed tables, inline rows, files read, env state. */
  datasetBytes(): number {
    const held = this.heldBytes();
    return this.pushedBytes() + held.inline + held.files + this.stateBytes;
  }

  /** What this client holds, for `stats`. */
  usage(): Record<string, number> {
    const held = this.heldBytes();
    const pushed = this.pushedBytes();
    return {
      handles: this.handles.size,
      envs: this.envCount(),
      inflight: this.inflight,
      requests: this.requests,
      datasets: this.pushed.size,
      dataset_bytes: pushed + held.inline + held.files + this.stateBytes,
      pushed_bytes: pushed,
      inline_bytes: held.inline,
      file_bytes: held.files,
      env_state_bytes: this.stateBytes,
      registered_envs: this.registeredEnvs.size,
    };
  }

  getHandle(handle: number): EnvHandle {
    const h = this.handles.get(handle);
    if (!h) {
      throw new GemError(
        'UNKNOWN_HANDLE',
        `Handle ${handle} is not open for this client (never made, already closed, freed after an idle timeout, or made by another client).`,
        { handle },
      );
    }
    return h;
  }

  /** Rejects every call the server is waiting on this client to answer. */
  failPendingCalls(reason: GemError): void {
    for (const c of this.pendingCalls.values()) c.reject(reason);
    this.pendingCalls.clear();
  }
}
