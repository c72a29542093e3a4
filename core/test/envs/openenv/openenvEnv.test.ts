/**
 * `openenv:Remote-v0`: an OpenEnv server as a gem-ts env, played against gem-ts's own OpenEnv front
 * door in this process (gem-ts → OpenEnv's WebSocket protocol → gem-ts): a game to the end with the
 * rewards of direct play, wrappers and a makeVec of several sessions, checkEnv, and every failure
 * (bad URL, nothing listening, not an OpenEnv server, a silent server, a socket closed mid-episode,
 * OpenEnv error replies) as a GemError naming the URL, within the timeouts.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { checkEnv, GemError, make, makeVec } from '../../../src/index.ts';
import { builtinCatalog } from '../../../src/envs/builtinCatalog.ts';
import { OPENENV_ID } from '../../../src/envs/openenv/index.ts';
import type { OpenEnvEnv } from '../../../src/envs/openenv/openEnvEnv.ts';
import { sessionUrl } from '../../../src/envs/openenv/wire.ts';
import { evaluate } from '../../../src/eval/evaluator.ts';
import { OpenEnvServer } from '../../../src/server/openenv/openEnvServer.ts';
import { binarySearchPolicy, startMockServer } from '../../eval/mockChatServer.ts';

const GAME = 'game:GuessTheNumber-v0-easy';
const catalog = builtinCatalog();
let server: OpenEnvServer;
let root = '';
let gameUrl = '';

beforeAll(async () => {
  server = new OpenEnvServer({ catalog: catalog.envs, wrappers: catalog.wrappers, host: '127.0.0.1', port: 0 });
  root = await server.start();
  gameUrl = `${root}/envs/${GAME}`;
});
afterAll(async () => {
  await server.close();
});

/** The next bisecting guess of GuessTheNumber (1..10) from the last observation. */
function bisector(): (obs: string) => string {
  let lo = 1;
  let hi = 10;
  let last = 0;
  return (obs) => {
    if (last && /higher/.test(obs)) lo = last + 1;
    else if (last && /lower/.test(obs)) hi = last - 1;
    last = Math.floor((lo + hi) / 2);
    return `\\boxed{${last}}`;
  };
}

/** Plays one bisecting episode; the actions and the step results. */
async function play(env: { reset: (o: { seed: number }) => Promise<{ observation: string }>; step: (a: string) => Promise<any> }, seed: number) {
  const first = await env.reset({ seed });
  const next = bisector();
  let obs = first.observation;
  const actions: string[] = [];
  const steps: { observation: string; reward: number; terminated: boolean; truncated: boolean }[] = [];
  for (let t = 0; t < 10; t++) {
    actions.push(next(obs));
    const r = await env.step(actions.at(-1)!);
    steps.push({ observation: r.observation, reward: r.reward, terminated: r.terminated, truncated: r.truncated });
    obs = r.observation;
    if (r.terminated || r.truncated) break;
  }
  return { first: first.observation, actions, steps };
}

async function rejection(p: Promise<unknown>): Promise<GemError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(GemError);
    return e as GemError;
  }
  throw new Error('expected a rejection');
}

describe('openenv:Remote-v0 against gem-ts’s OpenEnv front door', () => {
  it('plays a game to the end with the observations and rewards of direct play', async () => {
    let episodes = 0;
    let steps = 0;
    let total = 0;
    for (const seed of [3, 4, 5]) {
      const remote = make(OPENENV_ID, { url: gameUrl });
      const direct = catalog.envs.make(GAME);
      const a = await play(remote, seed);
      const b = await play(direct, seed);
      expect(a).toEqual(b);
      const state = await (remote.unwrapped as unknown as OpenEnvEnv).state();
      expect(state).toMatchObject({ env_id: GAME, seed, step_count: a.steps.length, done: true });
      await remote.close();
      await direct.close();
      episodes++;
      steps += a.steps.length;
      total += a.steps.reduce((s, r) => s + r.reward, 0);
    }
    expect(episodes).toBe(3);
    expect(total).toBe(3); // bisecting 1..10 wins within 4 turns
    expect(steps).toBeGreaterThanOrEqual(3);
    expect(steps).toBeLessThanOrEqual(12);
  });

  it('reaches the root URL with reset_data, keeps info, and reuses one session across episodes', async () => {
    const env = make(OPENENV_ID, { url: root, reset_data: { env_id: GAME, options: { max_turns: 2 } } });
    const before = server.protocol.sessionCount;
    for (const seed of [1, 2]) {
      await env.reset({ seed });
      const r1 = await env.step('\\boxed{1}');
      const r2 = r1.terminated ? r1 : await env.step('\\boxed{10}');
      expect(r2.terminated || r2.truncated).toBe(true);
      expect(typeof r2.info).toBe('object');
    }
    expect(server.protocol.sessionCount).toBe(before + 1);
    await env.close();
    await env.close();
    await expect.poll(() => server.protocol.sessionCount).toBe(before);
    await expect(env.reset()).rejects.toMatchObject({ code: 'ENV_CLOSED' });
  });

  it('passes checkEnv (spawn({sameState}) replays the seeded episode on a session of its own)', async () => {
    await checkEnv(make(OPENENV_ID, { url: gameUrl, seed: 0 }) as never, { actions: ['\\boxed{5}', '\\boxed{8}', '\\boxed{3}', '\\boxed{9}'] });
  });

  it('works under wrappers and in a makeVec of several sessions', async () => {
    // Autoreset on: an env that ends starts its next episode from its own stream, here and directly.
    const vec = makeVec(OPENENV_ID, { numEnvs: 3, options: { url: gameUrl }, wrappers: ['episode_tracking', 'concat'], seed: 10 });
    const direct = makeVec(GAME, { numEnvs: 3, wrappers: ['episode_tracking', 'concat'], seed: 10 });
    const [r, d] = [await vec.reset(), await direct.reset()];
    expect(r.observations).toEqual(d.observations);
    let total = 0;
    for (const guess of [5, 8, 3, 9, 7, 2]) {
      const actions = [0, 1, 2].map(() => `\\boxed{${guess}}`);
      const [s, t] = [await vec.step(actions), await direct.step(actions)];
      expect(s.observations).toEqual(t.observations);
      expect([...s.rewards]).toEqual([...t.rewards]);
      expect(s.terminated).toEqual(t.terminated);
      expect(s.infos.map((i) => i.cumulative_rewards)).toEqual(t.infos.map((i) => i.cumulative_rewards));
      total += s.rewards.reduce((x, y) => x + y, 0);
    }
    expect(Number.isFinite(total)).toBe(true);
    await vec.close();
    await direct.close();
  });

  it('gem-ts eval scores it as it scores the env played directly', async () => {
    const model = await startMockServer({ policy: binarySearchPolicy });
    try {
      const common = { baseUrl: model.url, model: 'mock', retryBaseMs: 1, episodes: 4, seed: 0 };
      const remote = await evaluate({ ...common, envIds: [OPENENV_ID], envOptions: { url: gameUrl } });
      const direct = await evaluate({ ...common, envIds: [GAME] });
      const strip = (m: (typeof remote.metrics)[number]) => ({ ...m, env_id: undefined });
      expect(remote.errors).toEqual([]);
      expect(remote.metrics.map(strip)).toEqual(direct.metrics.map(strip));
      expect(remote.metrics[0]).toMatchObject({ episodes: 4, successes: 4 });
    } finally {
      await model.close();
    }
  });

  it('sends JSON actions as the action object; text that is not one is a format error that ends the episode', async () => {
    const env = make(OPENENV_ID, { url: gameUrl, action_format: 'json', invalid_action_reward: -0.5 });
    await env.reset({ seed: 3 });
    const ok = await env.step(JSON.stringify({ message: '\\boxed{5}' }));
    expect(ok.reward).toBeGreaterThanOrEqual(0);
    const bad = await env.step('\\boxed{6}');
    expect(bad).toMatchObject({ reward: -0.5, terminated: true, truncated: false });
    expect(bad.observation).toMatch(/^Invalid action: the action is not JSON/);
    await env.reset({ seed: 3 });
    // gem-ts's front door refuses an action field it does not know (VALIDATION_ERROR): a format error too.
    const refused = await env.step(JSON.stringify({ guess: 5 }));
    expect(refused).toMatchObject({ reward: -0.5, terminated: true });
    expect(refused.observation).toMatch(/server refused the action/);
    await env.close();
  });

  it('an OpenEnv error reply is a GemError with the URL and gem-ts’s own code when the server is gem-ts', async () => {
    const env = make(OPENENV_ID, { url: `${root}/envs/game:NoSuchGame-v0` });
    const e = await rejection(env.reset());
    expect(e.code).toBe('UNKNOWN_ENV');
    expect(e.message).toContain(root);
    expect(e.message).toContain('FACTORY_ERROR');
    expect(e.data).toMatchObject({ openenv_code: 'FACTORY_ERROR', gem_code: 'UNKNOWN_ENV' });
    await env.close();
    // A text action field the server does not take is a configuration error, not a format error.
    const wrong = make(OPENENV_ID, { url: gameUrl, action_field: 'guess' });
    await wrong.reset({ seed: 1 });
    expect((await rejection(wrong.step('\\boxed{5}'))).code).toBe('INVALID_REQUEST');
    await wrong.close();
  });
});

describe('openenv:Remote-v0 with a token', () => {
  it('without the token: UNAUTHORIZED; with it in headers: plays', async () => {
    const locked = new OpenEnvServer({ catalog: catalog.envs, wrappers: catalog.wrappers, host: '127.0.0.1', port: 0, authToken: 'sesame' });
    const url = `${await locked.start()}/envs/${GAME}`;
    try {
      const e = await rejection(make(OPENENV_ID, { url }).reset());
      expect(e.code).toBe('UNAUTHORIZED');
      expect(e.message).toContain('HTTP 401');
      const env = make(OPENENV_ID, { url, headers: { Authorization: 'Bearer sesame' } });
      expect((await play(env, 3)).steps.at(-1)!.reward).toBe(1);
      await env.close();
    } finally {
      await locked.close();
    }
  });
});

describe('openenv:Remote-v0 failures', () => {
  const sockets: { close: () => unknown }[] = [];
  afterAll(async () => {
    for (const s of sockets) await s.close();
  });

  /** A WebSocket server at /ws whose messages `answer` handles. */
  async function fakeServer(answer: (ws: WebSocket, msg: any) => void): Promise<string> {
    const http: Server = createServer((_q, res) => res.writeHead(404).end('{"detail":"Not Found"}'));
    const wss = new WebSocketServer({ server: http, path: '/ws' });
    wss.on('connection', (ws) =>
      ws.on('message', (d) => {
        const msg = JSON.parse(d.toString());
        if (msg.type !== 'close') answer(ws, msg);
      }),
    );
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    sockets.push({ close: () => new Promise<void>((r) => { for (const c of wss.clients) c.terminate(); wss.close(); http.close(() => r()); }) });
    return `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  }

  const observation = (text: string, reward: number | null, done: boolean) => ({ type: 'observation', data: { observation: { text, metadata: {} }, reward, done } });

  it('refuses a URL that is not http(s) or ws(s) at make', () => {
    expect(() => make(OPENENV_ID, { url: 'ftp://x' })).toThrowError(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
    expect(() => make(OPENENV_ID, { url: 'not a url' })).toThrowError(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
    expect(() => make(OPENENV_ID, {})).toThrowError(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
    expect(sessionUrl('http://h:1/envs/game:X-v0/')).toBe('ws://h:1/envs/game:X-v0/ws');
    expect(sessionUrl('wss://h/ws')).toBe('wss://h/ws');
  });

  it('nothing listening: SERVER_UNAVAILABLE naming the URL, at once', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const url = `http://127.0.0.1:${port}`;
    const env = make(OPENENV_ID, { url });
    const e = await rejection(env.reset());
    expect(e.code).toBe('SERVER_UNAVAILABLE');
    expect(e.message).toContain(url);
    await env.close();
  });

  it('an HTTP server that is not OpenEnv: PROTOCOL_ERROR', async () => {
    const http = createServer((_q, res) => res.writeHead(404).end('nope'));
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    try {
      const e = await rejection(make(OPENENV_ID, { url }).reset());
      expect(e.code).toBe('PROTOCOL_ERROR');
      expect(e.message).toContain(`${url} answered HTTP 404`);
    } finally {
      await new Promise<void>((r) => http.close(() => r()));
    }
  });

  it('a WebSocket server that does not speak OpenEnv: PROTOCOL_ERROR; one that never answers: TIMEOUT', async () => {
    const echo = await fakeServer((ws, msg) => ws.send(JSON.stringify({ echoed: msg })));
    const e = await rejection(make(OPENENV_ID, { url: echo }).reset());
    expect(e.code).toBe('PROTOCOL_ERROR');
    expect(e.message).toContain(`${echo} is not an OpenEnv session`);
    const silent = await fakeServer(() => undefined);
    const t0 = Date.now();
    const t = await rejection(make(OPENENV_ID, { url: silent, message_timeout_ms: 200 }).reset());
    expect(t.code).toBe('TIMEOUT');
    expect(t.message).toContain(silent);
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it('a server that closes the socket mid-episode: SERVER_UNAVAILABLE; the next reset opens a new session', async () => {
    let sessions = 0;
    const url = await fakeServer((ws, msg) => {
      if (msg.type === 'reset') {
        sessions++;
        ws.send(JSON.stringify(observation('start', null, false)));
      } else if (msg.type === 'step' && msg.data.message === 'crash') ws.close(1011, 'env crashed');
      else if (msg.type === 'step') ws.send(JSON.stringify(observation('ok', null, true)));
    });
    const env = make(OPENENV_ID, { url });
    await env.reset({ seed: 1 });
    const e = await rejection(env.step('crash'));
    expect(e.code).toBe('SERVER_UNAVAILABLE');
    expect(e.message).toContain(url);
    expect(e.message).toContain('1011 env crashed');
    expect((await env.reset({ seed: 2 })).observation).toBe('start');
    // A null reward is 0; done without flags means terminated; the whole observation less metadata when it has no text field.
    expect(await env.step('go')).toEqual({ observation: 'ok', reward: 0, terminated: true, truncated: false, info: {} });
    expect(sessions).toBe(2);
    await env.close();
  });

  it('a session refused as it opens (OpenEnv sends the error, then closes): that error, not a bare close', async () => {
    const http: Server = createServer();
    const wss = new WebSocketServer({ server: http, path: '/ws' });
    wss.on('connection', (ws) => ws.send(JSON.stringify({ type: 'error', data: { message: 'Server at capacity (1/1)', code: 'CAPACITY_REACHED' } }), () => ws.close(1000)));
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    sockets.push({ close: () => new Promise<void>((r) => { wss.close(); http.close(() => r()); }) });
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const e = await rejection(make(OPENENV_ID, { url }).reset());
    expect(e.code).toBe('LIMIT_EXCEEDED');
    expect(e.message).toContain('Server at capacity');
  });

  it('OpenEnv error frames of another server map to gem-ts codes', async () => {
    const url = await fakeServer((ws, msg) => {
      if (msg.type === 'reset') ws.send(JSON.stringify({ type: 'observation', data: { observation: { board: [1, 2], metadata: { m: 1 } }, reward: null, done: false } }));
      else if (msg.data.message === 'full') ws.send(JSON.stringify({ type: 'error', data: { message: 'no room', code: 'CAPACITY_REACHED' } }));
      else ws.send(JSON.stringify({ type: 'error', data: { message: 'ValueError: boom', code: 'EXECUTION_ERROR' } }));
    });
    const env = make(OPENENV_ID, { url });
    const r = await env.reset();
    expect(r).toEqual({ observation: '{"board":[1,2]}', info: { m: 1 } });
    expect(await rejection(env.step('full'))).toMatchObject({ code: 'LIMIT_EXCEEDED' });
    const e = await rejection(env.step('x'));
    expect(e.code).toBe('WORKER_FAILED');
    expect(e.message).toBe(`The OpenEnv server at ${url} answered step with EXECUTION_ERROR: ValueError: boom`);
    await env.close();
  });
});
