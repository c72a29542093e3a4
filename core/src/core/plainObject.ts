/**
 * Shape checks for decoded messages (JSON, msgpack) that a hot path reads by hand instead of through
 * its zod schema.
 */

/** A plain object: `{…}` from JSON or a msgpack map, not an array, null or a decoder's marker object. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Whether every own key of `o` is one of `allowed`. */
export function onlyKeys(o: object, allowed: ReadonlySet<string>): boolean {
  for (const k in o) if (!allowed.has(k)) return false;
  return true;
}
