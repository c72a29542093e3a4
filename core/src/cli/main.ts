/**
 * The `gem-ts` command. Each subcommand is its own file in this folder exporting
 * `run(args: string[]): Promise<number>` (the exit code); they load lazily so `gem-ts list` never pays
 * for the server's native modules.
 */
const COMMANDS: Record<string, { file: string; help: string }> = {
  list: { file: './list.ts', help: 'list [filter]            registered env ids' },
  play: { file: './play.ts', help: 'play <id> [--seed N]     play an env in the terminal' },
  serve: { file: './serve.ts', help: 'serve [--endpoint URL]   run the ZeroMQ server' },
  eval: { file: './eval.ts', help: 'eval --base-url URL --model NAME --env ID   evaluate a model behind an OpenAI-compatible endpoint' },
  doctor: { file: './doctor.ts', help: 'doctor                   check the sandbox, Python and optional packages' },
  ui: { file: './ui.ts', help: 'ui [--port N] [paths...] browse eval transcripts and benchmark results, compare runs, play envs' },
};

function usage(): string {
  return ['usage: gem-ts <command> [options]', '', ...Object.values(COMMANDS).map((c) => `  ${c.help}`)].join('\n');
}

const [cmd, ...rest] = process.argv.slice(2);
if (!cmd || cmd === '--help' || cmd === '-h' || cmd === 'help') {
  console.log(usage());
  process.exit(0);
}
const entry = COMMANDS[cmd];
if (!entry) {
  console.error(`gem-ts: unknown command '${cmd}'\n\n${usage()}`);
  process.exit(2);
}
const mod = (await import(entry.file)) as { run: (args: string[]) => Promise<number> };
process.exitCode = await mod.run(rest);
