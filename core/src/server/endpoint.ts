/**
 * Where the server listens. `ipc://` is the local default (a socket file in a per-user runtime dir);
 * `tcp://host:port` serves other machines; `tcp://host:0` picks a free port. Both are ZeroMQ's; the
 * same addresses prefixed `stream+` (`stream+ipc:///path`, `stream+tcp://host:port`, bare
 * `stream+ipc` for a fresh socket file) are served over a plain socket (streamTransport.ts).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { GemError } from '../core/errors.ts';

/** Unix socket paths are limited to ~107 bytes; stay well under. */
const MAX_IPC_PATH = 100;

export function runtimeDir(): string {
  const base = process.env.XDG_RUNTIME_DIR || tmpdir();
  return join(base, 'gem-ts');
}

/** A fresh ipc endpoint unique to this process. */
export function defaultIpcEndpoint(scheme: 'ipc' | 'stream+ipc' = 'ipc'): string {
  let dir = runtimeDir();
  const name = `${process.pid}-${randomBytes(4).toString('hex')}.sock`;
  if (join(dir, name).length > MAX_IPC_PATH) dir = join(tmpdir(), 'gem-ts');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return `${scheme}://${join(dir, name)}`;
}

export function validateEndpoint(endpoint: string): string {
  if (endpoint === 'auto' || endpoint === 'ipc') return defaultIpcEndpoint();
  if (endpoint === 'stream+ipc') return defaultIpcEndpoint('stream+ipc');
  const m = /^(?:stream\+)?(ipc|tcp|inproc):\/\/(.+)$/.exec(endpoint);
  if (!m || (m[1] === 'inproc' && endpoint.startsWith('stream+'))) {
    throw new GemError('INVALID_OPTIONS', `Endpoint '${endpoint}' must look like ipc:///path/to/socket or tcp://host:port (or either prefixed stream+).`, { endpoint });
  }
  if (m[1] === 'ipc' && m[2].length > MAX_IPC_PATH) {
    throw new GemError('INVALID_OPTIONS', `The ipc path of '${endpoint}' is longer than ${MAX_IPC_PATH} characters.`, { endpoint });
  }
  if (m[1] === 'tcp' && !/^(\[[^\]]+\]|[^:]+):(\d+|\*)$/.test(m[2])) {
    throw new GemError('INVALID_OPTIONS', `A tcp endpoint needs a host and a port: tcp://127.0.0.1:5555 (got '${endpoint}').`, { endpoint });
  }
  return endpoint;
}

/** Removes the socket file of an ipc endpoint (after the server closed). */
export function removeIpcFile(endpoint: string): void {
  if (endpoint.startsWith('ipc://')) rmSync(endpoint.slice('ipc://'.length), { force: true });
}
