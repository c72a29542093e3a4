/**
 * Resolves, with the reason, when a long-running command (`serve`, `ui`) should stop: SIGINT,
 * SIGTERM, its parent's death or, with `stdin`, stdin's end. `npx gem-ts …` runs us under
 * `npm exec` → `sh -c`, and a SIGTERM to npm ends both without passing it on: the orphan kept its
 * port. An orphan is re-parented, so a changed ppid means whoever started us is gone.
 */
export function untilStopped(opts: { stdin?: boolean; parent?: boolean; pollMs?: number } = {}): Promise<string> {
  const parent = process.ppid;
  return new Promise((resolve) => {
    const cleanups: (() => void)[] = [];
    const done = (why: string) => {
      for (const c of cleanups) c();
      resolve(why);
    };
    for (const sig of ['SIGINT', 'SIGTERM'] as const) {
      const on = () => done(sig);
      process.once(sig, on);
      cleanups.push(() => process.off(sig, on));
    }
    if ((opts.parent ?? true) && parent > 1) {
      // Either sign counts: re-parented, or the parent's pid no longer exists.
      const watch = setInterval(() => {
        if (process.ppid !== parent || !exists(parent)) done(`parent ${parent} exited`);
      }, opts.pollMs ?? 50);
      watch.unref();
      cleanups.push(() => clearInterval(watch));
    }
    if (opts.stdin) {
      const onEnd = () => done('stdin closed');
      const onError = () => done('stdin error');
      process.stdin.once('end', onEnd).once('error', onError).resume();
      cleanups.push(() => process.stdin.off('end', onEnd).off('error', onError));
    }
  });
}

function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
