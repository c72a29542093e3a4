/**
 * Giving freed memory back after a client that held big datasets leaves. V8 collects such garbage only
 * under allocation pressure, so an idle shared server would keep the last tenant's tables in RSS for
 * good; one full collection, shortly after, returns them. Rate-limited, so a churn of clients never
 * turns into a collection per request.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Freed bytes below this are left to V8's own schedule. */
export const RELEASE_MIN_BYTES = 8 * 1024 * 1024;
const DELAY_MS = 200;
const MIN_INTERVAL_MS = 2000;

let collect: (() => void) | null | undefined;
let timer: NodeJS.Timeout | undefined;
let last = 0;

function gcFunction(): (() => void) | null {
  if (collect === undefined) {
    try {
      // The documented way to reach gc() without starting node with --expose-gc.
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as () => void;
    } catch {
      collect = null;
    }
  }
  return collect;
}

/** Schedules one full collection (at most every MIN_INTERVAL_MS) after `bytes` were freed. */
export function releaseFreedMemory(bytes: number): void {
  if (bytes < RELEASE_MIN_BYTES || timer) return;
  const wait = Math.max(DELAY_MS, last + MIN_INTERVAL_MS - Date.now());
  timer = setTimeout(() => {
    timer = undefined;
    last = Date.now();
    gcFunction()?.();
  }, wait);
  timer.unref();
}
