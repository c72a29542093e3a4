/**
 * What each op of protocol v1 does. The server hands every parsed request to `handle`, which returns
 * the reply fields (and an Arrow body for rows), synchronously when it can: a one-env step of a cheap
 * env answers without a single await between the receive and the send.
 */
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { z } from 'zod';
import { GemError, isGemError } from '../core/errors.ts';
import type { Logger } from 'pino';
import { runBatch } from './batchOp.ts';
import { ClientSession } from './clientSession.ts';
import { EnvHandle } from './envHandle.ts';
import type { PoolFactory, ServedPool } from './servedPool.ts';
import { RemoteEnv } from './remoteEnv.ts';
import { checkHeadroom, limitExceeded } from './quotas.ts';
import type { Tenancy } from './tenancy.ts';
import { describeBoundOptions } from '../data/datasetBinding.ts';
import type { DataDirs } from '../data/dataDirs.ts';
import { filesInFolder } from '../data/hfDiskLayout.ts';
import { decodeStepRequest, decodeStepRequestSliced, encodeRows, RowsStream, tableToRows, type Rows } from './protocol/arrowCodec.ts';
import { packHeader, type ParsedRequest } from './protocol/frames.ts';
import type { EnvReturn, GetAttrRequest, MakeRequest, ReplyFormat, ResetRequest, SetAttrRequest, StepRequest } from './protocol/headers.ts';
import { getEnvAttr, setEnvAttr } from '../core/envAttributes.ts';
import { rowsToInline } from './protocol/inlineRows.ts';
import { PROTOCOL_VERSION, type ServerLimits } from './protocol/version.ts';
import { makePool } from '../vector/makeVec.ts';
import { SLICE_ABOVE, SLICE_ROWS } from '../vector/envPool.ts';
import type { SliceSink } from '../vector/vectorEnvBase.ts';
import { parseWrapperNames } from '../registry/wrapperStack.ts';
import { attachStateMeter } from '../wrappers/heldState.ts';
import type { Env } from '../core/env.ts';

export interface OpResult {
  fields: Record<string, unknown>;
  body?: Uint8Array;
  /** Send even though the session just ended (the reply to `close` without a handle). */
  afterEnd?: boolean;
}

export interface OpContext {
  limits: ServerLimits;
  log: Logger;
  /** Builds a handle's envs (default: the vector layer's makePool). */
  makePool?: PoolFactory;
  serverInfo: () => { name: string; version: string; node: string; pid: number };
  stats: () => Record<string, unknown>;
  endSession: (s: ClientSession) => Promise<void>;
  sendToClient: (s: ClientSession, header: Buffer) => void;
  /** Who owns which registrations and datasets (tenancy.ts). */
  tenancy: Tenancy;
}

/** Sent in every `hello` reply: handle ids restart with the process, so clients tell servers apart by this. */
export const BOOT_ID = randomUUID();

/** Step request bodies bigger than this (~4,000 short actions) are decoded in slices. */
const SLICED_DECODE_BYTES = 64 * 1024;

/** Server-wide: handle ids are never reused, so a stale id can never reach another client's envs. */
let nextHandle = 1;
let nextCallId = 1;

/** The msgpack size of the rows a make request passes inline as `dataset` (in options or vec_options). */
export function inlineRowBytes(r: MakeRequest): number {
  let n = 0;
  for (const opts of [r.options, ...(r.vec_options ?? [])]) {
    const rows = opts?.dataset;
    if (Array.isArray(rows)) n += packHeader(rows).length;
  }
  return n;
}

/**
 * Bytes on disk of the server-side files a pool's envs read (each distinct path once): the dataset
 * paths the session's data dirs allowed. Only those: an env a client registered may carry any text
 * as `dataset`, and sizing it would tell the client which files exist.
 */
function datasetFiles(pool: ServedPool, dataDirs: DataDirs | undefined): Map<string, number> {
  const files = new Map<string, number>();
  if (!dataDirs) return files;
  const paths = new Map<string, string | undefined>();
  for (let i = 0; i < pool.numEnvs; i++) {
    const options = pool.envAt(i).spec?.options;
    if (typeof options?.dataset === 'string') paths.set(options.dataset, typeof options.split === 'string' ? options.split : undefined);
  }
  for (const [path, split] of paths) if (allowedBy(dataDirs, path, split)) files.set(`${path}\0${split ?? ''}`, bytesOnDisk(path, split));
  return files;
}

function allowedBy(dataDirs: DataDirs, path: string, split: string | undefined): boolean {
  try {
    return dataDirs.check(path, split) !== undefined;
  } catch {
    return false; // a folder the check cannot read as a dataset: the env did not read it either
  }
}

/** A file's size, or the sizes of the files a dataset folder gives for `split` (what the env reads); 0 when unreadable. */
function bytesOnDisk(path: string, split: string | undefined): number {
  try {
    if (!statSync(path).isDirectory()) return statSync(path).size;
    let n = 0;
    for (const f of filesInFolder(path, split) ?? []) n += statSync(f).size;
    return n;
  } catch {
    return 0;
  }
}

export class OpHandlers {
  private readonly makePool: PoolFactory;

  constructor(private readonly ctx: OpContext) {
    this.makePool = ctx.makePool ?? makePool;
  }

  handle(s: ClientSession, req: ParsedRequest): OpResult | Promise<OpResult> {
    switch (req.op) {
      case 'hello':
        s.clientInfo = req.header.client ?? {};
        return { fields: { protocol: PROTOCOL_VERSION, server: this.ctx.serverInfo(), limits: this.ctx.limits, boot_id: BOOT_ID, resume: s.resume } };
      case 'ping':
        return { fields: { time_ms: Date.now() } };
      case 'list_envs':
        return { fields: { envs: this.listEnvs(s, req.header.filter, req.header.verbose ?? false) } };
      case 'spec':
        return this.spec(s, req.header.env_id, req.header.handle);
      case 'make':
        return this.make(s, req.header);
      case 'reset':
        return this.reset(s, req.header);
      case 'step':
        return this.step(s, req.header, req.body);
      case 'batch': {
        const fields = runBatch(s, req.header, (e) => this.asGemError(e), this.ctx.tenancy);
        return fields instanceof Promise ? fields.then((f) => ({ fields: { ...f } })) : { fields: { ...fields } };
      }
      case 'sample':
        return s
          .getHandle(req.header.handle)
          .pool.sampleInOrder(req.header.indices)
          .then((r) => ({ fields: { env_index: r.indices, action: r.actions } }));
      case 'get_attr':
        return this.getAttr(s, req.header);
      case 'set_attr':
        return this.setAttr(s, req.header);
      case 'close':
        return this.close(s, req.header.handle);
      case 'register_dataset':
        return this.registerDataset(s, req.header.name, req.body);
      case 'register_env':
        return this.registerEnv(s, req.header.env_id, req.header.description, req.header.defaults);
      case 'stats':
        return {
          fields: {
            server: this.ctx.stats(),
            client: s.usage(),
          },
        };
      case 'env_return':
        throw new GemError('INTERNAL', 'env_return is handled by the server loop.');
    }
  }

  // ── envs ──────────────────────────────────────────────────────────────────────────────────────

  private listEnvs(s: ClientSession, filter: string | undefined, verbose: boolean): unknown[] {
    const ids = s.envs.list(filter);
    if (!verbose) return ids;
    return ids.map((id) => {
      const reg = s.envs.get(id);
      return {
        id,
        family: id.split(':')[0],
        description: reg.description,
        defaults: reg.defaults ?? {},
        source: this.ctx.tenancy.isClientEnv(s, id) ? 'client' : 'server',
      };
    });
  }

  private spec(s: ClientSession, envId: string | undefined, handle: number | undefined): OpResult {
    if (envId !== undefined) return { fields: { specs: [s.envs.spec(envId)] } };
    // What the handle's envs were made with: resolved options and the wrapper stack.
    const h = s.getHandle(handle!);
    const specs = h.specs().map((spec) => ({ ...spec, options: describeBoundOptions(spec.options) }));
    return { fields: { specs, handle_info: h.info } };
  }

  private make(s: ClientSession, r: MakeRequest): OpResult | Promise<OpResult> {
    const { limits } = this.ctx;
    const n = typeof r.env_ids === 'string' ? (r.num_envs ?? 1) : r.env_ids.length;
    if (n > limits.max_envs_per_handle) {
      throw limitExceeded('max_envs_per_handle', n, limits.max_envs_per_handle, `A handle of ${n} envs is too big`);
    }
    if (s.handles.size >= limits.max_handles_per_client) {
      throw limitExceeded('max_handles_per_client', s.handles.size + 1, limits.max_handles_per_client, 'This client holds too many handles; close one first');
    }
    const held = s.envCount() + s.pendingEnvs + n;
    if (held > limits.max_envs_per_client) {
      throw limitExceeded('max_envs_per_client', held, limits.max_envs_per_client, `Making ${n} more envs would hold ${held} for this client`);
    }
    if (typeof r.env_ids !== 'string' && r.num_envs !== undefined && r.num_envs !== r.env_ids.length) {
      throw new GemError('INVALID_REQUEST', `num_envs (${r.num_envs}) differs from the ${r.env_ids.length} env ids given.`);
    }
    if (typeof r.wrappers === 'string' && r.wrappers.trim() !== '' && r.wrappers.split(',').some((w) => w.trim() === '')) {
      // '' is no wrappers (as in GEM); an empty name inside a list is a typo, never silently dropped.
      throw new GemError('INVALID_WRAPPER', `wrappers '${r.wrappers.slice(0, 200)}' has an empty name; write the names separated by single commas.`, {
        wrappers: r.wrappers.slice(0, 200),
      });
    }
    // Rows sent inline are data this session makes the server hold, like a pushed table.
    const inline = inlineRowBytes(r);
    if (inline > 0) this.ctx.tenancy.checkHold(s, inline, `Making ${n} envs with ${inline} bytes of rows given inline`);
    else checkHeadroom(limits, 0, `Making ${n} envs`);
    const opts = {
      numEnvs: typeof r.env_ids === 'string' ? n : undefined,
      wrappers: typeof r.wrappers === 'string' ? r.wrappers.split(',') : r.wrappers,
      wrapperOptions: r.wrapper_options,
      vecOptions: r.vec_options,
      options: r.options,
      seed: r.seed,
      autoresetMode: r.autoreset_mode,
    };
    // Envs (and inline rows) being built count against the quotas until the handle holds them.
    const { tenancy } = this.ctx;
    s.pendingEnvs += n;
    s.pendingBytes += inline;
    tenancy.holdInline(inline);
    const settle = () => {
      s.pendingEnvs -= n;
      s.pendingBytes -= inline;
    };
    const register = (pool: ServedPool): OpResult => {
      settle();
      try {
        if (s.ended) throw new GemError('UNKNOWN_HANDLE', 'The client session ended while the envs were being made.');
        // Files read for these envs are held too; a make past the quota is undone before it answers.
        const files = datasetFiles(pool, s.envs.dataDirs);
        tenancy.checkFiles(s, files, inline, `Making ${n} envs that read ${[...files.values()].reduce((a, b) => a + b, 0)} bytes of server-side files`);
        tenancy.holdFiles(files);
        const handle = new EnvHandle(nextHandle++, pool, parseWrapperNames(opts.wrappers), { inline, files }, this.meterState(s, pool));
        s.handles.set(handle.id, handle);
        return { fields: { ...handle.info } };
      } catch (e) {
        tenancy.releaseInline(inline);
        void pool.closeInOrder();
        throw e;
      }
    };
    const failed = (e: unknown): never => {
      settle();
      tenancy.releaseInline(inline);
      throw e;
    };
    let built: ServedPool | Promise<ServedPool>;
    try {
      built = this.makePool(r.env_ids, { ...opts, registry: s.envs, wrapperCatalog: s.wrappers });
    } catch (e) {
      return failed(e);
    }
    return built instanceof Promise ? built.then(register, failed) : register(built);
  }

  /** Hooks the pool's state-keeping wrappers (history) to the session's quota; which envs have one. */
  private meterState(s: ClientSession, pool: ServedPool): Uint8Array | undefined {
    let keeps: Uint8Array | undefined;
    for (let i = 0; i < pool.numEnvs; i++) {
      // A served pool's envs are Envs; a test's pool may hand out less, which then keeps nothing.
      if (attachStateMeter(pool.envAt(i) as Env<any, any>, this.ctx.tenancy.stateMeter(s))) (keeps ??= new Uint8Array(pool.numEnvs))[i] = 1;
    }
    return keeps;
  }

  /** Runs a step admitted against the byte quotas (Tenancy.admitStep); its reservation ends with it. */
  private admitted<T>(s: ClientSession, h: EnvHandle, actions: readonly unknown[], indices: readonly number[], run: () => Promise<T>): Promise<T> {
    const reserved = this.ctx.tenancy.admitStep(s, h, actions, indices);
    if (reserved === 0) return run();
    return run().finally(() => this.ctx.tenancy.endStep(s, reserved));
  }

  private reset(s: ClientSession, r: ResetRequest): Promise<OpResult> {
    const h = s.getHandle(r.handle);
    return h.pool
      .resetInOrder({ seed: r.seed ?? undefined, options: r.options, indices: r.indices })
      .then((rows) => this.rowsResult(rows, r.reply_format));
  }

  private step(s: ClientSession, r: StepRequest, body: Uint8Array | undefined): Promise<OpResult> {
    if ((r.rows === undefined) === (body === undefined)) {
      throw new GemError('INVALID_REQUEST', "A step carries its actions either inline in 'rows' or as an Arrow body, exactly one of them.");
    }
    if (body && body.byteLength > SLICED_DECODE_BYTES) {
      // A huge body is read in slices; the step keeps its place in the handle's order meanwhile.
      const decoding = decodeStepRequestSliced(body, SLICE_ROWS);
      decoding.catch(() => undefined);
      let h: EnvHandle;
      try {
        h = s.getHandle(r.handle);
      } catch (e) {
        // As for small bodies: a bad body is INVALID_BODY whatever the handle.
        return decoding.then(() => Promise.reject(e));
      }
      const stream = new RowsStream();
      let reserved = 0;
      const admitted = h.keepsState ? decoding.then((d) => ((reserved = this.ctx.tenancy.admitStep(s, h, d.actions, d.indices)), d)) : decoding;
      admitted.catch(() => undefined);
      return h.pool
        .stepInOrderWhenDecoded(admitted, this.encodeAsItRuns(stream, r.reply_format))
        .finally(() => this.ctx.tenancy.endStep(s, reserved))
        .then((rows) => this.rowsResult(rows, r.reply_format, stream));
    }
    // The message itself is checked before what it refers to: a bad body is INVALID_BODY on any handle.
    const { indices, actions } = r.rows ? { indices: r.rows.env_index, actions: r.rows.action } : decodeStepRequest(body!);
    const h = s.getHandle(r.handle);
    if (h.keepsState) return this.admitted(s, h, actions, indices, () => this.stepRows(h, actions, indices, r.reply_format));
    return this.stepRows(h, actions, indices, r.reply_format);
  }

  private stepRows(h: EnvHandle, actions: string[], indices: number[], format: ReplyFormat | undefined): Promise<OpResult> {
    if (indices.length <= SLICE_ABOVE) return h.pool.stepInOrder(actions, indices).then((rows) => this.rowsResult(rows, format));
    const stream = new RowsStream();
    return h.pool.stepInOrder(actions, indices, this.encodeAsItRuns(stream, format)).then((rows) => this.rowsResult(rows, format, stream));
  }

  /**
   * A huge step's reply, when it goes as Arrow, is encoded slice by slice as the step runs, so its rows
   * die young (RowsStream); an inline reply needs them whole, after the step.
   */
  private encodeAsItRuns(stream: RowsStream, format: ReplyFormat | undefined): SliceSink {
    return (rows, from, to) => {
      if (!this.inlineReply(rows.observations.length, format)) stream.onSlice(rows, from, to);
    };
  }

  /** A failure that is no GemError is a bug: logged with its stack, and INTERNAL on the wire. */
  private asGemError(e: unknown): GemError {
    if (isGemError(e)) return e;
    this.ctx.log.error({ err: e instanceof Error ? e.stack : String(e) }, 'internal error');
    return new GemError('INTERNAL', `Internal server error: ${e instanceof Error ? e.message : String(e)}`);
  }

  private inlineReply(n: number, format: ReplyFormat | undefined): boolean {
    return format === 'inline' || ((format ?? 'auto') === 'auto' && n <= this.ctx.limits.inline_max_rows);
  }

  /**
   * Inline up to inline_max_rows; bigger replies are encoded in slices that yield between them (by
   * `stream`, which may have encoded the step's rows as they came).
   */
  private rowsResult(rows: Rows, format: ReplyFormat | undefined, stream?: RowsStream): OpResult | Promise<OpResult> {
    const n = rows.observations.length;
    if (this.inlineReply(n, format)) return { fields: { n, rows: rowsToInline(rows) } };
    if (n <= SLICE_ABOVE) return { fields: { n }, body: encodeRows(rows) };
    return (stream ?? new RowsStream()).finish(rows, SLICE_ROWS).then((body) => ({ fields: { n }, body }));
  }

  /**
   * Env attributes of the envs at `indices` (all when absent), through each env's wrapper stack. The
   * read waits its turn behind the steps and resets already queued on those envs, so it sees them.
   */
  private getAttr(s: ClientSession, r: GetAttrRequest): Promise<OpResult> {
    return s.getHandle(r.handle).pool.withEnvsInOrder(r.indices, async (envs, indices) => {
      const value = await Promise.all(envs.map((env) => getEnvAttr(env, r.name)));
      return { fields: { env_index: indices, value } };
    });
  }

  private setAttr(s: ClientSession, r: SetAttrRequest): Promise<OpResult> {
    const pool = s.getHandle(r.handle).pool;
    const count = r.indices?.length ?? pool.numEnvs;
    if (r.values !== undefined && r.values.length !== count) {
      throw new GemError('INVALID_REQUEST', `set_attr: got ${r.values.length} values for ${count} envs.`);
    }
    return pool
      .withEnvsInOrder(r.indices, async (envs, indices) => {
        // One after another, so a bad value stops at the env it fails for (the earlier writes stand, as in Gymnasium).
        for (let k = 0; k < envs.length; k++) await setEnvAttr(envs[k], r.name, r.values ? r.values[k] : r.value);
        return indices;
      })
      .then((indices) => ({ fields: { env_index: indices } }));
  }

  private async close(s: ClientSession, handle: number | undefined): Promise<OpResult> {
    if (handle !== undefined) {
      await this.dropHandle(s, s.getHandle(handle));
      return { fields: { closed: [handle] } };
    }
    const closed = [...s.handles.keys()];
    await this.ctx.endSession(s);
    return { fields: { closed }, afterEnd: true };
  }

  // ── data and Python-defined envs ──────────────────────────────────────────────────────────────

  private registerDataset(s: ClientSession, name: string, body: Uint8Array | undefined): OpResult {
    if (!body) throw new GemError('INVALID_REQUEST', 'register_dataset needs the table as an Arrow IPC stream body.');
    const entry = this.ctx.tenancy.pushDataset(s, name, body, tableToRows);
    return { fields: { name: entry.name, rows: entry.rows.length, columns: entry.columns } };
  }

  private registerEnv(s: ClientSession, envId: string, description: string | undefined, defaults: Record<string, unknown> | undefined): OpResult {
    // Visible to this client alone, or to every client under `shared/` (tenancy.ts).
    this.ctx.tenancy.registerEnv(s, {
      id: envId,
      description: description ?? 'An env defined in Python and served by the client that registered it.',
      schema: z.record(z.string(), z.unknown()),
      defaults: defaults ?? {},
      create: (options, spec, seed) => {
        if (s.ended) throw new GemError('ENV_CLOSED', `The client that registered '${envId}' is gone.`);
        return new RemoteEnv((...a) => this.callClient(s, ...a), spec, s.nextInstance++, options, seed);
      },
    });
    return { fields: { env_id: envId } };
  }

  /** Sends an env_call to the client and waits for its env_return. */
  private callClient(s: ClientSession, envId: string, instance: number, call: string, args: Record<string, unknown>): Promise<unknown> {
    if (s.ended) return Promise.reject(new GemError('ENV_CLOSED', `The client that registered '${envId}' is gone.`));
    const id = nextCallId++;
    return new Promise((resolve, reject) => {
      s.pendingCalls.set(id, { resolve, reject });
      this.ctx.sendToClient(s, packHeader({ v: PROTOCOL_VERSION, id, op: 'env_call', env_id: envId, instance, call, args }));
    });
  }

  envReturn(s: ClientSession, r: EnvReturn): void {
    const pending = s.pendingCalls.get(r.id);
    if (!pending) {
      this.ctx.log.debug({ id: r.id }, 'env_return for no pending call');
      return;
    }
    s.pendingCalls.delete(r.id);
    if (r.ok) pending.resolve(r.result);
    else {
      const err = r.error ?? { code: 'INTERNAL', message: 'The Python env failed without a message.' };
      pending.reject(new GemError(err.code as never, `Python env: ${err.message}`, err.data));
    }
  }

  /** Frees everything a session owns. */
  async freeSession(s: ClientSession, why: string): Promise<void> {
    s.failPendingCalls(new GemError('ENV_CLOSED', `The client serving these envs is gone (${why}).`));
    this.ctx.tenancy.release(s);
    await Promise.allSettled([...s.handles.values()].map((h) => this.dropHandle(s, h)));
  }

  /** Takes a handle from its session, frees the bytes it held, and closes its envs. */
  private dropHandle(s: ClientSession, h: EnvHandle): Promise<void> {
    s.handles.delete(h.id);
    this.ctx.tenancy.releaseInline(h.held.inline);
    this.ctx.tenancy.releaseFiles(h.held.files);
    return h.close();
  }
}
