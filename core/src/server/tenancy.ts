/**
 * Who owns what on a shared server (docs/protocol.md, "Tenancy"). Every client session has its own
 * overlay of the env catalog and its own dataset registry: what it registers or pushes is visible to
 * it alone and is freed when it ends or goes silent (rows referenced by live envs stay until those
 * envs close: they hold the rows, not the registry). Two names are shareable on purpose:
 *
 * - `shared/…` (a dataset `shared/team/gsm8k`, an env `shared/custom:Foo-v0`): published by one
 *   session for every session; only its publisher may replace it; it goes when the publisher goes.
 * - `inline/<hex>` datasets: content-addressed (the hex is a prefix of the SHA-1 or SHA-256 of the
 *   pushed Arrow bytes, checked here), so the same name always means the same bytes; visible to every
 *   session while some session holds it.
 *
 * Identical pushed bytes are stored once whatever their names, and count once in the server total.
 */
import { createHash } from 'node:crypto';
import { GemError } from '../core/errors.ts';
import type { EnvRegistration } from '../core/spec.ts';
import { datasetContent, DatasetRegistry, type DatasetContent, type DatasetLookup, type DatasetRow, type RegisteredDataset } from '../data/datasetRegistry.ts';
import { DataDirs } from '../data/dataDirs.ts';
import type { EnvRegistry } from '../registry/registry.ts';
import type { WrapperCatalog } from '../registry/wrapperCatalog.ts';
import type { StateMeter } from '../wrappers/heldState.ts';
import type { ClientSession } from './clientSession.ts';
import type { EnvHandle } from './envHandle.ts';
import type { ServerLimits } from './protocol/version.ts';
import { checkHeadroom, limitExceeded } from './quotas.ts';

export const SHARED_PREFIX = 'shared/';
const CONTENT_NAME = /^inline\/([0-9a-f]{16,64})$/;
/** Decoded rows take a few times the Arrow bytes; used only to foresee memory for the headroom check. */
const DECODED_PER_BYTE = 3;

/** Bytes held besides env state, for the client and the server (Tenancy.dataBase). */
export interface DataBase {
  client: number;
  server: number;
}

export interface SessionScope {
  envs: EnvRegistry;
  /** The session's wrapper catalogue: an overlay over the server's, freed with the session. */
  wrappers: WrapperCatalog;
  datasets: DatasetRegistry;
}

interface HeldContent {
  content: DatasetContent;
  /** Sessions holding it, with how many of their names point at it. */
  holders: Map<ClientSession, number>;
  /** The `inline/<hex>` names it is published under. */
  contentNames: Set<string>;
}

export class Tenancy {
  /** `shared/` env ids, over the catalog. */
  readonly sharedEnvs: EnvRegistry;
  /** `shared/` and `inline/` datasets. */
  readonly sharedDatasets = new DatasetRegistry();
  private readonly sharedEnvOwners = new Map<string, ClientSession>();
  private readonly sharedDatasetOwners = new Map<string, ClientSession>();
  private readonly contents = new Map<string, HeldContent>();
  private readonly catalogDatasets: readonly DatasetLookup[];
  /** Inline rows every session's handles hold (or makes in progress are about to). */
  private inlineBytes = 0;
  /** Env state every session's envs hold (history wrappers' kept turns). */
  private stateBytes = 0;
  /** Action bytes of every session's admitted steps still running (admitStep). */
  private stateReserved = 0;
  /** Files read for any session's handles: path → its size and how many handles read it. */
  private readonly files = new Map<string, { bytes: number; handles: number }>();

  constructor(
    catalog: EnvRegistry,
    private readonly limits: ServerLimits,
    private readonly wrappers: WrapperCatalog,
  ) {
    // Clients name server-side files only under the operator's data dirs (gem-ts serve --data-dir), none by default.
    this.sharedEnvs = catalog.overlay({ label: 'shared envs', dataDirs: catalog.dataDirs ?? DataDirs.none() });
    this.catalogDatasets = catalog.datasets ? [catalog.datasets] : [];
  }

  /** A new session's registries: its own overlay over the shared ones, which read through to the catalog. */
  newScope(): SessionScope {
    const datasets = new DatasetRegistry({ bases: [this.sharedDatasets, ...this.catalogDatasets] });
    return {
      datasets,
      envs: this.sharedEnvs.overlay({ datasets, label: 'client session' }),
      wrappers: this.wrappers.overlay({ label: 'client session' }),
    };
  }

  // ── datasets ──────────────────────────────────────────────────────────────────────────────────

  /** Stores a pushed Arrow table under `name` for `s` (checks quotas before decoding anything). */
  pushDataset(s: ClientSession, name: string, body: Uint8Array, decode: (body: Uint8Array) => DatasetRow[]): RegisteredDataset {
    const key = `sha256:${createHash('sha256').update(body).digest('hex')}`;
    const contentName = CONTENT_NAME.exec(name);
    if (contentName) this.checkContentName(name, contentName[1], body, key);
    if (name.startsWith(SHARED_PREFIX)) this.checkSharedOwner(this.sharedDatasetOwners, name, s, 'dataset');

    const held = this.contents.get(key);
    const previous = s.pushed.get(name);
    const sessionHolds = (c: DatasetContent) => [...s.pushed.entries()].some(([n, x]) => x === c && n !== name);
    const added = held && (held.holders.has(s) || false) ? 0 : body.length;
    const freed = previous && previous.key !== key && !sessionHolds(previous) ? previous.bytes : 0;
    const mine = s.datasetBytes() + s.pendingBytes - freed + added;
    if (mine > this.limits.max_dataset_bytes_per_client) {
      throw limitExceeded('max_dataset_bytes_per_client', mine, this.limits.max_dataset_bytes_per_client, `Pushing '${name}' (${body.length} bytes) would hold ${mine} bytes of datasets for this client`);
    }
    if (!held) {
      const total = this.totalBytes() + body.length;
      if (total > this.limits.max_dataset_bytes_total) {
        throw limitExceeded('max_dataset_bytes_total', total, this.limits.max_dataset_bytes_total, `Pushing '${name}' (${body.length} bytes) would hold ${total} bytes of datasets on this server`);
      }
      checkHeadroom(this.limits, body.length * DECODED_PER_BYTE, `Pushing '${name}' (${body.length} bytes)`);
    }

    const content = held?.content ?? datasetContent(name, decode(body), { key, bytes: body.length });
    if (previous) this.releaseName(s, name);
    const entry = this.hold(s, name, content);
    if (contentName) {
      this.contents.get(key)!.contentNames.add(name);
      return this.sharedDatasets.put(name, content);
    }
    if (name.startsWith(SHARED_PREFIX)) {
      this.sharedDatasetOwners.set(name, s);
      return this.sharedDatasets.put(name, content);
    }
    return entry;
  }

  private checkContentName(name: string, hex: string, body: Uint8Array, key: string): void {
    const sha1 = createHash('sha1').update(body).digest('hex');
    if (!sha1.startsWith(hex) && !key.slice('sha256:'.length).startsWith(hex)) {
      throw new GemError(
        'DATASET_INVALID',
        `'${name}' is a content-addressed name (inline/<hex>), but <hex> is not a prefix of the SHA-1 or SHA-256 of the pushed bytes; push it under another name.`,
        { name },
      );
    }
  }

  private checkSharedOwner(owners: Map<string, ClientSession>, name: string, s: ClientSession, what: string): void {
    const owner = owners.get(name);
    if (owner && owner !== s && !owner.ended) {
      throw new GemError('ALREADY_REGISTERED', `The shared ${what} '${name}' is published by another client; only it may replace it.`, { name });
    }
  }

  private hold(s: ClientSession, name: string, content: DatasetContent): RegisteredDataset {
    let held = this.contents.get(content.key);
    if (!held) {
      held = { content, holders: new Map(), contentNames: new Set() };
      this.contents.set(content.key, held);
    }
    held.holders.set(s, (held.holders.get(s) ?? 0) + 1);
    s.pushed.set(name, content);
    return s.datasets.put(name, content);
  }

  /** Drops one of `s`'s names; the content goes when nobody holds it any more. */
  private releaseName(s: ClientSession, name: string): void {
    const content = s.pushed.get(name);
    if (!content) return;
    s.pushed.delete(name);
    s.datasets.delete(name);
    if (this.sharedDatasetOwners.get(name) === s) {
      this.sharedDatasetOwners.delete(name);
      this.sharedDatasets.delete(name);
    }
    const held = this.contents.get(content.key);
    if (!held) return;
    const n = (held.holders.get(s) ?? 1) - 1;
    if (n > 0) held.holders.set(s, n);
    else held.holders.delete(s);
    if (held.holders.size === 0) {
      this.contents.delete(content.key);
      for (const cn of held.contentNames) if (this.sharedDatasets.getOwn(cn)?.content === content) this.sharedDatasets.delete(cn);
    }
  }

  /** Bytes of pushed tables (identical ones once) and of what handles hold, all sessions. */
  totalBytes(): number {
    return this.pushedBytes() + this.inlineBytes + this.fileBytes() + this.stateBytes;
  }

  private fileBytes(): number {
    let n = 0;
    for (const f of this.files.values()) n += f.bytes;
    return n;
  }

  private pushedBytes(): number {
    let n = 0;
    for (const h of this.contents.values()) n += h.content.bytes;
    return n;
  }

  // ── what handles hold ─────────────────────────────────────────────────────────────────────────

  /**
   * Refuses (LIMIT_EXCEEDED, nothing changed) when `s` holding `bytes` more data (`serverBytes` more
   * in the server total, which counts shared files once) would pass the per-client or the server-wide
   * dataset quota, or the memory headroom (decoded rows take a few times their bytes).
   */
  checkHold(s: ClientSession, bytes: number, what: string, serverBytes = bytes): void {
    const mine = s.datasetBytes() + s.pendingBytes + bytes;
    if (mine > this.limits.max_dataset_bytes_per_client) {
      throw limitExceeded('max_dataset_bytes_per_client', mine, this.limits.max_dataset_bytes_per_client, `${what} would hold ${mine} bytes of data for this client`);
    }
    const total = this.totalBytes() + serverBytes;
    if (total > this.limits.max_dataset_bytes_total) {
      throw limitExceeded('max_dataset_bytes_total', total, this.limits.max_dataset_bytes_total, `${what} would hold ${total} bytes of data on this server`);
    }
    checkHeadroom(this.limits, serverBytes * DECODED_PER_BYTE, what);
  }

  /** Refuses files a new handle of `s` would read when they pass a quota (see checkHold); `extra`: its inline rows. */
  checkFiles(s: ClientSession, files: ReadonlyMap<string, number>, extra: number, what: string): void {
    const mine = s.heldFiles();
    let forClient = extra;
    let forServer = 0;
    for (const [path, bytes] of files) {
      if (!mine.has(path)) forClient += bytes;
      if (!this.files.has(path)) forServer += bytes;
    }
    if (forClient > extra || forServer > 0) this.checkHold(s, forClient, what, forServer);
  }

  /** Counts inline rows a make is about to hold in the server total; `releaseInline` them after. */
  holdInline(bytes: number): void {
    this.inlineBytes += bytes;
  }

  releaseInline(bytes: number): void {
    this.inlineBytes -= bytes;
  }

  /** Counts the files a handle's envs read in the server total (each path once); `releaseFiles` after. */
  holdFiles(files: ReadonlyMap<string, number>): void {
    for (const [path, bytes] of files) {
      const held = this.files.get(path);
      if (held) held.handles++;
      else this.files.set(path, { bytes, handles: 1 });
    }
  }

  releaseFiles(files: ReadonlyMap<string, number>): void {
    for (const path of files.keys()) {
      const held = this.files.get(path);
      if (held && --held.handles === 0) this.files.delete(path);
    }
  }

  // ── env state ─────────────────────────────────────────────────────────────────────────────────

  /** The meter `s`'s state-keeping wrappers report to: it counts for `s` and in the server total. */
  stateMeter(s: ClientSession): StateMeter {
    return (s.stateMeter ??= {
      add: (delta) => {
        s.stateBytes += delta;
        this.stateBytes += delta;
      },
    });
  }

  /**
   * Admits a step of `h` before anything runs, or refuses it (LIMIT_EXCEEDED {limit, value, max, index,
   * handle}, naming the first env whose action passes the quota) when the actions it sends to envs
   * that keep state would take the client or the server past the byte quotas. Returns the bytes
   * reserved until the step settles, when the caller gives them back (endStep): steps admitted but
   * still queued count, so pipelined steps cannot slip by together.
   */
  admitStep(s: ClientSession, h: EnvHandle, actions: readonly unknown[], indices: readonly number[], base: DataBase = this.dataBase(s)): number {
    const keeps = h.keepsState;
    if (!keeps) return 0;
    let add = 0;
    let first = -1;
    for (let k = 0; k < indices.length; k++) {
      if (keeps[indices[k]] !== 1) continue;
      add += actionBytes(actions[k]);
      if (first < 0) first = indices[k];
    }
    if (first < 0) return 0; // no env of this step keeps state
    const mine = base.client + s.stateBytes + s.stateReserved;
    const total = base.server + this.stateBytes + this.stateReserved;
    const { max_dataset_bytes_per_client: perClient, max_dataset_bytes_total: perServer } = this.limits;
    if (mine + add > perClient || total + add > perServer) {
      let upTo = 0;
      for (let k = 0; k < indices.length; k++) {
        if (keeps[indices[k]] !== 1) continue;
        upTo += actionBytes(actions[k]);
        if (mine + upTo > perClient || total + upTo > perServer) throw this.stateRefusal(h, indices[k], mine + upTo, total + upTo);
      }
      throw this.stateRefusal(h, first, mine + add, total + add);
    }
    s.stateReserved += add;
    this.stateReserved += add;
    return add;
  }

  /** Gives back what admitStep reserved, once the step has settled. */
  endStep(s: ClientSession, reserved: number): void {
    s.stateReserved -= reserved;
    this.stateReserved -= reserved;
  }

  /**
   * The bytes `s` and the server hold besides env state: they change only with makes, pushes and
   * closes, so a request admitting many steps (a batch over many handles) sums them once.
   */
  dataBase(s: ClientSession): DataBase {
    return { client: s.datasetBytes() - s.stateBytes + s.pendingBytes, server: this.totalBytes() - this.stateBytes };
  }

  private stateRefusal(h: EnvHandle, index: number, mine: number, total: number): GemError {
    const about = { index, handle: h.id };
    const env = `Stepping env ${index} of handle ${h.id} (refused, nothing stepped; a reset or close frees its history)`;
    const { max_dataset_bytes_per_client: perClient, max_dataset_bytes_total: perServer } = this.limits;
    if (mine > perClient) {
      return limitExceeded('max_dataset_bytes_per_client', mine, perClient, `${env} would hold ${mine} bytes of data and env state for this client`, about);
    }
    return limitExceeded('max_dataset_bytes_total', total, perServer, `${env} would hold ${total} bytes of data and env state on this server`, about);
  }

  // ── Python-defined envs ───────────────────────────────────────────────────────────────────────

  /** Registers an env `s` serves: in its own overlay, or for everyone under `shared/`. */
  registerEnv(s: ClientSession, reg: EnvRegistration<any>): void {
    const id = reg.id;
    const shared = id.startsWith(SHARED_PREFIX);
    const target = shared ? this.sharedEnvs : s.envs;
    if (shared) this.checkSharedOwner(this.sharedEnvOwners, id, s, 'env');
    if (target.owns(id)) target.unregister(id); // the same client again (a re-run notebook cell)
    else if (s.envs.has(id)) {
      const builtIn = !this.sharedEnvs.owns(id);
      throw new GemError('ALREADY_REGISTERED', builtIn ? `Env '${id}' is a built-in env; pick another id.` : `Env '${id}' is already registered by another client.`, { id });
    }
    target.register(reg);
    if (shared) this.sharedEnvOwners.set(id, s);
    s.registeredEnvs.add(id);
  }

  /** Whether `id` was registered by a client (for list_envs' `source`). */
  isClientEnv(s: ClientSession, id: string): boolean {
    return s.envs.owns(id) || this.sharedEnvs.owns(id);
  }

  // ── ending ────────────────────────────────────────────────────────────────────────────────────

  /** Frees everything `s` registered or pushed. */
  release(s: ClientSession): void {
    for (const name of [...s.pushed.keys()]) this.releaseName(s, name);
    for (const id of s.registeredEnvs) {
      if (this.sharedEnvOwners.get(id) === s) {
        this.sharedEnvOwners.delete(id);
        this.sharedEnvs.unregister(id);
      } else if (s.envs.owns(id)) s.envs.unregister(id);
    }
    s.registeredEnvs.clear();
  }

  /** Server-wide figures for `stats`. */
  totals(): Record<'datasets' | 'dataset_bytes' | 'pushed_bytes' | 'inline_bytes' | 'file_bytes' | 'env_state_bytes' | 'shared_datasets' | 'shared_envs', number> {
    return {
      datasets: this.contents.size,
      dataset_bytes: this.totalBytes(),
      pushed_bytes: this.pushedBytes(),
      inline_bytes: this.inlineBytes,
      file_bytes: this.fileBytes(),
      env_state_bytes: this.stateBytes,
      shared_datasets: this.sharedDatasets.entries().length,
      shared_envs: this.sharedEnvOwners.size,
    };
  }
}


/** What a step's action may add to a history (its length; anything else is refused by the step itself). */
function actionBytes(a: unknown): number {
  return typeof a === 'string' ? a.length : 0;
}
