/**
 * A strict msgpack reader for tests: true when `bytes` is exactly one well-formed msgpack value, as a
 * strict client library (Python's msgpack with raw=False) reads it — no reserved byte 0xC1, strings in
 * valid UTF-8, nothing left over. msgpackr itself is lenient and reads 0xC1 as a marker object.
 */
const utf8 = new TextDecoder('utf-8', { fatal: true });

export function isStrictMsgpack(bytes: Uint8Array): boolean {
  let p = 0;
  const need = (n: number) => {
    if (p + n > bytes.length) throw new Error('truncated');
  };
  const uint = (n: number) => {
    need(n);
    let v = 0;
    for (let i = 0; i < n; i++) v = v * 256 + bytes[p++];
    return v;
  };
  const str = (n: number) => {
    need(n);
    utf8.decode(bytes.subarray(p, p + n));
    p += n;
  };
  const skip = (n: number) => {
    need(n);
    p += n;
  };
  const value = (depth: number): void => {
    if (depth > 512) throw new Error('too deep');
    const t = uint(1);
    if (t <= 0x7f || t >= 0xe0) return;
    if (t >= 0x80 && t <= 0x8f) return items((t & 0x0f) * 2, depth);
    if (t >= 0x90 && t <= 0x9f) return items(t & 0x0f, depth);
    if (t >= 0xa0 && t <= 0xbf) return str(t & 0x1f);
    switch (t) {
      case 0xc0: case 0xc2: case 0xc3: return;
      case 0xc4: return skip(uint(1));
      case 0xc5: return skip(uint(2));
      case 0xc6: return skip(uint(4));
      case 0xc7: return skip(uint(1) + 1);
      case 0xc8: return skip(uint(2) + 1);
      case 0xc9: return skip(uint(4) + 1);
      case 0xca: return skip(4);
      case 0xcb: return skip(8);
      case 0xcc: case 0xd0: return skip(1);
      case 0xcd: case 0xd1: return skip(2);
      case 0xce: case 0xd2: return skip(4);
      case 0xcf: case 0xd3: return skip(8);
      case 0xd4: return skip(2);
      case 0xd5: return skip(3);
      case 0xd6: return skip(5);
      case 0xd7: return skip(9);
      case 0xd8: return skip(17);
      case 0xd9: return str(uint(1));
      case 0xda: return str(uint(2));
      case 0xdb: return str(uint(4));
      case 0xdc: return items(uint(2), depth);
      case 0xdd: return items(uint(4), depth);
      case 0xde: return items(uint(2) * 2, depth);
      case 0xdf: return items(uint(4) * 2, depth);
      default: throw new Error(`reserved byte 0x${t.toString(16)}`); // 0xc1
    }
  };
  const items = (n: number, depth: number) => {
    for (let i = 0; i < n; i++) value(depth + 1);
  };
  try {
    value(0);
    return p === bytes.length;
  } catch {
    return false;
  }
}
