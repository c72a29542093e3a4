/**
 * The env catalog (docs/environments.md) built from the registry: per family a table of ids with
 * their descriptions, options after the preset defaults, turn limits and data sources, then the
 * wrapper names. The output depends only on the code and the files in core/data, never on the
 * machine (no paths, no clock, no check of optional packages or datasets), so a test can compare it
 * with the committed page.
 */
import { readFileSync } from 'node:fs';
import { InvalidOptionsError } from '../core/errors.ts';
import { TASK_DATASETS, sampleDatasetPath, type SampleName, type TaskDatasetEntry } from '../data/taskCatalog.ts';
import { reasoningGymTasks } from '../envs/reasoning/reasoningGymEnv.ts';
import { parseEnvId } from '../registry/envId.ts';
import { schemaKeys } from '../registry/options.ts';
import type { EnvRegistry } from '../registry/registry.ts';
import { builtinCatalog, type Catalog } from '../envs/builtinCatalog.ts';
import {
  FAMILY_ORDER,
  FAMILY_TEXT,
  GENERATED_NOTICE,
  RANDOM_VARIANT_NOTE,
  opening,
  wrappersIntro,
  type CatalogFacts,
} from './catalogText.ts';

export interface OptionSummary {
  /** Options after the registered defaults and the schema's defaults. */
  options: Record<string, unknown>;
  /** Options the schema accepts that have no default (dataset, split, …). */
  unset: string[];
  /** Why the defaults alone do not make the env (an option the caller must give), if they do not. */
  needs?: string;
}

/** An id's options as `make(id)` would see them; for ids that need an option, each field's own default. */
export function summariseOptions(registry: EnvRegistry, id: string): OptionSummary {
  const reg = registry.get(id);
  const keys = schemaKeys(reg.schema);
  try {
    const { options } = registry.resolveOptions(id).spec;
    return { options, unset: keys.filter((k) => !(k in options)) };
  } catch (e) {
    if (!(e instanceof InvalidOptionsError)) throw e;
    const shape = (reg.schema as unknown as { shape?: Record<string, { safeParse(v: unknown): { success: boolean; data?: unknown } }> }).shape ?? {};
    const defaults: Record<string, unknown> = reg.defaults ?? {};
    const options: Record<string, unknown> = {};
    for (const k of keys) {
      const parsed = shape[k].safeParse(defaults[k]);
      if (parsed.success && parsed.data !== undefined) options[k] = parsed.data;
    }
    const problems = ((e.data as { problems?: string[] } | undefined)?.problems ?? [e.message]).filter((p) => !p.startsWith('known options'));
    return { options, unset: keys.filter((k) => !(k in options)), needs: problems.join('; ') };
  }
}

export function formatOption(key: string, value: unknown): string {
  return `${key}=${JSON.stringify(value)}`;
}

// ---------------------------------------------------------------------------------------------
// Markdown helpers

/** Text for a table cell: no line breaks, pipes and HTML-looking brackets escaped. */
function text(s: string): string {
  return s.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A code span for a table cell (pipes escaped; a longer fence when the content holds backticks). */
function code(s: string): string {
  const fence = s.includes('`') ? '`` ' : '`';
  return `${fence}${s.replace(/\|/g, '\\|')}${fence.split('').reverse().join('')}`;
}

function table(headers: string[], rows: string[][]): string {
  return [`| ${headers.join(' | ')} |`, `|${headers.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

// ---------------------------------------------------------------------------------------------
// Families

interface Family {
  name: string;
  heading: string;
  ids: string[];
}

/** Ids by family in page order; ids sorted by code point so that the page does not follow import order. */
function families(registry: EnvRegistry): Family[] {
  const byFamily = new Map<string, string[]>();
  for (const id of registry.ids()) {
    const family = parseEnvId(id).family;
    byFamily.set(family, [...(byFamily.get(family) ?? []), id]);
  }
  const known = FAMILY_ORDER.filter((f) => byFamily.has(f));
  const others = [...byFamily.keys()].filter((f) => !FAMILY_TEXT[f]).sort();
  return [...known, ...others].map((name) => ({
    name,
    heading: `${name}: ${FAMILY_TEXT[name]?.title ?? 'other environments'}`,
    ids: byFamily.get(name)!.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
  }));
}

const TASK_BY_ID = new Map(TASK_DATASETS.map((e) => [e.id, e]));
const sampleColumns = new Map<SampleName, string[]>();

/** The columns of a shipped sample set (its first row). */
function columnsOf(sample: SampleName): string[] {
  let cols = sampleColumns.get(sample);
  if (!cols) {
    const first = readFileSync(sampleDatasetPath(sample), 'utf8').split('\n', 1)[0];
    cols = Object.keys(JSON.parse(first) as Record<string, unknown>);
    sampleColumns.set(sample, cols);
  }
  return cols;
}

/**
 * Where an id's data comes from: GEM's hub dataset and split (the name to register it under), and the
 * stand-in sample, with the key options to pass when the sample's columns differ from the defaults.
 */
function dataCell(entry: TaskDatasetEntry, options: Record<string, unknown>): string {
  const hub = entry.location.split ? `${entry.location.hub}:${entry.location.split}` : entry.location.hub;
  const cols = columnsOf(entry.sample);
  const keyOptions = Object.entries(options).filter(([k, v]) => k.endsWith('_key') && typeof v === 'string');
  const wrong = keyOptions.filter(([, v]) => !cols.includes(v as string));
  const spare = cols.filter((c) => !keyOptions.some(([, v]) => v === c));
  let sample = `sample ${code(`${entry.sample}.jsonl`)}`;
  if (wrong.length === 1 && spare.length >= 1) sample += ` with ${code(formatOption(wrong[0][0], spare[0]))}`;
  else if (wrong.length) sample += ` (columns ${cols.map(code).join(', ')})`;
  return `${code(hub)}<br>${sample}`;
}

function optionsCell(summary: OptionSummary, skip: ReadonlySet<string>): string {
  const shown = Object.entries(summary.options)
    .filter(([k]) => !skip.has(k))
    .map(([k, v]) => code(formatOption(k, v)));
  const parts = [shown.join(' ') || '—'];
  if (summary.unset.length) parts.push(`also ${summary.unset.map(code).join(', ')}`);
  if (summary.needs) parts.push(`**needs:** ${text(summary.needs)}`);
  return parts.join('<br>');
}

function familySection(registry: EnvRegistry, family: Family, facts: CatalogFacts): string {
  const summaries = new Map(family.ids.map((id) => [id, summariseOptions(registry, id)]));
  const hasTurns = family.ids.some((id) => typeof summaries.get(id)!.options.max_turns === 'number');
  const hasData = family.ids.some((id) => TASK_BY_ID.has(id));
  const skip = new Set(hasTurns ? ['max_turns'] : []);
  const headers = ['Id', 'Description', ...(hasTurns ? ['Turn limit'] : []), ...(hasData ? ['Data'] : []), 'Options'];
  let randomNote = false;
  const rows = family.ids.map((id) => {
    const summary = summaries.get(id)!;
    const row = [code(id), text(registry.get(id).description)];
    if (hasTurns) {
      const turns = summary.options.max_turns;
      const random = summary.options.random === true;
      randomNote ||= random && typeof turns === 'number';
      row.push(typeof turns === 'number' ? `${turns}${random ? '\\*' : ''}` : '—');
    }
    if (hasData) {
      const entry = TASK_BY_ID.get(id);
      row.push(entry ? dataCell(entry, summary.options) : '—');
    }
    row.push(optionsCell(summary, skip));
    return row;
  });
  const intro = FAMILY_TEXT[family.name]?.intro(facts);
  return [
    `## ${family.heading}`,
    ...(intro ? [intro] : []),
    table(headers, rows),
    ...(randomNote ? [RANDOM_VARIANT_NOTE] : []),
  ].join('\n\n');
}

function wrapperSection({ wrappers }: Catalog): string {
  const rows = wrappers.names().map((name) => {
    const def = wrappers.get(name);
    const keys = def.schema ? schemaKeys(def.schema) : [];
    return [code(name), def.kind, text(def.description), keys.length ? keys.map(code).join(', ') : '—'];
  });
  return [wrappersIntro(), table(['Name', 'Kind', 'What it does', 'Options it reads'], rows)].join('\n\n');
}

function facts(all: Family[]): CatalogFacts {
  const rg = reasoningGymTasks();
  return {
    idCount: all.reduce((n, f) => n + f.ids.length, 0),
    familyCount: all.length,
    reasoningGymVersion: rg.version,
    reasoningGymTaskCount: rg.tasks.length,
    sampleNames: [...new Set(TASK_DATASETS.map((e) => e.sample))].sort(),
  };
}

/** docs/environments.md, ending with a newline. */
export function renderCatalog(catalog: Catalog = builtinCatalog()): string {
  const all = families(catalog.envs);
  const f = facts(all);
  const contents = table(
    ['Family', 'Ids'],
    all.map((fam) => [`[${fam.heading}](#${anchor(fam.heading)})`, String(fam.ids.length)]),
  );
  const sections = [
    GENERATED_NOTICE,
    opening(f),
    `## Families\n\n${contents}\n\nand the [wrappers](#wrappers).`,
    ...all.map((fam) => familySection(catalog.envs, fam, f)),
    wrapperSection(catalog),
  ];
  return `${sections.join('\n\n')}\n`;
}
