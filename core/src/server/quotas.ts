/**
 * Quotas a shared server enforces per client and in total (docs/protocol.md, "Tenancy"): each refusal
 * is a LIMIT_EXCEEDED reply naming the limit, the value asked for, the maximum and the `gem-ts serve`
 * flag that raises it. Nothing is half-done by a refused request, so the session keeps working.
 */
import { freemem } from 'node:os';
import { GemError } from '../core/errors.ts';
import type { ServerLimits } from './protocol/version.ts';

/** The `gem-ts serve` flag of a limit: `max_envs_per_client` → `--max-envs-per-client`. */
export function limitFlag(limit: keyof ServerLimits): string {
  return `--${limit.replace(/_/g, '-')}`;
}

/** `about`: what the refusal is for beside the figures (a refused step's env: `index`, `handle`). */
export function limitExceeded(limit: keyof ServerLimits, value: number, max: number, what: string, about?: Record<string, unknown>): GemError {
  return new GemError('LIMIT_EXCEEDED', `${what}: ${limit} is ${max} (the server's operator raises it with gem-ts serve ${limitFlag(limit)}).`, {
    limit,
    value,
    max,
    ...about,
  });
}

/** Memory the process can still take: the system's available memory, or less under a cgroup limit. */
export function availableMemory(): number {
  let free = freemem();
  const constrained = (process as { constrainedMemory?: () => number | undefined }).constrainedMemory?.();
  // constrainedMemory() is 0 or a huge sentinel when there is no limit.
  if (constrained && constrained < Number.MAX_SAFE_INTEGER && constrained < 2 ** 60) {
    free = Math.min(free, Math.max(0, constrained - process.memoryUsage.rss()));
  }
  return free;
}

/** Refuses work expected to take `need` bytes when that would leave less than the headroom free. */
export function checkHeadroom(limits: ServerLimits, need: number, what: string): void {
  const headroom = limits.memory_headroom_bytes;
  if (!headroom) return;
  const free = availableMemory();
  if (free - need < headroom) {
    throw limitExceeded('memory_headroom_bytes', Math.max(0, free - need), headroom, `${what} would leave ${Math.max(0, free - need)} bytes of memory free`);
  }
}
