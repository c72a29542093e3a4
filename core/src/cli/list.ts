/**
 * `gem-ts list [filter] [--verbose]`: the registered env ids, one per line; `filter` keeps ids that
 * contain it (case-insensitive). `--verbose` adds each id's description and its options after the
 * variant's defaults are applied (and what it needs, when the defaults alone do not make the env).
 *
 * `gem-ts list --markdown`: the whole catalog as Markdown, the source of docs/environments.md.
 */
import { builtinCatalog, type Catalog } from '../envs/builtinCatalog.ts';
import { formatOption, renderCatalog, summariseOptions } from './catalog.ts';

const USAGE = 'usage: gem-ts list [filter] [--verbose]\n       gem-ts list --markdown   (the catalog; npx gem-ts list --markdown > docs/environments.md)';

function describe(catalog: Catalog, id: string): string {
  const { options, needs } = summariseOptions(catalog.envs, id);
  const shown = Object.entries(options)
    .map(([k, v]) => formatOption(k, v))
    .join(' ');
  const lines = [id, `    ${catalog.envs.get(id).description}`];
  if (shown) lines.push(`    options: ${shown}`);
  if (needs) lines.push(`    needs: ${needs}`);
  return lines.join('\n');
}

export async function run(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  const verbose = args.includes('--verbose') || args.includes('-v');
  const markdown = args.includes('--markdown');
  const rest = args.filter((a) => a !== '--verbose' && a !== '-v' && a !== '--markdown');
  const unknown = rest.find((a) => a.startsWith('-'));
  const problem = unknown
    ? `unknown flag ${unknown}`
    : markdown && (verbose || rest.length)
      ? '--markdown prints the whole catalog and takes no filter or --verbose'
      : rest.length > 1
        ? `unexpected argument ${rest[1]}`
        : undefined;
  if (problem) {
    console.error(`gem-ts list: ${problem}\n${USAGE}`);
    return 2;
  }
  const catalog = builtinCatalog();
  if (markdown) {
    process.stdout.write(renderCatalog(catalog));
    return 0;
  }
  for (const id of catalog.envs.list(rest[0])) console.log(verbose ? describe(catalog, id) : id);
  return 0;
}
