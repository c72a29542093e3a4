/**
 * The `openenv` family: one id, `openenv:Remote-v0`, whose `url` option names an OpenEnv server
 * (`make('openenv:Remote-v0', {url: 'http://127.0.0.1:8001'})`). The URL is an option, not part of the
 * id: ids are `<family>:<Name>` with no ':' or '/' in the name (registry/envId.ts) and are looked up
 * exactly, while an option travels unchanged through makeVec, the server's make, the Python client
 * (`gem_ts.make("openenv:Remote-v0", url=...)`), eval configs and the UI.
 */
import { z } from 'zod';
import type { EnvRegistry } from '../../registry/registry.ts';
import { OpenEnvEnv } from './openEnvEnv.ts';
import { sessionUrl } from './wire.ts';

export const OPENENV_ID = 'openenv:Remote-v0';

export const OpenEnvOptionsSchema = z
  .object({
    url: z.string().superRefine((url, ctx) => {
      try {
        sessionUrl(url);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: (e as Error).message });
      }
    }),
    action_field: z.string().min(1).default('message'),
    action_format: z.enum(['text', 'json']).default('text'),
    observation_field: z.string().min(1).default('text'),
    reset_data: z.record(z.string(), z.unknown()).default({}),
    headers: z.record(z.string(), z.string()).default({}),
    connect_timeout_ms: z.number().int().positive().default(10_000),
    message_timeout_ms: z.number().int().positive().default(60_000),
    ping_interval_ms: z.number().int().min(0).default(20_000),
    invalid_action_reward: z.number().default(-0.1),
    tools: z.enum(['none', 'mcp']).default('none'),
  })
  .strict();

export function registerOpenEnv(registry: EnvRegistry): void {
  registry.register({
    id: OPENENV_ID,
    description:
      'An OpenEnv server (pip openenv 0.10, or gem-ts serve --openenv) played over its WebSocket session protocol: option url is its base URL (http(s):// or ws(s)://); tools: "mcp" offers its MCP tools as <tool_call> tools.',
    schema: OpenEnvOptionsSchema,
    create: (o, _spec, seed) => new OpenEnvEnv(o, seed),
  });
}
