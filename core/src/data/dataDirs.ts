/**
 * The server-side directories whose files a client may name as a dataset (`gem-ts serve --data-dir`).
 *
 * A path is resolved to its real path (symlinks and `..` followed) and then must lie in one of the
 * directories, be readable, and, for a folder, list only table files that pass the same check (a
 * `state.json` can name files anywhere). Every failure — outside, missing, unreadable, a link out —
 * gives the same `undefined`, so a client cannot tell which it was and cannot probe the file system.
 */
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { GemError } from '../core/errors.ts';
import { filesInFolder } from './hfDiskLayout.ts';

export class DataDirs {
  private constructor(readonly dirs: readonly string[]) {}

  /** No server-side file at all: the default for clients over the wire. */
  static none(): DataDirs {
    return new DataDirs([]);
  }

  /** These directories (each must exist); throws INVALID_OPTIONS naming the one that does not. */
  static of(dirs: readonly string[]): DataDirs {
    const real = dirs.map((d) => {
      try {
        const r = realpathSync(resolve(d));
        if (!statSync(r).isDirectory()) throw new Error('not a directory');
        return r;
      } catch (e) {
        throw new GemError('INVALID_OPTIONS', `The data directory '${d}' cannot be used: ${(e as Error).message}.`, { dir: d });
      }
    });
    return new DataDirs([...new Set(real)]);
  }

  private inside(real: string): boolean {
    return this.dirs.some((d) => {
      const rel = relative(d, real);
      return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
    });
  }

  /** The real path of `path` when it lies in a data directory and this process may read it. */
  private realInside(path: string): string | undefined {
    try {
      const real = realpathSync(resolve(path));
      if (!this.inside(real)) return undefined;
      accessSync(real, statSync(real).isDirectory() ? constants.R_OK | constants.X_OK : constants.R_OK);
      return real;
    } catch {
      return undefined;
    }
  }

  /**
   * The real path of a table file or dataset folder the client may read (relative paths are taken
   * from the server's working directory), or undefined. A folder counts only when every file it
   * gives for `split` is itself allowed.
   */
  check(path: string, split: string | undefined): string | undefined {
    const real = this.realInside(path);
    if (real === undefined || !statSync(real).isDirectory()) return real;
    // A malformed folder's error names only files inside it, which the client may read anyway.
    const files = filesInFolder(real, split);
    return files && files.every((f) => this.realInside(f) !== undefined) ? real : undefined;
  }

  /** `<dir>/<name>` under the first data directory that has it and allows it (a hub's folder). */
  find(name: string, split: string | undefined): string | undefined {
    for (const dir of this.dirs) {
      const found = this.check(join(dir, name), split);
      if (found !== undefined) return found;
    }
    return undefined;
  }
}
