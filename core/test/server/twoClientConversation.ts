/**
 * The conversation every socket transport must carry the same way: one client makes, resets and
 * steps with an Arrow body, a second client is a second session (the first one's handle is not its
 * own), and a message over the announced limit (64 KiB here) gets its error reply and leaves the
 * connection working.
 */
import { expect } from 'vitest';
import { decodeRows, encodeStepRequest } from '../../src/server/protocol/arrowCodec.ts';
import type { WireClient } from './wireClient.ts';

const ID = 'game:GuessTheNumber-v0-easy';

export async function twoClientConversation(alice: WireClient, bob: () => WireClient): Promise<void> {
  expect((await alice.ok({ op: 'hello' })).header.protocol).toBe(1);
  const h = (await alice.ok({ op: 'make', env_ids: ID, num_envs: 3 })).header.handle;
  const reset = await alice.ok({ op: 'reset', handle: h, seed: 2 });
  expect(decodeRows(reset.body!).indices).toHaveLength(3);
  const body = encodeStepRequest({ indices: [2, 0], actions: ['\\boxed{1}', 'no box'] });
  const stepped = decodeRows((await alice.ok({ op: 'step', handle: h }, body)).body!);
  expect(Array.from(stepped.indices)).toEqual([2, 0]);
  expect(stepped.terminated[1]).toBe(true);

  const second = bob();
  expect((await second.request({ op: 'reset', handle: h })).header.error.code).toBe('UNKNOWN_HANDLE');
  expect((await second.ok({ op: 'stats' })).header.server).toMatchObject({ clients: 2, handles: 1 });

  const huge = await alice.request({ op: 'ping' }, Buffer.alloc(70 * 1024));
  expect(huge.header.error).toMatchObject({ code: 'MESSAGE_TOO_LARGE', data: { limit: 65536 } });
  expect((await alice.ok({ op: 'ping' })).header.ok).toBe(true);
}
