/**
 * The body of a WorkerPool thread: it owns the envs made in it, keyed by number, and answers one
 * reply per request in arrival order. Errors travel back as {code, message, data}.
 */
import { parentPort } from 'node:worker_threads';
import type { Env } from '../core/env.ts';
import { GemError, isGemError } from '../core/errors.ts';
import { isRegistered, make } from '../envs/defaultRegistry.ts';
import { getEnvAttr, setEnvAttr } from '../core/envAttributes.ts';
import type { WorkerReply, WorkerRequest } from './workerProtocol.ts';

const envs = new Map<number, Env>();
/** Envs whose make failed: later requests for them get the same error. */
const broken = new Map<number, GemError>();

function envFor(key: number): Env {
  const env = envs.get(key);
  if (env) return env;
  throw broken.get(key) ?? new GemError('INTERNAL', `worker has no env ${key}`);
}

async function handle(req: WorkerRequest): Promise<WorkerReply> {
  switch (req.op) {
    case 'make': {
      try {
        // Load registrations lazily: the module that registered the id, else the built-in envs.
        if (!isRegistered(req.envId) && req.moduleUrl) await import(req.moduleUrl);
        if (!isRegistered(req.envId)) await import('../envs/index.ts');
        const env = make(req.envId, { ...req.options, seed: req.seed });
        envs.set(req.key, env);
        return { id: req.id, ok: true, describe: env.toString() };
      } catch (e) {
        broken.set(req.key, toGemError(e));
        throw e;
      }
    }
    case 'reset': {
      const env = envFor(req.key);
      const result = await env.reset(req.opts);
      return { id: req.id, ok: true, result, sample: drawSample(env) };
    }
    case 'step': {
      const env = envFor(req.key);
      const result = await env.step(req.action);
      return { id: req.id, ok: true, result, sample: drawSample(env) };
    }
    case 'spawn': {
      try {
        envs.set(req.newKey, envFor(req.key).spawn(req.opts));
        return { id: req.id, ok: true };
      } catch (e) {
        broken.set(req.newKey, toGemError(e));
        throw e;
      }
    }
    case 'attr': {
      const env = envFor(req.key);
      if (!req.write) return { id: req.id, ok: true, value: await getEnvAttr(env, req.name) };
      await setEnvAttr(env, req.name, req.value);
      return { id: req.id, ok: true };
    }
    case 'close': {
      const env = envs.get(req.key);
      envs.delete(req.key);
      broken.delete(req.key);
      await env?.close();
      return { id: req.id, ok: true };
    }
  }
}

/** Some envs cannot sample outside an episode; the proxy then reports that when asked. */
function drawSample(env: Env): string | undefined {
  try {
    return env.sampleRandomAction();
  } catch {
    return undefined;
  }
}

function toGemError(e: unknown): GemError {
  return isGemError(e) ? e : new GemError('INTERNAL', e instanceof Error ? e.message : String(e));
}

// Requests are handled strictly in order, so a step never overtakes the make or reset before it.
let queue: Promise<unknown> = Promise.resolve();
parentPort!.on('message', (req: WorkerRequest) => {
  queue = queue.then(async () => {
    let reply: WorkerReply;
    try {
      reply = await handle(req);
    } catch (e) {
      reply = { id: req.id, ok: false, error: toGemError(e).toJSON() };
    }
    parentPort!.postMessage(reply);
  });
});
