/**
 * The OpenEnv front door: routes, the gem-ts ↔ OpenEnv mapping, the flags, and the protocol driven
 * without sockets (a game played to the end, tools, bad input answered with OpenEnv's error shapes,
 * tenancy limits, capacity, idle sessions), then once over real HTTP and WebSocket sockets.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { builtinCatalog } from '../../../src/envs/builtinCatalog.ts';
import { GemError } from '../../../src/core/errors.ts';
import { chooseEnv, stepPayload, toolPayload, wsErrorFor } from '../../../src/server/openenv/mapping.ts';
import { parseOpenEnvFlags } from '../../../src/server/openenv/flags.ts';
import { replyText, rpcResult, wsError, type WsReply } from '../../../src/server/openenv/wire.ts';
import { OpenEnvProtocol, parseRoute, type OpenEnvOptions, type Route, type WsOutcome } from '../../../src/server/openenv/protocol.ts';
import { OpenEnvServer } from '../../../src/server/openenv/openEnvServer.ts';
import type { OpenEnvSession } from '../../../src/server/openenv/session.ts';
import { ClientSession } from '../../../src/server/clientSession.ts';
import { GemServer } from '../../../src/server/server.ts';
import { InMemoryTransport } from '../../../src/server/inMemoryTransport.ts';

const GAME = 'game:GuessTheNumber-v0-easy';
const MATH = 'math:Math12K';
const ROWS = [{ problem: 'What is 6*7?', answer: '42' }];
const catalog = builtinCatalog();

let protocols: OpenEnvProtocol[] = [];
let servers: OpenEnvServer[] = [];
afterEach(async () => {
  await Promise.all([...protocols.map((p) => p.close()), ...servers.map((s) => s.close())]);
  protocols = [];
  servers = [];
});

function protocol(opts: Partial<OpenEnvOptions> = {}): OpenEnvProtocol {
  const p = new OpenEnvProtocol({ catalog: catalog.envs, wrappers: catalog.wrappers, ...opts });
  protocols.push(p);
  return p;
}

/** A session as `/ws` opens it, and a function sending one message and returning the parsed reply. */
function open(p: OpenEnvProtocol, route: Route = { endpoint: 'ws', envId: GAME }): { session: OpenEnvSession; send: (msg: unknown) => Promise<any> } {
  const opened = p.openWs(route, null);
  if ('error' in opened) throw new Error(JSON.stringify(opened.error));
  const { session } = opened;
  return { session, send: async (msg) => (await p.onWsMessage(session, typeof msg === 'string' ? msg : JSON.stringify(msg))).reply };
}

/** Bisects GuessTheNumber from the hints; returns the rewards of the steps. */
async function playGuessing(send: (msg: unknown) => Promise<any>): Promise<number[]> {
  let lo = 1;
  let hi = 10;
  const rewards: number[] = [];
  for (let turn = 0; turn < 10; turn++) {
    const g = Math.floor((lo + hi) / 2);
    const r = await send({ type: 'step', data: { message: `\\boxed{${g}}` } });
    expect(r.type).toBe('observation');
    rewards.push(r.data.reward);
    if (r.data.done) return rewards;
    const text: string = r.data.observation.text;
    if (text.includes('higher')) lo = g + 1;
    else if (text.includes('lower')) hi = g - 1;
  }
  throw new Error('the game did not end');
}

describe('routes', () => {
  it('reads the endpoint and the env id of /envs/<id>/… paths', () => {
    expect(parseRoute('/health')).toEqual({ endpoint: 'health', envId: undefined });
    expect(parseRoute(`/envs/${GAME}/ws`)).toEqual({ endpoint: 'ws', envId: GAME });
    expect(parseRoute('/envs/shared/custom:Foo-v0/reset')).toEqual({ endpoint: 'reset', envId: 'shared/custom:Foo-v0' });
    expect(parseRoute('/envs/game%3AGuessTheNumber-v0-easy/mcp')).toEqual({ endpoint: 'mcp', envId: GAME });
    for (const bad of ['/', '/nope', '/envs/ws', '/envs//ws', `/envs/${GAME}/nope`, '/envs/%E0%A4%A/ws']) expect(parseRoute(bad)).toBeUndefined();
  });
});

describe('mapping', () => {
  it('turns a gem-ts row into OpenEnv observation data: text, done = terminated or truncated, info as metadata', () => {
    expect(stepPayload('hi', 1, false, true, { a: 1 })).toEqual({
      observation: { text: 'hi', terminated: false, truncated: true, metadata: { a: 1 } },
      reward: 1,
      done: true,
      metadata: { a: 1 },
    });
    expect(stepPayload('x', null, false, false, {})).toEqual({ observation: { text: 'x', terminated: false, truncated: false, metadata: {} }, reward: null, done: false });
  });

  it('writes every reply as JSON.stringify does, the usual observation reply field by field', () => {
    const obs = (data: WsReply['data']): WsReply => ({ type: 'observation', data }) as WsReply;
    const replies: WsReply[] = [
      obs(stepPayload('Guess "a" number\n\\boxed{}', null, false, false, { suffix: 'é ✓' })),
      obs(stepPayload('x', 1, true, false, {})),
      obs(stepPayload('x', Number.NaN, false, true, { nested: { list: [1, null, 'two'] }, gone: undefined })),
      obs(stepPayload('x', -0.5, false, false, undefined as never)),
      obs(toolPayload({ tools: [] }, false)),
      obs({ observation: { text: 'x', terminated: false, truncated: false, metadata: {}, extra: 1 }, reward: 0, done: false }),
      obs({ observation: { text: 'x', terminated: false, truncated: false, metadata: {} }, reward: 0, done: false, metadata: { other: 1 } }),
      { type: 'state', data: { episode_id: null, step_count: 0 } },
      wsError('EXECUTION_ERROR', 'boom', { gem_code: 'INTERNAL' }),
    ];
    for (const r of replies) expect(replyText(r)).toBe(JSON.stringify(r));
    expect(replyText(rpcResult(1, { tools: [] }))).toBe(JSON.stringify(rpcResult(1, { tools: [] })));
  });

  it("picks the env: the reset's fields over the route's choice, whose options go only with its own id", () => {
    const route = { envId: MATH, options: { dataset: ROWS }, wrappers: 'python_tool' };
    expect(chooseEnv({}, route)).toEqual({ envId: MATH, options: { dataset: ROWS }, wrappers: 'python_tool', wrapperOptions: undefined });
    expect(chooseEnv({ env_id: GAME }, route)).toEqual({ envId: GAME, options: undefined, wrappers: undefined, wrapperOptions: undefined });
    expect(chooseEnv({ wrappers: [] }, route)?.wrappers).toEqual([]);
    expect(chooseEnv({}, undefined)).toBeUndefined();
  });

  it("maps gem-ts error codes to OpenEnv's and keeps gem-ts's", () => {
    expect(wsErrorFor(new GemError('UNKNOWN_ENV', 'no'), 'make')).toMatchObject({ code: 'FACTORY_ERROR', extra: { gem_code: 'UNKNOWN_ENV' } });
    expect(wsErrorFor(new GemError('LIMIT_EXCEEDED', 'full'), 'make').code).toBe('CAPACITY_REACHED');
    expect(wsErrorFor(new GemError('RESET_NEEDED', 'reset'), 'run').code).toBe('EXECUTION_ERROR');
    expect(wsErrorFor(new Error('boom'), 'run')).toMatchObject({ code: 'EXECUTION_ERROR', extra: { gem_code: 'INTERNAL' } });
  });
});

describe('flags', () => {
  it('parses --openenv and its companions, and refuses bad values clearly', () => {
    expect(parseOpenEnvFlags({})).toBeUndefined();
    expect(parseOpenEnvFlags({ openenv: '[::1]:0', 'openenv-env': MATH, 'openenv-options': '{"dataset":[]}', 'openenv-wrappers': 'python_tool', 'openenv-max-sessions': '8' })).toEqual({
      host: '::1',
      port: 0,
      defaultEnv: { envId: MATH, options: { dataset: [] }, wrappers: 'python_tool' },
      maxSessions: 8,
    });
    expect(() => parseOpenEnvFlags({ openenv: 'localhost' })).toThrow(/HOST:PORT/);
    expect(() => parseOpenEnvFlags({ openenv: 'h:99999' })).toThrow(/HOST:PORT/);
    expect(() => parseOpenEnvFlags({ 'openenv-env': GAME })).toThrow(/needs --openenv/);
    expect(() => parseOpenEnvFlags({ openenv: 'h:1', 'openenv-options': '[1]', 'openenv-env': GAME })).toThrow(/JSON object/);
    expect(() => parseOpenEnvFlags({ openenv: 'h:1', 'openenv-options': '{' , 'openenv-env': GAME })).toThrow(/not JSON/);
    expect(() => parseOpenEnvFlags({ openenv: 'h:1', 'openenv-wrappers': 'python_tool' })).toThrow(/--openenv-env/);
    expect(() => parseOpenEnvFlags({ openenv: 'h:1', 'openenv-max-sessions': '0' })).toThrow(/positive integer/);
  });

  it('gem-ts serve exits 2 on a bad OpenEnv flag, before binding anything', async () => {
    const { run } = await import('../../../src/cli/serve.ts');
    const errors: string[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((m: unknown) => void errors.push(String(m)));
    try {
      expect(await run(['--openenv', 'localhost'])).toBe(2);
      expect(await run(['--openenv-env', GAME])).toBe(2);
    } finally {
      spy.mockRestore();
    }
    expect(errors).toEqual([expect.stringContaining('--openenv needs HOST:PORT'), expect.stringContaining('--openenv-env needs --openenv HOST:PORT')]);
  });
});

describe('OpenEnv protocol without sockets', () => {
  it('plays GuessTheNumber to a win: one observation per message, rewards and state counted', async () => {
    const p = protocol();
    const { send } = open(p);
    const first = await send({ type: 'reset', data: { seed: 3, episode_id: 'ep-1' } });
    expect(first.type).toBe('observation');
    expect(first.data.reward).toBeNull();
    expect(first.data.done).toBe(false);
    expect(first.data.observation.text).toContain('Guess The Number');
    const rewards = await playGuessing(send);
    expect(rewards.at(-1)).toBe(1);
    expect(rewards.slice(0, -1).every((r) => r === 0)).toBe(true);
    const state = await send({ type: 'state' });
    expect(state).toEqual({ type: 'state', data: { episode_id: 'ep-1', step_count: rewards.length, env_id: GAME, seed: 3, total_reward: 1, done: true } });
    // A second episode on the same session and env.
    const again = await send({ type: 'reset', data: { seed: 3 } });
    expect(again.data.observation.text).toBe(first.data.observation.text);
    expect((await send({ type: 'state' })).data.step_count).toBe(0);
    expect(await p.onWsMessage(open(p).session, '{"type":"close"}')).toEqual({ close: true });
  });

  it('answers bad input with OpenEnv error frames and keeps the session working', async () => {
    const p = protocol();
    const { send } = open(p);
    expect(await send('{nope')).toMatchObject({ type: 'error', data: { code: 'INVALID_JSON' } });
    expect(await send('[1]')).toMatchObject({ type: 'error', data: { code: 'VALIDATION_ERROR' } });
    expect(await send({ type: 'jump' })).toMatchObject({ type: 'error', data: { code: 'UNKNOWN_TYPE', message: expect.stringContaining('jump') } });
    for (const inherited of ['constructor', 'toString', '__proto__']) expect(await send({ type: inherited })).toMatchObject({ type: 'error', data: { code: 'UNKNOWN_TYPE' } });
    expect(await send({ type: 'state', extra: 1 })).toMatchObject({ type: 'error', data: { code: 'VALIDATION_ERROR' } });
    // JSON-RPC inside a WebSocket session ('mcp' messages) reaches the same session.
    expect(await send({ type: 'mcp', data: { jsonrpc: '2.0', id: 1, method: 'tools/list' } })).toEqual({ type: 'mcp', data: { jsonrpc: '2.0', id: 1, result: { tools: [] } } });
    expect(await send({ type: 'mcp', data: { jsonrpc: '2.0', id: 2, method: 'openenv/session/create' } })).toMatchObject({ data: { result: { session_id: expect.any(String) } } });
    expect(p.sessionCount).toBe(1);
    expect(await send({ type: 'step', data: { message: 'x' } })).toMatchObject({ type: 'error', data: { code: 'EXECUTION_ERROR', gem_code: 'RESET_NEEDED' } });
    expect(await send({ type: 'reset', data: { seed: -1 } })).toMatchObject({ type: 'error', data: { code: 'VALIDATION_ERROR', errors: [{ loc: ['data', 'seed'] }] } });
    expect(await send({ type: 'reset', data: { bogus: 1 } })).toMatchObject({ type: 'error', data: { code: 'VALIDATION_ERROR', message: expect.stringContaining("'bogus'") } });
    expect(await send({ type: 'reset', data: { env_id: 'game:Nope-v0' } })).toMatchObject({
      type: 'error',
      data: { code: 'FACTORY_ERROR', gem_code: 'UNKNOWN_ENV', message: expect.stringContaining("'game:Nope-v0' is not registered") },
    });
    expect(await send({ type: 'reset', data: { options: { bogus: 1 } } })).toMatchObject({ type: 'error', data: { code: 'FACTORY_ERROR', gem_code: 'INVALID_OPTIONS' } });
    expect((await send({ type: 'reset', data: { seed: 1 } })).type).toBe('observation');
    expect(await send({ type: 'step', data: { action: 'x' } })).toMatchObject({ type: 'error', data: { code: 'VALIDATION_ERROR', message: expect.stringContaining("'action'") } });
    expect((await send({ type: 'step', data: { message: '\\boxed{5}' } })).type).toBe('observation');
  });

  it('answers a plain step or reset of a made env in the turn it came, as the schema-checked path answers it', async () => {
    const p = protocol();
    const { session, send } = open(p);
    const ask = (msg: unknown) => p.onWsMessage(session, JSON.stringify(msg));
    // The first reset makes the env: its answer comes later.
    const making = ask({ type: 'reset', data: { seed: 3 } });
    expect(making).toBeInstanceOf(Promise);
    const first = (await making).reply;
    // Then plain resets and steps are answered at once.
    const again = ask({ type: 'reset', data: { seed: 3, episode_id: 'ep-2' } });
    expect(again).not.toBeInstanceOf(Promise);
    expect((again as WsOutcome).reply).toEqual(first);
    // A reset naming the env goes through the schemas and gives the same observation.
    expect(await send({ type: 'reset', data: { seed: 3, env_id: GAME } })).toEqual(first);
    const step = ask({ data: { metadata: { note: 1 }, message: '\\boxed{5}' }, type: 'step' });
    expect(step).not.toBeInstanceOf(Promise);
    expect((step as WsOutcome).reply).toMatchObject({ type: 'observation', data: { observation: { text: expect.stringContaining('5') } } });
    expect(session.inflight).toBe(0);
    // Shapes the schemas refuse are refused as before.
    expect(await send({ type: 'step', data: { message: 5 } })).toMatchObject({ type: 'error', data: { code: 'VALIDATION_ERROR' } });
    expect(await send({ type: 'step', data: { message: 'x', extra: 1 } })).toMatchObject({ type: 'error', data: { code: 'VALIDATION_ERROR', message: expect.stringContaining("'extra'") } });
    expect(await send({ type: 'step', data: { message: 'x' }, id: 1 })).toMatchObject({ type: 'error', data: { code: 'VALIDATION_ERROR' } });
    expect(await send({ type: 'reset', data: { seed: 1.5 } })).toMatchObject({ type: 'error', data: { code: 'VALIDATION_ERROR', errors: [{ loc: ['data', 'seed'] }] } });
    expect(await send({ type: 'reset', data: { episode_id: 'x'.repeat(256) } })).toMatchObject({ type: 'error', data: { code: 'VALIDATION_ERROR' } });
    expect(await send({ type: 'reset', data: null })).toMatchObject({ type: 'error', data: { code: 'VALIDATION_ERROR' } });
    expect(await send({ type: 'state' })).toMatchObject({ type: 'state', data: { episode_id: expect.any(String), step_count: 1, seed: 3 } });
    // A closed session answers as before: a reset is refused as the make is, a step as a run.
    await p.endSession(session, 'test');
    expect(await send({ type: 'reset', data: {} })).toMatchObject({ type: 'error', data: { code: 'FACTORY_ERROR', gem_code: 'ENV_CLOSED' } });
    expect(await send({ type: 'step', data: { message: 'x' } })).toMatchObject({ type: 'error', data: { code: 'EXECUTION_ERROR', gem_code: 'ENV_CLOSED' } });
  });

  it('says how to pick an env when nothing names one, and takes env_id from reset', async () => {
    const p = protocol();
    const { send } = open(p, { endpoint: 'ws' });
    expect(await send({ type: 'reset', data: {} })).toMatchObject({ type: 'error', data: { message: expect.stringContaining('/envs/<env id>') } });
    const r = await send({ type: 'reset', data: { env_id: MATH, options: { dataset: ROWS }, seed: 0 } });
    expect(r.data.observation.text).toContain('What is 6*7?');
    const s = await send({ type: 'step', data: { message: '\\boxed{42}' } });
    expect(s.data).toMatchObject({ reward: 1, done: true, metadata: { correct: true } });
    // The server's default env serves sessions whose route names none.
    const q = protocol({ defaultEnv: { envId: MATH, options: { dataset: ROWS } } });
    const r2 = await open(q, { endpoint: 'ws' }).send({ type: 'reset', data: { seed: 0 } });
    expect(r2.data.observation.text).toContain('What is 6*7?');
  });

  it("lists and runs the env's tools (python_tool) by step actions and by JSON-RPC, and plays a tool turn", async () => {
    const p = protocol();
    const { session, send } = open(p, { endpoint: 'ws', envId: MATH });
    await send({ type: 'reset', data: { seed: 0, options: { dataset: ROWS }, wrappers: ['python_tool'] } });
    const listed = await send({ type: 'step', data: { type: 'list_tools' } });
    expect(listed.data.observation.tools).toEqual([
      { name: 'python', description: expect.any(String), input_schema: expect.objectContaining({ properties: { code: { type: 'string' } }, required: ['code'] }) },
    ]);
    const called = await send({ type: 'step', data: { type: 'call_tool', tool_name: 'python', arguments: { code: 'print(6*7)' } } });
    expect(called.data.observation).toMatchObject({ tool_name: 'python', result: { data: '42\n', isError: false }, error: null });
    const unknown = await send({ type: 'step', data: { type: 'call_tool', tool_name: 'bash' } });
    expect(unknown.data.observation.error).toMatchObject({ error_type: 'tool_not_found' });
    const badArgs = await send({ type: 'step', data: { type: 'call_tool', tool_name: 'python', arguments: { src: 1 } } });
    expect(badArgs.data.observation.error).toMatchObject({ error_type: 'invalid_args' });
    // Over JSON-RPC, addressed by session id as MCPToolClient does.
    const rpc = await p.rpc({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { session_id: session.id, name: 'python', arguments: { code: 'print(1+1)' } } }, { route: { endpoint: 'mcp' } });
    expect(rpc).toEqual({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: '2\n' }], isError: false, data: '2\n' } });
    // Tool calls are not env steps: the episode goes on with a tool turn, then the answer.
    const toolTurn = await send({ type: 'step', data: { message: '<python>print(6*7)</python>' } });
    expect(toolTurn.data.observation.text).toContain('42');
    expect(toolTurn.data.done).toBe(false);
    const answer = await send({ type: 'step', data: { message: '\\boxed{42}' } });
    expect(answer.data).toMatchObject({ reward: 1, done: true });
    expect((await send({ type: 'state' })).data).toMatchObject({ step_count: 2, total_reward: toolTurn.data.reward + 1 });
  }, 60_000);

  it('answers JSON-RPC like OpenEnv: sessions made and closed, unknown methods and sessions, bad params', async () => {
    const p = protocol();
    const route: Route = { endpoint: 'mcp', envId: GAME };
    const created = (await p.rpc({ jsonrpc: '2.0', id: 1, method: 'openenv/session/create' }, { route })) as any;
    const sid = created.result.session_id as string;
    expect(p.getSession(sid)).toBeDefined();
    expect(await p.rpc({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { session_id: sid } }, { route })).toEqual({ jsonrpc: '2.0', id: 2, result: { tools: [] } });
    expect(await p.rpc({ jsonrpc: '2.0', id: 3, method: 'nope' }, { route })).toMatchObject({ error: { code: -32601 } });
    expect(await p.rpc({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: {} }, { route })).toMatchObject({ error: { code: -32602, message: "Missing 'name' in params" } });
    expect(await p.rpc({ jsonrpc: '2.0', id: 5, method: 'tools/list', params: { session_id: 'x' } }, { route })).toMatchObject({ error: { code: -32602, message: 'Unknown session_id: x' } });
    expect(await p.rpc({ jsonrpc: '1.0', method: 'tools/list' }, { route })).toMatchObject({ id: null, error: { code: -32600 } });
    // Attached by a WebSocket, a session closes when the socket goes.
    const ws = p.openWs({ endpoint: 'ws' }, sid);
    expect('session' in ws && ws.owned).toBe(false);
    expect(p.openWs({ endpoint: 'ws' }, sid)).toMatchObject({ error: { data: { code: 'SESSION_ERROR' } } });
    expect(await p.rpc({ jsonrpc: '2.0', id: 6, method: 'openenv/session/close', params: { session_id: sid } }, { route })).toMatchObject({ result: { closed: false, closing: true } });
    if ('session' in ws) await p.closeWs(ws.session, ws.owned);
    expect(p.getSession(sid)).toBeUndefined();
    expect(p.sessionCount).toBe(0);
  });

  it('serves the plain HTTP routes: health, schema, metadata, state, stateless reset and step, MCP parse errors', async () => {
    const p = protocol();
    const game: Route = { endpoint: 'reset', envId: GAME };
    expect(await p.http('GET', { endpoint: 'health' }, undefined)).toEqual({ status: 200, body: { status: 'healthy' } });
    const schema = (await p.http('GET', { endpoint: 'schema' }, undefined)).body as any;
    expect(Object.keys(schema)).toEqual(['action', 'observation', 'state']);
    expect(schema.action.required).toEqual(['message']);
    expect((await p.http('GET', { endpoint: 'metadata', envId: GAME }, undefined)).body).toMatchObject({ name: GAME, description: expect.stringContaining('Guess') });
    expect((await p.http('GET', { endpoint: 'metadata', envId: 'game:Nope-v0' }, undefined)).status).toBe(404);
    expect((await p.http('GET', { endpoint: 'state', envId: GAME }, undefined)).body).toMatchObject({ episode_id: null, step_count: 0, env_id: GAME });
    const reset = await p.http('POST', game, '{"seed":3}');
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({ reward: null, done: false, observation: { text: expect.stringContaining('Guess') } });
    const step = await p.http('POST', { endpoint: 'step', envId: GAME }, JSON.stringify({ seed: 3, action: { message: '\\boxed{7}' } }));
    expect(step.body).toMatchObject({ reward: 1, done: true });
    expect(await p.http('POST', { endpoint: 'step', envId: GAME }, JSON.stringify({ action: { msg: 'x' } }))).toMatchObject({ status: 422, body: { detail: [{ loc: ['body', 'action', 'message'] }, { loc: ['body', 'action'], msg: expect.stringContaining("'msg'") }] } });
    expect((await p.http('POST', { endpoint: 'step', envId: GAME }, '')).status).toBe(422);
    expect((await p.http('POST', game, '{x')).status).toBe(422);
    expect(await p.http('POST', { endpoint: 'reset', envId: 'game:Nope-v0' }, '{}')).toMatchObject({ status: 404, body: { code: 'UNKNOWN_ENV' } });
    expect((await p.http('POST', { endpoint: 'reset' }, '{}')).status).toBe(422);
    expect((await p.http('GET', game, undefined)).status).toBe(405);
    expect(await p.http('POST', { endpoint: 'mcp' }, '{oops')).toEqual({ status: 200, body: { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error', data: null } } });
    expect(p.sessionCount).toBe(0);
  });

  it('applies the tenancy limits, the session cap, the auth token and the idle timeout', async () => {
    const limited = protocol({ limits: { max_envs_per_client: 0 } });
    expect(await open(limited).send({ type: 'reset', data: {} })).toMatchObject({ type: 'error', data: { code: 'CAPACITY_REACHED', gem_code: 'LIMIT_EXCEEDED' } });

    const capped = protocol({ maxSessions: 1 });
    open(capped);
    expect(capped.openWs({ endpoint: 'ws', envId: GAME }, null)).toMatchObject({ error: { data: { code: 'CAPACITY_REACHED', active_sessions: 1, max_sessions: 1 } } });

    const authed = protocol({ authToken: 's3cret' });
    expect(authed.authorized('health', undefined)).toBe(true);
    expect(authed.authorized('ws', undefined)).toBe(false);
    expect(authed.authorized('ws', 'Bearer nope')).toBe(false);
    expect(authed.authorized('reset', 'Bearer s3cret')).toBe(true);

    const idle = protocol({ limits: { idle_timeout_ms: 100 } });
    idle.startSweeping();
    const { session, send } = open(idle);
    await send({ type: 'reset', data: {} });
    let kicked = '';
    session.kick = (why) => (kicked = why);
    await new Promise((r) => setTimeout(r, 400));
    expect(idle.sessionCount).toBe(0);
    expect(session.closed).toBe(true);
    expect(kicked).toMatch(/idle/);
  });
});

describe('one session layer for two front doors', () => {
  it("plays a `shared/` env another front door's client published, when given that door's tenancy and op handlers", async () => {
    // The ZeroMQ door's layer, as gem-ts serve --openenv hands it over.
    const { tenancy, ops } = new GemServer({ transport: new InMemoryTransport(), catalog: catalog.envs, wrappers: catalog.wrappers }).sessionLayer;
    // A client of the other door publishes a copy of the game under a shared/ id.
    const publisher = new ClientSession(1, 'resume', tenancy.newScope());
    tenancy.registerEnv(publisher, { ...catalog.envs.get(GAME), id: 'shared/custom:Guess-v0' });
    const p = protocol({ sessionLayer: { tenancy, ops } });
    const { send } = open(p, { endpoint: 'ws', envId: 'shared/custom:Guess-v0' });
    expect((await send({ type: 'reset', data: { seed: 3 } })).data.observation.text).toContain('Guess The Number');
    expect((await playGuessing(send)).at(-1)).toBe(1);
    // Without the shared layer the id is unknown to the door.
    expect(await open(protocol(), { endpoint: 'ws', envId: 'shared/custom:Guess-v0' }).send({ type: 'reset', data: {} })).toMatchObject({ data: { code: 'FACTORY_ERROR', gem_code: 'UNKNOWN_ENV' } });
    tenancy.release(publisher);
  });
});

describe('OpenEnv server over sockets', () => {
  async function start(opts: Partial<OpenEnvOptions> = {}): Promise<string> {
    const s = new OpenEnvServer({ catalog: catalog.envs, wrappers: catalog.wrappers, host: '127.0.0.1', port: 0, ...opts });
    servers.push(s);
    return s.start();
  }

  function connectWs(url: string, headers: Record<string, string> = {}): Promise<{ ws: WebSocket; ask: (msg: unknown) => Promise<any> }> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers });
      const replies: ((v: any) => void)[] = [];
      ws.on('message', (d) => replies.shift()?.(JSON.parse(String(d))));
      ws.on('open', () => resolve({ ws, ask: (msg) => new Promise((r) => (replies.push(r), ws.send(JSON.stringify(msg)))) }));
      ws.on('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      ws.on('error', reject);
    });
  }

  it('answers pipelined messages in order while the first one still makes the env, and ends the session with a close message', async () => {
    const base = await start();
    const door = servers.at(-1)!;
    const ws = new WebSocket(`${base.replace('http://', 'ws://')}/envs/${GAME}/ws`);
    await new Promise((resolve, reject) => (ws.on('open', resolve), ws.on('error', reject)));
    const replies: any[] = [];
    const messages = [
      { type: 'reset', data: { seed: 3 } },
      { type: 'step', data: { message: '\\boxed{1}' } },
      { type: 'step', data: { message: '\\boxed{2}' } },
      { type: 'state' },
      { type: 'reset', data: { seed: 4, episode_id: 'b' } },
      { type: 'step', data: { message: 'no guess' } },
      { type: 'state' },
    ];
    const all = new Promise<void>((resolve) =>
      ws.on('message', (d) => {
        replies.push(JSON.parse(String(d)));
        if (replies.length === messages.length) resolve();
      }),
    );
    for (const m of messages) ws.send(JSON.stringify(m));
    await all;
    expect(replies.map((r) => r.type)).toEqual(['observation', 'observation', 'observation', 'state', 'observation', 'observation', 'state']);
    expect(replies[0].data).toMatchObject({ reward: null, done: false });
    expect(replies[3].data).toMatchObject({ step_count: 2, seed: 3 });
    expect(replies[6].data).toMatchObject({ step_count: 1, seed: 4, episode_id: 'b' });
    expect(door.protocol.sessionCount).toBe(1);
    // Nothing after `close` is answered, and the session ends with it.
    const closed = new Promise((resolve) => ws.on('close', resolve));
    ws.send(JSON.stringify({ type: 'close' }));
    ws.send(JSON.stringify({ type: 'state' }));
    await closed;
    expect(replies).toHaveLength(messages.length);
    expect(door.protocol.sessionCount).toBe(0);
  });

  it('ends the session of a socket that closes with its messages still running or waiting', async () => {
    const base = await start();
    const door = servers.at(-1)!;
    const closeWs = door.protocol.closeWs.bind(door.protocol);
    let detached!: () => void;
    const gone = new Promise<void>((resolve) => (detached = resolve));
    door.protocol.closeWs = async (session, owned) => {
      await closeWs(session, owned);
      detached();
    };
    const ws = new WebSocket(`${base.replace('http://', 'ws://')}/envs/${GAME}/ws`);
    await new Promise((resolve, reject) => (ws.on('open', resolve), ws.on('error', reject)));
    // The reset makes the env (a promise) and the step waits for it; the socket closes right behind them.
    ws.send(JSON.stringify({ type: 'reset', data: { seed: 3 } }));
    ws.send(JSON.stringify({ type: 'step', data: { message: '\\boxed{1}' } }));
    ws.close();
    await gone;
    expect(door.protocol.sessionCount).toBe(0);
  });

  it('plays over a WebSocket, answers HTTP, and refuses a missing token with 401', async () => {
    const base = await start({ authToken: 'tok' });
    const ws = base.replace('http://', 'ws://');
    expect(await (await fetch(`${base}/health`)).json()).toEqual({ status: 'healthy' });
    expect((await fetch(`${base}/schema`)).status).toBe(401);
    expect((await fetch(`${base}/nope`)).status).toBe(404);
    await expect(connectWs(`${ws}/envs/${GAME}/ws`)).rejects.toThrow('HTTP 401');
    const { ws: sock, ask } = await connectWs(`${ws}/envs/${GAME}/ws`, { authorization: 'Bearer tok' });
    expect((await ask({ type: 'reset', data: { seed: 3 } })).data.done).toBe(false);
    const rewards = await playGuessing(ask);
    expect(rewards.reduce((a, b) => a + b, 0)).toBe(1);
    const closed = new Promise((r) => sock.on('close', r));
    sock.send(JSON.stringify({ type: 'close' }));
    await closed;
    const r = await fetch(`${base}/envs/${GAME}/reset`, { method: 'POST', body: '{"seed":3}', headers: { authorization: 'Bearer tok' } });
    expect(((await r.json()) as any).observation.text).toContain('Guess');
  });
});
