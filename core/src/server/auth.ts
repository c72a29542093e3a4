/**
 * The server's optional auth token (docs/protocol.md, "Tenancy"): a client proves it knows the token
 * in its `hello`; until it has, every request gets an UNAUTHORIZED error reply and nothing else.
 * Off by default for ipc and loopback binds (only this machine reaches them); on by default when the
 * server binds a tcp address other machines reach, with a generated token printed once.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { GemError } from '../core/errors.ts';

/** Compares digests, so neither the length nor a common prefix of the token leaks through timing. */
export function tokenMatches(expected: string, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(given).digest();
  return timingSafeEqual(a, b);
}

export function generateToken(): string {
  return randomBytes(24).toString('base64url');
}

/** Whether other machines can reach a bind: tcp on anything but a loopback host. */
export function reachableFromOtherMachines(endpoint: string): boolean {
  const m = /^(?:stream\+)?tcp:\/\/(.+):[^:]+$/.exec(endpoint);
  if (!m) return false;
  const host = m[1].replace(/^\[|\]$/g, '').toLowerCase();
  return !(host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host) || host === '::ffff:127.0.0.1');
}

export interface AuthChoice {
  /** The token clients must present; undefined: no auth. */
  token?: string;
  /** True when the token was generated here (the caller prints it once). */
  generated: boolean;
}

/**
 * The token a `gem-ts serve` should require: `--auth-token`, else `--auth-token-file`, else
 * $GEM_TS_AUTH_TOKEN, else a fresh one when the bind is reachable from other machines (unless
 * `--no-auth`). Throws INVALID_OPTIONS for an empty token or an unreadable file.
 */
export function chooseAuthToken(args: { endpoint: string; token?: string; tokenFile?: string; noAuth?: boolean; env?: NodeJS.ProcessEnv }): AuthChoice {
  const env = args.env ?? process.env;
  if (args.noAuth) {
    if (args.token !== undefined || args.tokenFile !== undefined) {
      throw new GemError('INVALID_OPTIONS', '--no-auth cannot be combined with --auth-token or --auth-token-file.');
    }
    return { generated: false };
  }
  let token = args.token;
  if (token === undefined && args.tokenFile !== undefined) {
    try {
      token = readFileSync(args.tokenFile, 'utf8').trim();
    } catch (e) {
      throw new GemError('INVALID_OPTIONS', `Cannot read the auth token file '${args.tokenFile}': ${(e as Error).message}`);
    }
  }
  token ??= env.GEM_TS_AUTH_TOKEN || undefined;
  if (token !== undefined) {
    if (token.length === 0) throw new GemError('INVALID_OPTIONS', 'The auth token is empty.');
    return { token, generated: false };
  }
  if (reachableFromOtherMachines(args.endpoint)) return { token: generateToken(), generated: true };
  return { generated: false };
}

export function unauthorized(): GemError {
  return new GemError('UNAUTHORIZED', "This server requires an auth token: send it as 'token' in hello (Python: token=... or GEM_TS_TOKEN).");
}
