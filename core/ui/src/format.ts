/** Numbers as the pages print them; no DOM here, so tests in Node can format what they expect. */
export function fmt(v: number, digits = 3): string {
  if (!Number.isFinite(v)) return '–';
  return Number.isInteger(v) ? String(v) : v.toFixed(digits).replace(/0+$/, '').replace(/\.$/, '');
}

export function pct(v: number): string {
  return `${(v * 100).toFixed(1)}%`;
}
