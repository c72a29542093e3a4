/**
 * What the server knows about one connected client (one DEALER routing id): its handles, its
 * in-flight requests, when it last spoke, what it registered and pushed (its own registries, see
 * tenancy.ts), whether it presented the auth token, and the calls the server is waiting on it to
 * answer. Handles, registrations and datasets never cross sessions.
 */
import { GemError } from '../core/errors.ts';
import type { DatasetContent, DatasetRegistry } from '../data/datasetRegistry.ts';
import type { EnvRegistry } from '../registry/registry.ts';
import type { WrapperCatalog } from '../registry/wrapperCatalog.ts';
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
  lastSeen = Date.now();
  requests = 0;
  nextInstance = 0;
  ended = false;
  /** Whether this client presented the server's auth token (always true when there is none). */
  authenticated: boolean;
  /** Free-form fields the client sent in hello (name, version, pid). */
  clientInfo: Record<string, unknown> = {};

  constructor(
    readonly routingId: Buffer,
    readonly key: string,
    scope: SessionScope,
    opts: { authenticated?: boolean } = {},
  ) {
    this.envs = scope.envs;
    this.datasets = scope.datasets;
    this.wrappers = scope.wrappers;
    this.authenticated = opts.authenticated ?? true;
  }

  envCount(): number {
    let n = 0;
    for (const h of this.handles.values()) n += h.numEnvs;
    return n;
  }

  /** Bytes of the distinct datasets this client holds. */
  datasetBytes(): number {
    let n = 0;
    for (const c of new Set(this.pushed.values())) n += c.bytes;
    return n;
  }

  /** What this client holds, for `stats`. */
  usage(): Record<string, number> {
    return {
      handles: this.handles.size,
      envs: this.envCount(),
      inflight: this.inflight,
      requests: this.requests,
      datasets: this.pushed.size,
      dataset_bytes: this.datasetBytes(),
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
