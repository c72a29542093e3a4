/**
 * The `gem-ts serve` flags of the OpenEnv front door, checked before anything starts:
 *   --openenv HOST:PORT          serve OpenEnv's HTTP + WebSocket protocol there (PORT 0: a free one)
 *   --openenv-env ID             the env a session plays when its URL and reset name none
 *   --openenv-options JSON       that env's make options (a JSON object)
 *   --openenv-wrappers NAMES     its wrappers, comma-separated (e.g. python_tool)
 *   --openenv-max-sessions N     sessions open at once (OpenEnv's max_concurrent_envs)
 */
import type { EnvChoice } from './mapping.ts';

/** OpenEnv sessions open at once unless --openenv-max-sessions says otherwise. */
export const DEFAULT_MAX_SESSIONS = 4096;

export const OPENENV_FLAG_OPTIONS = {
  openenv: { type: 'string' },
  'openenv-env': { type: 'string' },
  'openenv-options': { type: 'string' },
  'openenv-wrappers': { type: 'string' },
  'openenv-max-sessions': { type: 'string' },
} as const;

export const OPENENV_HELP = `  --openenv HOST:PORT         also serve OpenEnv's HTTP + WebSocket protocol (openenv 0.10 clients) on
                              HOST:PORT (PORT 0 picks one); prints GEM_TS_OPENENV_URL=http://HOST:PORT.
                              A client's base URL http://HOST:PORT/envs/<env id> picks the env
  --openenv-env ID            the env of a session whose URL and reset name none
  --openenv-options JSON      make options of --openenv-env, a JSON object
  --openenv-wrappers NAMES    wrappers of --openenv-env, comma-separated (e.g. python_tool)
  --openenv-max-sessions N    OpenEnv sessions open at once (default ${DEFAULT_MAX_SESSIONS})`;

export interface OpenEnvFlags {
  host: string;
  port: number;
  defaultEnv?: EnvChoice;
  maxSessions: number;
}

/** The OpenEnv flags, undefined without --openenv; throws an Error with a message for the user. */
export function parseOpenEnvFlags(values: Record<string, unknown>): OpenEnvFlags | undefined {
  const bind = values.openenv as string | undefined;
  const envId = values['openenv-env'] as string | undefined;
  const rawOptions = values['openenv-options'] as string | undefined;
  const wrappers = values['openenv-wrappers'] as string | undefined;
  const rawMax = values['openenv-max-sessions'] as string | undefined;
  if (bind === undefined) {
    const stray = Object.keys(OPENENV_FLAG_OPTIONS).find((k) => k !== 'openenv' && values[k] !== undefined);
    if (stray) throw new Error(`--${stray} needs --openenv HOST:PORT`);
    return undefined;
  }
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(bind);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) throw new Error(`--openenv needs HOST:PORT (e.g. 127.0.0.1:8000, [::1]:0), got '${bind}'`);
  const host = m[1].replace(/^\[|\]$/g, '');
  let options: Record<string, unknown> | undefined;
  if (rawOptions !== undefined) {
    try {
      options = JSON.parse(rawOptions) as Record<string, unknown>;
    } catch (e) {
      throw new Error(`--openenv-options is not JSON: ${(e as Error).message}`, { cause: e });
    }
    if (typeof options !== 'object' || options === null || Array.isArray(options)) throw new Error('--openenv-options must be a JSON object');
  }
  if ((options !== undefined || wrappers !== undefined) && envId === undefined) {
    throw new Error('--openenv-options and --openenv-wrappers apply to --openenv-env ID; give it too');
  }
  let maxSessions = DEFAULT_MAX_SESSIONS;
  if (rawMax !== undefined) {
    maxSessions = Number(rawMax);
    if (!Number.isInteger(maxSessions) || maxSessions < 1) throw new Error(`--openenv-max-sessions needs a positive integer, got '${rawMax}'`);
  }
  const defaultEnv = envId === undefined ? undefined : { envId, options, wrappers };
  return { host, port, defaultEnv, maxSessions };
}
