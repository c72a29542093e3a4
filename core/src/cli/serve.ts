/**
 * `gem-ts serve [--endpoint ipc://…|tcp://host:port|stream+…] [options]`: run the server until SIGINT or
 * SIGTERM, or until its parent exits (runUntilStopped). Once bound it prints one line `GEM_TS_ENDPOINT=<endpoint>` on stdout (the Python client
 * reads it when it starts a local server). Logs are JSON lines on stderr, warnings only by default.
 */
import { parseArgs } from 'node:util';
import { DataDirs } from '../data/dataDirs.ts';
import { isDirectory } from '../data/hfDiskLayout.ts';
import { chooseAuthToken, type AuthChoice } from '../server/auth.ts';
import { OPENENV_FLAG_OPTIONS, OPENENV_HELP, parseOpenEnvFlags, type OpenEnvFlags } from '../server/openenv/flags.ts';
import { validateEndpoint } from '../server/endpoint.ts';
import { LOG_LEVELS, type LogLevel } from '../server/logger.ts';
import { DEFAULT_LIMITS, type ServerLimits } from '../server/protocol/version.ts';
import type { Catalog } from '../envs/builtinCatalog.ts';
import { untilStopped } from './untilStopped.ts';

const HELP = `usage: gem-ts serve [options]

  --endpoint URL              ipc:///path/to.sock or tcp://host:port (default: an ipc socket in
                              $XDG_RUNTIME_DIR/gem-ts or the temp dir; tcp://host:0 picks a port);
                              prefixed stream+ (stream+ipc:///path, stream+tcp://host:port, or
                              stream+ipc for a fresh socket) the same over a plain socket, not ZeroMQ:
                              ~4x faster round trips
  --log-level LEVEL           ${LOG_LEVELS.join('|')} (default warn, or $GEM_TS_LOG_LEVEL)
  --idle-timeout-ms N         free a silent client's envs after N ms (default ${DEFAULT_LIMITS.idle_timeout_ms})
  --max-message-bytes N       largest accepted request (default ${DEFAULT_LIMITS.max_message_bytes})
  --max-envs-per-handle N     (default ${DEFAULT_LIMITS.max_envs_per_handle})
  --max-handles-per-client N  (default ${DEFAULT_LIMITS.max_handles_per_client})
  --inline-max-rows N         rows up to N travel inline in msgpack (default ${DEFAULT_LIMITS.inline_max_rows})
  --max-envs-per-client N     envs one client holds over all its handles (default ${DEFAULT_LIMITS.max_envs_per_client})
  --max-dataset-bytes-per-client N   pushed dataset bytes one client holds (default ${DEFAULT_LIMITS.max_dataset_bytes_per_client})
  --max-dataset-bytes-total N pushed dataset bytes of all clients (default ${DEFAULT_LIMITS.max_dataset_bytes_total})
  --memory-headroom-bytes N   refuse makes and pushes that would leave less free memory (default ${DEFAULT_LIMITS.memory_headroom_bytes}; 0 off)
  --auth-token TOKEN          clients must send TOKEN in hello (better: $GEM_TS_AUTH_TOKEN or --auth-token-file,
                              which other users cannot read with ps); default: none on
                              ipc and loopback, a generated one (printed once on stderr) on other tcp binds
  --auth-token-file FILE      read the token from FILE (keep it mode 0600)
  --no-auth                   no token even on a tcp bind other machines reach
  --data-dir DIR              clients may name table files under DIR as a dataset (repeatable; also
                              $GEM_TS_DATA_DIR); default: none, clients push their tables
${OPENENV_HELP}
  --exit-with-stdin           stop when stdin closes (the Python client holds it open)
  --no-exit-with-parent       keep serving when the parent process exits (default: stop, so that
                              npx or a shell that dies of SIGTERM takes the server along)

  Stops on SIGINT and SIGTERM: closes its socket, removes its ipc file and exits.`;

const LIMIT_FLAGS: Record<string, keyof ServerLimits> = {
  'idle-timeout-ms': 'idle_timeout_ms',
  'max-message-bytes': 'max_message_bytes',
  'max-envs-per-handle': 'max_envs_per_handle',
  'max-handles-per-client': 'max_handles_per_client',
  'inline-max-rows': 'inline_max_rows',
  'max-envs-per-client': 'max_envs_per_client',
  'max-dataset-bytes-per-client': 'max_dataset_bytes_per_client',
  'max-dataset-bytes-total': 'max_dataset_bytes_total',
  'memory-headroom-bytes': 'memory_headroom_bytes',
};

export async function run(args: string[]): Promise<number> {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        endpoint: { type: 'string' },
        'log-level': { type: 'string' },
        'exit-with-stdin': { type: 'boolean' },
        'no-exit-with-parent': { type: 'boolean' },
        'auth-token': { type: 'string' },
        'auth-token-file': { type: 'string' },
        'no-auth': { type: 'boolean' },
        'data-dir': { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
        ...OPENENV_FLAG_OPTIONS,
        ...Object.fromEntries(Object.keys(LIMIT_FLAGS).map((k) => [k, { type: 'string' as const }])),
      },
      strict: true,
    }));
  } catch (e) {
    // The reason last: a launcher that keeps the end of stderr (the Python client keeps 20 lines) shows it.
    console.error(`${HELP}\ngem-ts serve: ${(e as Error).message}`);
    return 2;
  }
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const limits: Partial<ServerLimits> = {};
  for (const [flag, key] of Object.entries(LIMIT_FLAGS)) {
    const raw = values[flag];
    if (raw === undefined) continue;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0) {
      console.error(`gem-ts serve: --${flag} needs a non-negative integer, got '${raw}'`);
      return 2;
    }
    limits[key] = n;
  }
  const level = values['log-level'] as string | undefined;
  if (level !== undefined && !(LOG_LEVELS as readonly string[]).includes(level)) {
    console.error(`gem-ts serve: --log-level must be one of ${LOG_LEVELS.join(', ')}`);
    return 2;
  }

  let endpoint = (values.endpoint as string | undefined) ?? 'auto';
  try {
    if (endpoint !== 'auto') validateEndpoint(endpoint);
  } catch (e) {
    console.error(`gem-ts serve: ${(e as Error).message}`);
    return 2;
  }

  let openenv: OpenEnvFlags | undefined;
  try {
    openenv = parseOpenEnvFlags(values);
  } catch (e) {
    console.error(`gem-ts serve: ${(e as Error).message}`);
    return 2;
  }

  let dataDirs: DataDirs;
  try {
    dataDirs = DataDirs.of(operatorDataDirs(values['data-dir'] as string[] | undefined));
  } catch (e) {
    console.error(`gem-ts serve: ${(e as Error).message}`);
    return 2;
  }

  // Loaded only now: the catalog pulls in every env, the transport the native zeromq addon.
  const [{ GemServer }, { openTransport }, { createLogger }, catalog] = await Promise.all([
    import('../server/server.ts'),
    import('../server/openTransport.ts'),
    import('../server/logger.ts'),
    servedCatalog(dataDirs),
  ]);
  const log = createLogger(level as LogLevel | undefined);
  let auth: AuthChoice;
  try {
    auth = chooseAuthToken({
      endpoint,
      token: values['auth-token'] as string | undefined,
      tokenFile: values['auth-token-file'] as string | undefined,
      noAuth: values['no-auth'] as boolean | undefined,
    });
    // One token for both front doors; an OpenEnv bind other machines reach needs one as a tcp bind does.
    if (openenv && auth.token === undefined) {
      auth = chooseAuthToken({ endpoint: `tcp://${openenv.host.includes(':') ? `[${openenv.host}]` : openenv.host}:${openenv.port}`, noAuth: values['no-auth'] as boolean | undefined });
    }
  } catch (e) {
    console.error(`gem-ts serve: ${(e as Error).message}`);
    return 2;
  }
  const transport = await openTransport({ endpoint, maxMessageBytes: limits.max_message_bytes ?? DEFAULT_LIMITS.max_message_bytes, logger: log });
  const server = new GemServer({ transport, catalog: catalog.envs, wrappers: catalog.wrappers, limits, logger: log, authToken: auth.token });
  try {
    endpoint = await server.start();
  } catch (e) {
    console.error(`gem-ts serve: could not start: ${(e as Error).message}`);
    return 1;
  }
  // Bound before the endpoint line, so a port in use fails the start; its line follows the endpoint's
  // (a launcher that reads up to GEM_TS_ENDPOINT, as gem_ts's LocalServer does, reads it next).
  let openenvServer: { close(): Promise<void>; url: string } | undefined;
  if (openenv) {
    const { OpenEnvServer } = await import('../server/openenv/openEnvServer.ts');
    // Both doors over one session layer: a shared/ env or table published over ZeroMQ plays over OpenEnv too.
    const door = new OpenEnvServer({ ...openenv, catalog: catalog.envs, wrappers: catalog.wrappers, limits, logger: log, authToken: auth.token, sessionLayer: server.sessionLayer });
    try {
      await door.start();
      openenvServer = door;
    } catch (e) {
      await server.close();
      console.error(`gem-ts serve: could not start the OpenEnv front door on ${openenv.host}:${openenv.port}: ${(e as Error).message}`);
      return 1;
    }
  }
  process.stdout.write(`GEM_TS_ENDPOINT=${endpoint}\n`);
  if (openenvServer) process.stdout.write(`GEM_TS_OPENENV_URL=${openenvServer.url}\n`);
  if (auth.generated && openenv) {
    process.stderr.write(`gem-ts serve: this server is reachable from other machines; clients must send this auth token (GEM_TS_TOKEN or token=; OpenEnv clients: the header 'Authorization: Bearer <token>'): ${auth.token}\n`);
  } else if (auth.generated) {
    process.stderr.write(`gem-ts serve: ${endpoint} is reachable from other machines; clients must send this auth token (GEM_TS_TOKEN or token=): ${auth.token}\n`);
  }

  const both = { close: () => Promise.all([server.close(), openenvServer?.close()]).then(() => undefined) };
  return runUntilStopped(both, log, {
    exitWithStdin: values['exit-with-stdin'] === true,
    exitWithParent: values['no-exit-with-parent'] !== true,
  });
}

/** `--data-dir` flags, then $GEM_TS_DATA_DIR when it is a directory (the operator set both). */
function operatorDataDirs(flags: string[] | undefined): string[] {
  const fromEnv = process.env.GEM_TS_DATA_DIR;
  return [...(flags ?? []), ...(fromEnv && isDirectory(fromEnv) ? [fromEnv] : [])];
}

/** Read-only views of builtinCatalog's envs and wrappers: sessions register into their own overlays. */
async function servedCatalog(dataDirs: DataDirs): Promise<Catalog> {
  const [{ builtinCatalog }, { EnvRegistry }] = await Promise.all([import('../envs/builtinCatalog.ts'), import('../registry/registry.ts')]);
  const { envs, wrappers } = builtinCatalog();
  return { envs: new EnvRegistry({ base: envs, readOnly: true, dataDirs, label: envs.label }), wrappers: wrappers.readonlyView() };
}

/** A close that hangs (an env that never settles) must not keep the process: exit anyway. */
const CLOSE_GRACE_MS = 2000;

/**
 * Serves until untilStopped says so, then closes the server — sockets closed, ipc file removed —
 * and exits at once even when something else (stdin, a timer) would keep the event loop alive. A
 * second signal exits without waiting for the close.
 */
async function runUntilStopped(
  server: { close(): Promise<void> },
  log: { info(o: object, msg: string): void },
  opts: { exitWithStdin: boolean; exitWithParent: boolean },
): Promise<number> {
  const why = await untilStopped({ stdin: opts.exitWithStdin, parent: opts.exitWithParent });
  log.info({ why }, 'stopping');
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => process.exit(1));
  if (opts.exitWithStdin) process.stdin.destroy();
  let hung: ReturnType<typeof setTimeout> | undefined;
  const code = await Promise.race([
    server.close().then(() => 0, () => 1),
    new Promise<number>((resolve) => (hung = setTimeout(() => resolve(1), CLOSE_GRACE_MS))),
  ]);
  clearTimeout(hung);
  process.exitCode = code;
  // Nothing of the server is left to flush; whatever else holds the loop must not hold the exit.
  setImmediate(() => process.exit(code));
  return code;
}
