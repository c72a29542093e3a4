/**
 * The lean path: a few rows travel as msgpack arrays inside the header instead of an Arrow body.
 * Building an Arrow stream costs ~100 µs a message in arrow-js however few rows it holds, which is
 * most of a one-env round trip; msgpack arrays cost a few µs. Same columns as the Arrow schemas.
 */
import type { InlineRows } from './headers.ts';
import type { Rows } from './arrowCodec.ts';

export function rowsToInline(rows: Rows): InlineRows {
  const n = rows.observations.length;
  // The vector layer's arrays go out as they are; only the rewards are a typed array, which msgpack
  // would pack as an extension type Python does not read.
  if (!('rewards' in rows)) {
    const none = new Array<boolean>(n).fill(false);
    return { env_index: rows.indices, observation: rows.observations, reward: new Array<number>(n).fill(0), terminated: none, truncated: none, info: rows.infos };
  }
  const reward: number[] = new Array(n);
  for (let i = 0; i < n; i++) reward[i] = rows.rewards[i];
  return { env_index: rows.indices, observation: rows.observations, reward, terminated: rows.terminated, truncated: rows.truncated, info: rows.infos };
}
