/** The Python of the GEM peer venv (core/bench/.venv-gem, gem-llm 0.1.0), built on first use; GEM_PEER_PYTHON overrides it. */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const GEM_VENV_PYTHON = fileURLToPath(new URL('./.venv-gem/bin/python', import.meta.url));

export async function gemPeerPython(): Promise<string> {
  if (process.env.GEM_PEER_PYTHON) return process.env.GEM_PEER_PYTHON;
  if (existsSync(GEM_VENV_PYTHON)) return GEM_VENV_PYTHON;
  const lib = (await import(fileURLToPath(new URL('../../scripts/lib.mjs', import.meta.url)))) as { ensureGemPeerVenv: () => string };
  return lib.ensureGemPeerVenv();
}
