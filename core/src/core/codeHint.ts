/**
 * Code that an error message suggests (a make call, a reset option, a value), kept as data so that
 * every caller reads it in its own language.
 *
 * A message holds the TypeScript form of each hint; the error's `data.hints` lists the hints with
 * exactly that text, and a caller in another language swaps the text for its own form of the same
 * call: the Python client (gem_ts/errors.py) and the CLI (`inLanguage(message, data, 'cli')`). The kinds:
 * - `make`: `make('<id>', {k: v})`; Python `gem_ts.make('<id>', k=v)`; CLI `--option k=v`
 * - `reset`: `reset({options: {k: v}})`; Python `env.reset(k=v)`
 * - `reset_envs`: `reset({indices: [i]})`; Python `envs.reset(indices=[i])`
 * - `register_dataset`: `registerDataset('<name>', rows)`; Python `gem_ts.register_dataset('<name>', datasets.load_dataset(…))`
 * - `value`: `null`, `true`, `false`; Python `None`, `True`, `False`
 */

/** A name written as it is, not as a literal (`i`, `rows`). */
export interface CodeName {
  code: string;
}
export type HintValue = string | number | boolean | null | CodeName | HintValue[];

export type CodeHint =
  | { kind: 'make'; id: string; options: Record<string, HintValue> }
  | { kind: 'reset'; options: Record<string, HintValue> }
  | { kind: 'reset_envs'; indices: HintValue }
  | { kind: 'register_dataset'; name: string; hub?: string; split?: string }
  | { kind: 'value'; value: null | boolean };

/** A hint as a message carries it: the data and the text it was rendered to. */
export type RenderedHint = CodeHint & { text: string };

export type HintLanguage = 'typescript' | 'cli';

function isName(v: HintValue): v is CodeName {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function tsValue(v: HintValue): string {
  if (Array.isArray(v)) return `[${v.map(tsValue).join(', ')}]`;
  if (isName(v)) return v.code;
  return typeof v === 'string' ? `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : String(v);
}

function tsObject(o: Record<string, HintValue>): string {
  return `{${Object.entries(o)
    .map(([k, v]) => `${k}: ${tsValue(v)}`)
    .join(', ')}}`;
}

function cliValue(v: HintValue): string {
  if (Array.isArray(v)) return JSON.stringify(v.map(cliValue));
  return isName(v) ? v.code : String(v);
}

/** The hint in TypeScript (what the message says) or as the CLI's flags (make options; the rest as in TypeScript). */
export function renderHint(h: CodeHint, lang: HintLanguage = 'typescript'): string {
  switch (h.kind) {
    case 'make':
      if (lang === 'cli') {
        return Object.entries(h.options)
          .map(([k, v]) => `--option ${k}=${cliValue(v)}`)
          .join(' ');
      }
      return `make('${h.id}', ${tsObject(h.options)})`;
    case 'reset':
      return `reset({options: ${tsObject(h.options)}})`;
    case 'reset_envs':
      return `reset({indices: ${tsValue(h.indices)}})`;
    case 'register_dataset':
      return lang === 'cli' ? `gem_ts.register_dataset('${h.name}', …) in Python` : `registerDataset('${h.name}', rows)`;
    case 'value':
      return String(h.value);
  }
}

/** Collects the hints of one message: `add` returns the text to put in it. */
export class Hints {
  readonly list: RenderedHint[] = [];

  add(h: CodeHint): string {
    const text = renderHint(h);
    this.list.push({ ...h, text });
    return text;
  }
}

/** The error data's hints, if it has any (from this process or from the wire). */
export function hintsOf(data: unknown): RenderedHint[] {
  const hints = (data as { hints?: unknown } | null | undefined)?.hints;
  return Array.isArray(hints) ? (hints.filter((h) => typeof h?.text === 'string' && typeof h?.kind === 'string') as RenderedHint[]) : [];
}

/** A message with its hints in `lang` (the text each hint was rendered to, swapped). */
export function inLanguage(message: string, data: unknown, lang: HintLanguage): string {
  let out = message;
  for (const h of hintsOf(data)) out = out.split(h.text).join(renderHint(h, lang));
  return out;
}
