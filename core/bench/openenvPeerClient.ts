// The `--client node` worker of core/bench/openenv_peer.py: many OpenEnv WebSocket sessions in one
// Node process, each playing exactly what the raw Python client (`_RawSession` there) plays, so the
// parent can drive either server with it and the measure is of the server, not of the client.
//
//   node --import tsx core/bench/openenvPeerClient.ts URL SESSIONS WARM_UNTIL STOP_AT FIRST_SEED [MAX_STEPS]
//
// Same messages, byte for byte: the reset and step JSON as Python's json.dumps writes them; session k
// resets with seed FIRST_SEED + k and draws its guesses (randint(1, 10)) and later reset seeds
// (randint(0, 1 << 30)) from its own Mersenne Twister seeded like Python's random.Random(seed), so
// with the same server replies the two clients send the same sequence. Same windows: WARM_UNTIL and
// STOP_AT are seconds on CLOCK_MONOTONIC (Python's time.perf_counter; Node's hrtime and
// performance.now use the same clock); a step is counted, and its round trip recorded (the first
// 20,000 per process), when it was sent at or after WARM_UNTIL; a session stops at its first reply
// on or after STOP_AT (MAX_STEPS > 0: after that many step replies instead, for the clients' parity
// check). Prints one JSON line the parent reads: steps, lat (ms), cpu_s (this process's CPU time
// inside the window) and sessions ([seed, reset replies, step replies, episodes ended, reward sum]
// for each session).
//
// The WebSocket is framed here (RFC 6455): the handshake's accept key checked, client frames masked
// with a fresh key each (from a crypto-random pool), pings answered, fragments joined, no extension
// offered. No dependency beyond node:net and node:crypto.

import { createHash, randomBytes, randomFillSync } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

const WS_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const LAT_CAP = 20000;

// ── Python's random.Random, as far as this client draws from it ──────────────────────────────────

/** MT19937 seeded as CPython seeds it from a non-negative int below 2**32 (init_by_array([seed])). */
class PyRandom {
  private readonly mt = new Uint32Array(624);
  private mti = 624;

  constructor(seed: number) {
    const mt = this.mt;
    mt[0] = 19650218;
    for (let i = 1; i < 624; i++) {
      const x = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = Math.imul(1812433253, x) + i;
    }
    // init_by_array with a one-word key: [seed] (CPython uses [0] for seed 0).
    const key = seed >>> 0;
    let i = 1;
    for (let k = 624; k > 0; k--) {
      const x = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (mt[i] ^ Math.imul(x, 1664525)) + key; // + j, and j stays 0 for a one-word key
      i++;
      if (i >= 624) {
        mt[0] = mt[623];
        i = 1;
      }
    }
    for (let k = 623; k > 0; k--) {
      const x = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (mt[i] ^ Math.imul(x, 1566083941)) - i;
      i++;
      if (i >= 624) {
        mt[0] = mt[623];
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  private next32(): number {
    const mt = this.mt;
    if (this.mti >= 624) {
      let kk = 0;
      let y: number;
      for (; kk < 624 - 397; kk++) {
        y = (mt[kk] & 0x80000000) | (mt[kk + 1] & 0x7fffffff);
        mt[kk] = mt[kk + 397] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      for (; kk < 623; kk++) {
        y = (mt[kk] & 0x80000000) | (mt[kk + 1] & 0x7fffffff);
        mt[kk] = mt[kk + (397 - 624)] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      y = (mt[623] & 0x80000000) | (mt[0] & 0x7fffffff);
      mt[623] = mt[396] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      this.mti = 0;
    }
    let y = mt[this.mti++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** random.Random.randint(a, b) for b - a + 1 < 2**32: _randbelow_with_getrandbits. */
  randint(a: number, b: number): number {
    const n = b - a + 1;
    const k = 32 - Math.clz32(n); // n.bit_length()
    let r = this.next32() >>> (32 - k);
    while (r >= n) r = this.next32() >>> (32 - k);
    return a + r;
  }
}

// ── messages (json.dumps's separators: ", " and ": ") ────────────────────────────────────────────

const resetText = (seed: number): Buffer => Buffer.from(`{"type": "reset", "data": {"seed": ${seed}}}`);
const STEP_BYTES: Buffer[] = [];
for (let g = 1; g <= 10; g++) STEP_BYTES.push(Buffer.from(`{"type": "step", "data": {"message": "\\\\boxed{${g}}"}}`));
const CLOSE_TEXT = Buffer.from('{"type": "close"}');
const CLOSE_CODE = Buffer.from([0x03, 0xe8]); // 1000

// ── frames ───────────────────────────────────────────────────────────────────────────────────────

const maskPool = Buffer.alloc(4096);
let maskAt = maskPool.length;

function frame(opcode: number, payload: Buffer): Buffer {
  const n = payload.length;
  const head = n < 126 ? 2 : n < 65536 ? 4 : 10;
  const out = Buffer.allocUnsafe(head + 4 + n);
  out[0] = 0x80 | opcode;
  if (n < 126) out[1] = 0x80 | n;
  else if (n < 65536) {
    out[1] = 0xfe;
    out.writeUInt16BE(n, 2);
  } else {
    out[1] = 0xff;
    out.writeUInt32BE(Math.floor(n / 2 ** 32), 2);
    out.writeUInt32BE(n >>> 0, 6);
  }
  if (maskAt + 4 > maskPool.length) {
    randomFillSync(maskPool);
    maskAt = 0;
  }
  const m0 = maskPool[maskAt];
  const m1 = maskPool[maskAt + 1];
  const m2 = maskPool[maskAt + 2];
  const m3 = maskPool[maskAt + 3];
  maskAt += 4;
  out[head] = m0;
  out[head + 1] = m1;
  out[head + 2] = m2;
  out[head + 3] = m3;
  const at = head + 4;
  for (let i = 0; i < n; i++) {
    const m = (i & 3) === 0 ? m0 : (i & 3) === 1 ? m1 : (i & 3) === 2 ? m2 : m3;
    out[at + i] = payload[i] ^ m;
  }
  return out;
}

// ── the run ──────────────────────────────────────────────────────────────────────────────────────

interface Shared {
  steps: number;
  lat: number[];
  warmMs: number; // WARM_UNTIL on performance.now()'s scale
  stopMs: number;
  maxSteps: number;
}

class Session {
  private readonly rng: PyRandom;
  private readonly key = randomBytes(16).toString('base64');
  private buf: Buffer | null = null;
  private frags: Buffer[] = [];
  private upgraded = false;
  private asked = '';
  private t0 = 0;
  private closing = false;
  private finished = false;
  resets = 0;
  stepReplies = 0;
  episodes = 0;
  reward = 0;

  constructor(
    private readonly socket: Socket,
    private readonly hostHeader: string,
    private readonly path: string,
    readonly seed: number,
    private readonly shared: Shared,
    private readonly settle: (err?: Error) => void,
  ) {
    this.rng = new PyRandom(seed);
    socket.setNoDelay(true); // asyncio sets TCP_NODELAY on its TCP connections too
    socket.on('connect', () => this.onConnect());
    socket.on('error', (e: Error) => this.finish(e));
    socket.on('close', () => this.finish(this.closing ? undefined : new Error('the server closed the session early')));
  }

  private finish(err?: Error): void {
    if (this.finished) return;
    this.finished = true;
    if (err) this.socket.destroy();
    this.settle(err);
  }

  private fail(message: string): void {
    this.finish(new Error(message));
  }

  private ask(kind: string, payload: Buffer): void {
    this.asked = kind;
    this.t0 = performance.now();
    this.socket.write(frame(0x1, payload));
  }

  private onConnect(): void {
    this.socket.write(
      `GET ${this.path} HTTP/1.1\r\nHost: ${this.hostHeader}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${this.key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
  }

  /** `chunk` lies in the read buffer every socket shares: what outlives this call is copied. */
  onData(chunk: Buffer): void {
    let buf = this.buf === null ? chunk : Buffer.concat([this.buf, chunk]);
    this.buf = null;
    if (!this.upgraded) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) {
        this.buf = buf;
        return;
      }
      const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
      buf = buf.subarray(end + 4);
      let accept = '';
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(':');
        if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === 'sec-websocket-accept') accept = line.slice(colon + 1).trim();
      }
      const want = createHash('sha1').update(this.key + WS_GUID).digest('base64');
      if (lines[0].split(' ')[1] !== '101' || accept !== want) return this.fail(`WebSocket handshake refused: ${lines[0]}`);
      this.upgraded = true;
      this.ask('reset', resetText(this.seed));
    }
    let at = 0;
    while (buf.length - at >= 2) {
      const b0 = buf[at];
      let n = buf[at + 1];
      if (n & 0x80) return this.fail('the server sent a masked frame');
      let head = 2;
      if (n === 126) {
        if (buf.length - at < 4) break;
        n = buf.readUInt16BE(at + 2);
        head = 4;
      } else if (n === 127) {
        if (buf.length - at < 10) break;
        n = buf.readUInt32BE(at + 2) * 2 ** 32 + buf.readUInt32BE(at + 6);
        head = 10;
      }
      if (buf.length - at < head + n) break;
      const payload = buf.subarray(at + head, at + head + n);
      at += head + n;
      const opcode = b0 & 0x0f;
      if (opcode === 0x9) {
        this.socket.write(frame(0xa, payload));
      } else if (opcode === 0x8) {
        if (!this.closing) {
          this.closing = true;
          this.socket.write(frame(0x8, payload.subarray(0, 2)));
        }
        this.socket.end();
        return;
      } else if (opcode !== 0xa) {
        if (b0 & 0x80 && this.frags.length === 0) {
          this.onMessage(payload);
        } else {
          this.frags.push(Buffer.from(payload));
          if (b0 & 0x80) {
            const message = Buffer.concat(this.frags);
            this.frags = [];
            this.onMessage(message);
          }
        }
        if (this.finished) return;
      }
    }
    if (at < buf.length) this.buf = Buffer.from(buf.subarray(at));
  }

  // the session's loop: _RawSession.on_message in openenv_peer.py

  private onMessage(message: Buffer): void {
    const t1 = performance.now();
    if (this.closing) return; // the close has been sent: a late reply is not played
    let reply: { type?: string; data?: { done?: unknown; reward?: unknown } };
    try {
      reply = JSON.parse(message.toString('utf8'));
    } catch {
      return this.fail(`a reply that is not JSON: ${message.toString('utf8').slice(0, 200)}`);
    }
    if (reply.type === 'error') return this.fail(`the server answered an error: ${JSON.stringify(reply.data)}`);
    if (reply.type !== 'observation' || reply.data === undefined) return this.fail(`an unexpected reply: ${message.toString('utf8').slice(0, 200)}`);
    const shared = this.shared;
    if (this.asked === 'step') {
      this.stepReplies++;
      if (this.t0 >= shared.warmMs) {
        shared.steps++;
        if (shared.lat.length < LAT_CAP) shared.lat.push(t1 - this.t0);
      }
      if (typeof reply.data.reward === 'number') this.reward += reply.data.reward;
      if (reply.data.done) {
        this.episodes++;
        return this.ask('reset', resetText(this.rng.randint(0, 1 << 30)));
      }
    } else {
      this.resets++;
    }
    if (shared.maxSteps > 0 ? this.stepReplies >= shared.maxSteps : t1 >= shared.stopMs) {
      this.closing = true;
      this.socket.write(frame(0x1, CLOSE_TEXT));
      this.socket.write(frame(0x8, CLOSE_CODE));
      return;
    }
    this.ask('step', STEP_BYTES[this.rng.randint(1, 10) - 1]);
  }
}

function main(): void {
  const [url, sessionsArg, warmArg, stopArg, seedArg, maxStepsArg] = process.argv.slice(2);
  if (!url || !sessionsArg || !warmArg || !stopArg || !seedArg) {
    console.error('usage: openenvPeerClient.ts URL SESSIONS WARM_UNTIL STOP_AT FIRST_SEED [MAX_STEPS]');
    process.exit(2);
  }
  const u = new URL(url);
  const sessions = Number(sessionsArg);
  const firstSeed = Number(seedArg);
  // CLOCK_MONOTONIC seconds → performance.now() milliseconds (both count from the same clock).
  const shiftMs = Number(process.hrtime.bigint()) / 1e6 - performance.now();
  const warmMs = Number(warmArg) * 1e3 - shiftMs;
  const stopMs = Number(stopArg) * 1e3 - shiftMs;
  const shared: Shared = { steps: 0, lat: [], warmMs, stopMs, maxSteps: Number(maxStepsArg ?? 0) };

  const cpu: { from?: number; to?: number } = {};
  const cpuNow = (): number => {
    const c = process.cpuUsage();
    return (c.user + c.system) / 1e6;
  };
  const timers = [
    setTimeout(() => (cpu.from = cpuNow()), Math.max(0, warmMs - performance.now())),
    setTimeout(() => (cpu.to = cpuNow()), Math.max(0, stopMs - performance.now())),
  ];
  const all: Session[] = [];
  let left = sessions;
  let failed: Error | undefined;
  const deadline = setTimeout(
    () => {
      console.error(`openenvPeerClient: ${left} of ${sessions} sessions still open 30 s after the window`);
      process.exit(1);
    },
    Math.max(30000, stopMs - performance.now() + 30000),
  );

  const settle = (err?: Error): void => {
    if (err && !failed) failed = err;
    if (--left > 0) return;
    clearTimeout(deadline);
    if (failed) {
      console.error(`openenvPeerClient: ${failed.message}`);
      process.exitCode = 1;
      for (const t of timers) clearTimeout(t);
      return;
    }
    // Like the Python worker: a window the timers did not reach ends (or starts) now.
    const now = cpuNow();
    cpu.from ??= now;
    cpu.to ??= now;
    for (const t of timers) clearTimeout(t);
    process.stdout.write(
      JSON.stringify({
        steps: shared.steps,
        lat: shared.lat,
        cpu_s: cpu.to - cpu.from,
        sessions: all.map((s) => [s.seed, s.resets, s.stepReplies, s.episodes, s.reward]),
      }) + '\n',
    );
  };
  const hostHeader = u.host;
  const path = u.pathname + u.search;
  const port = Number(u.port || 80);
  // One read buffer for all sockets (`onread`: no Buffer per read and no stream machinery on the way
  // in; each read is handled before the next is made).
  const readBuffer = Buffer.allocUnsafe(1 << 16);
  for (let k = 0; k < sessions; k++) {
    let session: Session | undefined = undefined;
    const socket = connect({
      host: u.hostname,
      port,
      onread: {
        buffer: readBuffer,
        callback: (nread: number, buf: Uint8Array): boolean => {
          session?.onData((buf as Buffer).subarray(0, nread));
          return true;
        },
      },
    });
    session = new Session(socket, hostHeader, path, firstSeed + k, shared, settle);
    all.push(session);
  }
}

main();
