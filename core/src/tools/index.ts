/** Public surface of the tools: the Tool interfaces, the tool wrapper, and each tool. */
export * from './tool.ts';
export * from './toolEnvWrapper.ts';
export { Sandbox, runSandboxed, runSandboxedEach, getSharedSandbox, closeSharedSandbox, DEFAULT_LIMITS, type SandboxOptions, type SandboxLimits, type RunOptions, type RunEachOptions, type EachInput, type SandboxResult, type KilledReason } from '../sandbox/sandbox.ts';
export { PythonCodeTool, PYTHON_TOOL_INSTRUCTIONS, type PythonCodeToolOptions } from './python/pythonCodeTool.ts';
export { detectIsolation, findBwrap, type IsolationKind, type IsolationReport } from '../sandbox/isolation.ts';
export { SearchTool, SEARCH_TOOL_INSTRUCTIONS, formatHits, type SearchToolOptions } from './search/searchTool.ts';
export type { SearchBackend, SearchHit } from './search/searchBackend.ts';
export { Bm25Index, DEFAULT_BM25, type Bm25Params, type ScoredDoc } from './search/bm25Index.ts';
export { LocalSearch, getLocalSearch, DEMO_SEARCH_CORPUS } from './search/localSearch.ts';
export { loadIndexedCorpus, defaultCacheDir } from './search/indexCache.ts';
export { loadCorpus, parseCorpus, type SearchDocument } from './search/corpus.ts';
export { RetrieverClient, type RetrieverClientOptions, type RetrieverProtocol } from './search/retrieverClient.ts';
export { McpTool, McpServerTool, leaseMcpTool, renderMcpResult, type McpToolOptions } from './mcp/mcpTool.ts';
export { McpConnection, type McpConnectionOptions } from './mcp/mcpConnection.ts';
export { normaliseMcpConfig, type McpConfig, type McpServerConfig } from './mcp/mcpConfig.ts';
export { resolveSearchBackend } from './registerToolWrappers.ts';
