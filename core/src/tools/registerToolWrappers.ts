/**
 * GEM's tool wrapper names, built on ToolEnvWrapper:
 *   python_tool                                 Python, tool_reward 0.05, tool_success_reward 0.25, 5 uses
 *   python_tool_no_int_reward                   Python, no intermediate rewards, 5 uses
 *   python_tool_no_int_reward_last_line_error   the same, showing only the last line of stderr
 *   search_tool                                 search (top 3), tool_reward 0.3, 5 uses
 *   search_tool_no_int_reward                   search, no intermediate rewards, 5 uses
 * plus mcp_tool (ours): the tools of MCP servers given by `mcp_config`, no intermediate rewards.
 * The presets can be overridden through the stack's options (max_tool_uses, tool_reward, …).
 */
import { z } from 'zod';
import { GemError } from '../core/errors.ts';
import type { Env } from '../core/env.ts';
import type { WrapperCatalog } from '../registry/wrapperCatalog.ts';
import { leaseMcpTool } from './mcp/mcpTool.ts';
import { PythonCodeTool } from './python/pythonCodeTool.ts';
import { getSharedSandbox } from '../sandbox/sandbox.ts';
import { DEMO_SEARCH_CORPUS, getLocalSearch } from './search/localSearch.ts';
import { RetrieverClient } from './search/retrieverClient.ts';
import type { SearchBackend } from './search/searchBackend.ts';
import { SearchTool } from './search/searchTool.ts';
import type { TextTool } from './tool.ts';
import { ToolEnvWrapper } from './toolEnvWrapper.ts';

const RewardOptions = {
  /** Tool calls per episode; null for no limit. */
  max_tool_uses: z.number().int().nonnegative().nullable().optional(),
  tool_reward: z.number().finite().optional(),
  tool_success_reward: z.number().finite().optional(),
  tool_execute_error_reward: z.number().finite().optional(),
};
type RewardOptions = { [K in keyof typeof RewardOptions]?: z.infer<(typeof RewardOptions)[K]> };

interface Preset {
  toolReward: number;
  toolSuccessReward: number;
  maxToolUses: number;
}

function wrap(env: Env, name: string, tool: TextTool<any>, preset: Preset, o: RewardOptions): Env {
  return new ToolEnvWrapper(env, [tool], {
    wrapperName: name,
    toolReward: o.tool_reward ?? preset.toolReward,
    toolSuccessReward: o.tool_success_reward ?? preset.toolSuccessReward,
    toolExecuteErrorReward: o.tool_execute_error_reward ?? 0,
    maxToolUses: o.max_tool_uses === undefined ? preset.maxToolUses : o.max_tool_uses,
  });
}

const PythonOptions = z
  .object({
    ...RewardOptions,
    /** Seconds per run (GEM's 5). */
    python_timeout: z.number().positive().optional(),
    python_memory_mb: z.number().int().positive().optional(),
  })
  .strict();

const pythonPresets: Array<[string, string, Preset, boolean]> = [
  ['python_tool', 'Python code tool, with intermediate rewards.', { toolReward: 0.05, toolSuccessReward: 0.25, maxToolUses: 5 }, false],
  ['python_tool_no_int_reward', 'Python code tool, no intermediate rewards.', { toolReward: 0, toolSuccessReward: 0, maxToolUses: 5 }, false],
  [
    'python_tool_no_int_reward_last_line_error',
    'Python code tool, no intermediate rewards, only the last line of errors shown.',
    { toolReward: 0, toolSuccessReward: 0, maxToolUses: 5 },
    true,
  ],
];

const SearchOptions = z
  .object({
    ...RewardOptions,
    /** A retrieval server (GEM's SEARCH_URL), e.g. http://localhost:8000/retrieve. */
    search_url: z.string().optional(),
    search_protocol: z.enum(['msgpack', 'json']).optional(),
    /** A JSONL corpus for a local BM25 index, used when no URL is given. */
    search_corpus: z.string().optional(),
    search_topk: z.number().int().positive().optional(),
    /** Seconds per request to the server (GEM's 5). */
    search_timeout: z.number().positive().optional(),
  })
  .strict();
type SearchOptions = z.infer<typeof SearchOptions>;

/** A retrieval server when a URL is given (option or SEARCH_URL), else BM25 over a corpus. */
export function resolveSearchBackend(o: SearchOptions): SearchBackend {
  const url = o.search_url ?? process.env.SEARCH_URL;
  if (url) return new RetrieverClient(url, { protocol: o.search_protocol, timeout: o.search_timeout ?? 5 });
  const corpus = o.search_corpus ?? process.env.GEM_TS_SEARCH_CORPUS;
  if (corpus) return getLocalSearch(corpus);
  throw new GemError(
    'INVALID_OPTIONS',
    'search_tool needs a retriever: set search_url (or SEARCH_URL) to a retrieval server, or search_corpus ' +
      `(or GEM_TS_SEARCH_CORPUS) to a JSONL corpus for a local BM25 index (a small demo corpus: ${DEMO_SEARCH_CORPUS}).`,
  );
}

const searchPresets: Array<[string, string, Preset]> = [
  ['search_tool', 'Search tool, with a reward for each search.', { toolReward: 0.3, toolSuccessReward: 0, maxToolUses: 5 }],
  ['search_tool_no_int_reward', 'Search tool, no intermediate rewards.', { toolReward: 0, toolSuccessReward: 0, maxToolUses: 5 }],
];

const McpOptions = z
  .object({
    ...RewardOptions,
    /** A URL, one server's settings, or {mcpServers: {…}} (see mcp/mcpConfig.ts). */
    mcp_config: z.unknown().refine((v) => v !== undefined, { message: 'mcp_config is required' }),
    /** Seconds per tool call (GEM's 30). */
    mcp_timeout: z.number().positive().optional(),
  })
  .strict();

/** Defines the tool wrappers in `catalog` (builtinCatalog calls it; nothing defines them on import). */
export function registerToolWrappers(catalog: WrapperCatalog): void {
  for (const [name, description, preset, keepErrorLastLine] of pythonPresets) {
    catalog.define({
      name,
      kind: 'tool',
      description,
      schema: PythonOptions,
      build: (env, o) => {
        // Fail when the stack is built, not at the first tool call, if code cannot run safely here.
        getSharedSandbox();
        const tool = new PythonCodeTool({ timeout: o.python_timeout ?? 5, memoryMb: o.python_memory_mb, keepErrorLastLine });
        return wrap(env, name, tool, preset, o);
      },
    });
  }

  for (const [name, description, preset] of searchPresets) {
    catalog.define({
      name,
      kind: 'tool',
      description,
      schema: SearchOptions,
      build: (env, o) => wrap(env, name, new SearchTool(resolveSearchBackend(o), { topk: o.search_topk ?? 3 }), preset, o),
    });
  }

  catalog.define({
    name: 'mcp_tool',
    kind: 'tool',
    description: 'The tools of MCP servers (mcp_config), no intermediate rewards.',
    schema: McpOptions,
    build: (env, o) =>
      wrap(env, 'mcp_tool', leaseMcpTool(o.mcp_config, { executionTimeout: o.mcp_timeout }), { toolReward: 0, toolSuccessReward: 0, maxToolUses: 10 }, o),
  });
}
