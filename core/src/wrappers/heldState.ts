/**
 * Env state a client grows by what it sends (a history wrapper's kept actions and observations) is
 * memory the server holds for that client, so it counts against the client's byte quota. A wrapper
 * that keeps such state reports each change of its size to a meter the server attaches; the server
 * sums them per session without ever measuring the state itself (O(1) per step).
 */
import type { Env } from '../core/env.ts';

/** Takes the change in bytes a wrapper holds (negative when it lets go). */
export interface StateMeter {
  add(delta: number): void;
}

/** A wrapper that keeps client-grown state and reports its size. */
export interface HeldStateReporter {
  /** Reports to `meter` from now on, starting with what it holds already. */
  meterState(meter: StateMeter): void;
  /** Characters of state it holds now (UTF-16 code units: bytes for Latin-1 text, half of them otherwise). */
  heldBytes(): number;
}

function reports(env: unknown): env is HeldStateReporter {
  return typeof (env as Partial<HeldStateReporter>).meterState === 'function';
}

/** Attaches `meter` to every layer of `env`'s wrapper stack that keeps state; whether any does. */
export function attachStateMeter(env: Env<any, any>, meter: StateMeter): boolean {
  let found = false;
  for (let e: unknown = env; e && typeof e === 'object'; e = (e as { env?: unknown }).env) {
    if (reports(e)) {
      e.meterState(meter);
      found = true;
    }
  }
  return found;
}
