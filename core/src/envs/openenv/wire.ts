/**
 * OpenEnv's WebSocket session protocol (pip `openenv` 0.10) as a client speaks it, written out for
 * the `openenv:` env family. Only facts of the protocol live here; the server side of the same
 * protocol is gem-ts's OpenEnv front door (server/openenv, a higher layer this one does not import).
 *
 *   base URL http(s)://host[:port][/path]  →  WebSocket ws(s)://host[:port][/path]/ws
 *   → {type: 'reset', data: {seed?, episode_id?, …env's reset kwargs}}  ← {type: 'observation', data: Payload}
 *   → {type: 'step', data: <action object>}                              ← {type: 'observation', data: Payload}
 *   → {type: 'state'}                                                    ← {type: 'state', data: {…}}
 *   → {type: 'close'}                                                    (the server ends the session)
 *   any failure                                                          ← {type: 'error', data: {message, code, …}}
 *
 * Payload = {observation: {...fields, metadata?}, reward: number | null, done: boolean, metadata?}.
 */
import { GemError } from '../../core/errors.ts';

/** The `code` of an OpenEnv error frame. */
export const OPENENV_ERROR_CODES = [
  'INVALID_JSON',
  'UNKNOWN_TYPE',
  'VALIDATION_ERROR',
  'EXECUTION_ERROR',
  'CAPACITY_REACHED',
  'FACTORY_ERROR',
  'SESSION_ERROR',
] as const;

export interface ObservationPayload {
  observation: Record<string, unknown>;
  reward: number | null;
  done: boolean;
  metadata?: Record<string, unknown>;
}

export type Reply =
  | { type: 'observation'; data: ObservationPayload }
  | { type: 'state'; data: Record<string, unknown> }
  | { type: 'error'; data: { message: string; code: string; [k: string]: unknown } };

export type Request =
  | { type: 'reset'; data: Record<string, unknown> }
  | { type: 'step'; data: Record<string, unknown> }
  | { type: 'state' };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The WebSocket URL of an OpenEnv base URL: http → ws, https → wss, `/ws` appended to the path
 * (a URL already ending in `/ws` is kept). Throws a plain Error naming the problem for anything else.
 */
export function sessionUrl(base: string): string {
  let u: URL;
  try {
    u = new URL(base);
  } catch {
    throw new Error(`'${base}' is not a URL (e.g. http://127.0.0.1:8000 or ws://127.0.0.1:8000/ws)`);
  }
  const scheme = { 'http:': 'ws:', 'https:': 'wss:', 'ws:': 'ws:', 'wss:': 'wss:' }[u.protocol];
  if (!scheme) throw new Error(`'${base}': the scheme must be http, https, ws or wss, not ${u.protocol.replace(/:$/, '')}`);
  if (u.hash) throw new Error(`'${base}': a fragment (#…) has no meaning for an OpenEnv server`);
  u.protocol = scheme;
  const path = u.pathname.replace(/\/+$/, '');
  u.pathname = path.endsWith('/ws') ? path : `${path}/ws`;
  return u.toString();
}

/** A reply frame checked for OpenEnv's shape; a PROTOCOL_ERROR naming the URL when it is not one. */
export function parseReply(text: string, url: string): Reply {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw notOpenEnv(url, `a reply that is not JSON: ${JSON.stringify(text.slice(0, 80))}`);
  }
  if (!isObject(raw) || typeof raw.type !== 'string' || !isObject(raw.data)) {
    throw notOpenEnv(url, `a reply without OpenEnv's {type, data} shape: ${JSON.stringify(raw).slice(0, 120)}`);
  }
  const data = raw.data;
  switch (raw.type) {
    case 'observation':
      if (!isObject(data.observation) || typeof data.done !== 'boolean' || !(data.reward === null || data.reward === undefined || typeof data.reward === 'number')) {
        throw notOpenEnv(url, `an observation without {observation: {...}, reward, done}: ${JSON.stringify(data).slice(0, 120)}`);
      }
      return {
        type: 'observation',
        data: {
          observation: data.observation,
          reward: (data.reward as number | null | undefined) ?? null,
          done: data.done,
          metadata: isObject(data.metadata) ? data.metadata : undefined,
        },
      };
    case 'state':
      return { type: 'state', data };
    case 'error':
      return { type: 'error', data: { ...data, message: String(data.message ?? 'no message'), code: String(data.code ?? 'UNKNOWN') } };
    default:
      throw notOpenEnv(url, `a reply of unknown type '${raw.type.slice(0, 40)}'`);
  }
}

export function notOpenEnv(url: string, what: string): GemError {
  return new GemError('PROTOCOL_ERROR', `${url} is not an OpenEnv session: it sent ${what}.`, { url });
}
