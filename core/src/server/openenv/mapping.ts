/**
 * What maps to what between gem-ts and OpenEnv (docs/interop.md, "OpenEnv"):
 *
 * - An action `{message: "<text>"}` is gem-ts's text action; `{type: 'list_tools'}` and
 *   `{type: 'call_tool', tool_name, arguments}` reach the session env's tools (session.ts).
 * - A reset or step row becomes `{observation: {text, terminated, truncated, metadata}, reward, done,
 *   metadata}`: `text` is gem-ts's observation, `metadata` its info, `done = terminated || truncated`;
 *   a reset's reward is null, as OpenEnv's envs give it.
 * - The state is `{episode_id, step_count, env_id, seed, total_reward, done}`.
 * - gem-ts error codes become OpenEnv's WebSocket error codes, with gem-ts's code kept as `gem_code`.
 */
import { z } from 'zod';
import { GemError, isGemError } from '../../core/errors.ts';
import type { Info } from '../../core/env.ts';
import { WS_ERROR, type StepPayload, type WsErrorCode, type ResetData } from './wire.ts';

/** Which env a session plays: an env id, its make options and its wrapper stack. */
export interface EnvChoice {
  envId: string;
  options?: Record<string, unknown>;
  wrappers?: string | string[];
  wrapperOptions?: Record<string, unknown>;
}

/**
 * The env a reset asks for: its own `env_id` / `options` / `wrappers` / `wrapper_options` over the
 * route's (`/envs/<id>/…`) over the server's default. Undefined when nothing names an env id.
 */
export function chooseEnv(data: ResetData, fallback: EnvChoice | undefined): EnvChoice | undefined {
  const envId = data.env_id ?? fallback?.envId;
  if (envId === undefined) return undefined;
  // Options and wrappers given with another env id than the fallback's are not mixed with its own.
  const base = fallback && fallback.envId === envId ? fallback : undefined;
  return {
    envId,
    options: data.options ?? base?.options,
    wrappers: data.wrappers ?? base?.wrappers,
    wrapperOptions: data.wrapper_options ?? base?.wrapperOptions,
  };
}

/** The same choice always gives the same key; a session remakes its env when the key changes. */
export function choiceKey(c: EnvChoice): string {
  return JSON.stringify([c.envId, c.options ?? {}, c.wrappers ?? [], c.wrapperOptions ?? {}]);
}

export function noEnvChosen(): GemError {
  return new GemError(
    'INVALID_REQUEST',
    "No env id for this session: connect to /envs/<env id> (e.g. http://HOST:PORT/envs/game:GuessTheNumber-v0-easy), pass env_id to reset, or start the server with --openenv-env.",
  );
}

/** One gem-ts row as OpenEnv's observation reply. */
export function stepPayload(text: string, reward: number | null, terminated: boolean, truncated: boolean, info: Info): StepPayload {
  const metadata = (info ?? {}) as Record<string, unknown>;
  const payload: StepPayload = {
    observation: { text, terminated, truncated, metadata },
    reward,
    done: terminated || truncated,
  };
  if (Object.keys(metadata).length > 0) payload.metadata = metadata;
  return payload;
}

/** An observation reply for a tool listing or a tool call, which MCPToolClient reads by its fields. */
export function toolPayload(observation: Record<string, unknown>, done: boolean): StepPayload {
  return { observation: { ...observation, metadata: {} }, reward: null, done };
}

export interface EpisodeState {
  episode_id: string | null;
  step_count: number;
  env_id: string | null;
  seed: number | null;
  total_reward: number;
  done: boolean;
}

/** The text of an action (`{message}`); anything else is a VALIDATION_ERROR naming the shapes accepted. */
export function textOf(action: Record<string, unknown>, schema: z.ZodType<{ message: string }>): string | z.ZodError {
  const parsed = schema.safeParse(action);
  return parsed.success ? parsed.data.message : parsed.error;
}

/** How a gem-ts error reaches an OpenEnv client: its WebSocket code, its message, gem-ts's code. */
export function wsErrorFor(e: unknown, during: 'make' | 'run'): { code: WsErrorCode; message: string; extra: Record<string, unknown> } {
  if (!isGemError(e)) return { code: WS_ERROR.EXECUTION_ERROR, message: e instanceof Error ? e.message : String(e), extra: { gem_code: 'INTERNAL' } };
  const extra: Record<string, unknown> = { gem_code: e.code };
  if (e.data !== undefined) extra.details = e.data;
  let code: WsErrorCode = during === 'make' ? WS_ERROR.FACTORY_ERROR : WS_ERROR.EXECUTION_ERROR;
  if (e.code === 'LIMIT_EXCEEDED') code = WS_ERROR.CAPACITY_REACHED;
  else if (e.code === 'INVALID_REQUEST' && during === 'run') code = WS_ERROR.VALIDATION_ERROR;
  return { code, message: e.message, extra };
}

/** HTTP status of a gem-ts error on the plain HTTP routes. */
export function httpStatusFor(e: unknown): number {
  if (!isGemError(e)) return 500;
  switch (e.code) {
    case 'UNKNOWN_ENV':
    case 'INVALID_ENV_ID':
      return 404;
    case 'INVALID_OPTIONS':
    case 'INVALID_REQUEST':
    case 'INVALID_WRAPPER':
      return 422;
    case 'LIMIT_EXCEEDED':
      return 503;
    case 'UNAUTHORIZED':
      return 401;
    default:
      return 400;
  }
}

const TEXT_ACTION_JSON_SCHEMA = {
  title: 'GemTsAction',
  description: "A gem-ts text action: the model's reply as the env reads it (\\boxed{…}, tool calls, moves).",
  type: 'object',
  properties: {
    message: { type: 'string', title: 'Message', description: 'The action text.' },
    metadata: { type: 'object', title: 'Metadata', additionalProperties: true, description: 'Ignored by gem-ts; kept for OpenEnv clients.' },
  },
  required: ['message'],
  additionalProperties: false,
};

const OBSERVATION_JSON_SCHEMA = {
  title: 'GemTsObservation',
  type: 'object',
  properties: {
    text: { type: 'string', title: 'Text', description: "gem-ts's observation." },
    terminated: { type: 'boolean', title: 'Terminated' },
    truncated: { type: 'boolean', title: 'Truncated' },
    done: { type: 'boolean', title: 'Done', default: false, description: 'terminated or truncated' },
    reward: { anyOf: [{ type: 'number' }, { type: 'null' }], title: 'Reward', default: null },
    metadata: { type: 'object', title: 'Metadata', additionalProperties: true, description: "gem-ts's info." },
  },
  required: ['text', 'terminated', 'truncated'],
};

const STATE_JSON_SCHEMA = {
  title: 'GemTsState',
  type: 'object',
  properties: {
    episode_id: { anyOf: [{ type: 'string' }, { type: 'null' }], title: 'Episode Id', default: null },
    step_count: { type: 'integer', minimum: 0, title: 'Step Count', default: 0 },
    env_id: { anyOf: [{ type: 'string' }, { type: 'null' }], title: 'Env Id' },
    seed: { anyOf: [{ type: 'integer' }, { type: 'null' }], title: 'Seed' },
    total_reward: { type: 'number', title: 'Total Reward' },
    done: { type: 'boolean', title: 'Done' },
  },
  additionalProperties: true,
};

/** `GET /schema`: the action, observation and state schemas, the same for every gem-ts env. */
export function schemaDocument(): { action: object; observation: object; state: object } {
  return { action: TEXT_ACTION_JSON_SCHEMA, observation: OBSERVATION_JSON_SCHEMA, state: STATE_JSON_SCHEMA };
}

/** A tool as OpenEnv lists it (`Tool`: name, description, input_schema). */
export function toolListing(tool: { name: string; description: string; inputSchema: z.ZodType }): { name: string; description: string; input_schema: Record<string, unknown> } {
  let schema: Record<string, unknown>;
  try {
    schema = z.toJSONSchema(tool.inputSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  } catch {
    schema = { type: 'object' };
  }
  delete schema.$schema;
  return { name: tool.name, description: tool.description, input_schema: schema };
}
