/**
 * MCP tools. `McpTool` is GEM's MCPTool: one text tool in front of every tool of one or more MCP
 * servers. The model calls them as
 *   <tool_call><tool_name>NAME</tool_name><arguments>{JSON}</arguments></tool_call>
 * and sees the raw result. With several servers, tool names get the server's name as a prefix
 * (`server_tool`) and descriptions a "[server]" tag. `mcpServerTools()` gives the same tools as
 * structured `Tool`s, for agents that call tools without text parsing.
 */
import { z } from 'zod';
import { GemError } from '../../core/errors.ts';
import type { ParsedCall, TextTool, Tool, ToolOutput } from '../tool.ts';
import { normaliseMcpConfig } from './mcpConfig.ts';
import { McpConnection, type McpCallResult, type McpConnectionOptions, type McpToolInfo } from './mcpConnection.ts';

export interface McpToolOptions extends McpConnectionOptions {
  /** Fail at init when the servers offer no tools (GEM's validate_on_init, default true). */
  validateOnInit?: boolean;
}

interface Route {
  /** The name the model uses. */
  exposed: string;
  info: McpToolInfo;
  connection: McpConnection;
}

const TOOL_CALL = /<tool_call>\s*<tool_name>(.*?)<\/tool_name>\s*<arguments>(.*?)<\/arguments>\s*<\/tool_call>/s;

const McpCallArgs = z.object({ name: z.string(), arguments: z.record(z.string(), z.unknown()) }).strict();
export type McpCallArgs = z.infer<typeof McpCallArgs>;

/** GEM's rendering of a call result as one observation. */
export function renderMcpResult(res: McpCallResult): ToolOutput {
  const parts: string[] = [];
  for (const c of res.content ?? []) {
    if (c.type === 'text' && typeof c.text === 'string') parts.push(c.text);
    else if (typeof c.data === 'string') parts.push(`Binary data: ${Buffer.byteLength(c.data, 'base64')} bytes`);
    else if (c.type === 'resource' && typeof c.resource?.text === 'string') parts.push(c.resource.text);
    else if (c.type === 'resource' && typeof c.resource?.blob === 'string') parts.push(`Binary data: ${Buffer.byteLength(c.resource.blob, 'base64')} bytes`);
  }
  if (res.isError) return { output: `[Tool execution error: ${parts.join('\n') || 'the tool reported an error'}]`, isError: true };
  if (res.structuredContent && Object.keys(res.structuredContent).length) return { output: JSON.stringify(res.structuredContent), isError: false };
  return { output: parts.length ? parts.join('\n') : 'Tool execution completed with no output', isError: false };
}

/** A tool as the model is told about it: its name, what it does, its arguments' JSON Schema. */
export interface ToolCallSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** GEM's MCP tool-use instructions for these tools (in the order given): how to write a call, then the tools. */
export function toolCallInstructions(tools: readonly ToolCallSpec[]): string {
  const specs = tools.map((t) => JSON.stringify({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
  const example = tools[0]?.name ?? 'tool_name';
  return [
    '# Tool-Use Instructions',
    '',
    'You may call the tools listed below. Call at most one tool per message, written exactly like this:',
    '<tool_call>',
    '<tool_name>NAME</tool_name>',
    '<arguments>{"argument": "value"}</arguments>',
    '</tool_call>',
    'The arguments are a single JSON object that follows the tool\'s parameters. The tool\'s result comes back as the next message.',
    '',
    'For example:',
    `<tool_call>\n<tool_name>${example}</tool_name>\n<arguments>{}</arguments>\n</tool_call>`,
    '',
    '## Available Tools',
    '',
    '<tools>',
    ...specs,
    '</tools>',
  ].join('\n');
}

/**
 * The first `<tool_call>` block of an action: the tool's name and its arguments (a JSON object), or
 * why the block cannot be a call (arguments that are not a JSON object). Whether the name is a known
 * tool is the caller's question.
 */
export function parseToolCall(action: string): ParsedCall<McpCallArgs> {
  const m = TOOL_CALL.exec(action);
  if (!m) return { kind: 'none', parsedAction: action };
  const block = m[0];
  let args: unknown;
  try {
    args = JSON.parse(m[2].trim() || '{}');
  } catch (e) {
    return { kind: 'invalid', observation: `[Invalid tool call: the arguments are not valid JSON (${(e as Error).message})]`, parsedAction: block };
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return { kind: 'invalid', observation: '[Invalid tool call: the arguments must be a JSON object]', parsedAction: block };
  }
  return { kind: 'call', args: { name: m[1].trim(), arguments: args as Record<string, unknown> }, parsedAction: block };
}

export class McpTool implements TextTool<McpCallArgs> {
  readonly name = 'mcp';
  readonly toolType = 'mcp';
  readonly description = 'Call a tool of an MCP server.';
  readonly inputSchema = McpCallArgs;
  readonly connections: McpConnection[];
  private routes?: Map<string, Route>;
  private initialising?: Promise<void>;
  private readonly validateOnInit: boolean;

  constructor(config: unknown, opts: McpToolOptions = {}) {
    const servers = normaliseMcpConfig(config);
    this.connections = Object.entries(servers).map(([name, cfg]) => new McpConnection(name, cfg, opts));
    this.validateOnInit = opts.validateOnInit ?? true;
  }

  /** Connects to every server and learns its tools. */
  init(): Promise<void> {
    this.initialising ??= (async () => {
      const multi = this.connections.length > 1;
      const routes = new Map<string, Route>();
      for (const connection of this.connections) {
        for (const info of await connection.listTools()) {
          const exposed = multi ? `${connection.serverName}_${info.name}` : info.name;
          routes.set(exposed, { exposed, info, connection });
        }
      }
      if (this.validateOnInit && routes.size === 0) {
        throw new GemError('TOOL_ERROR', `The MCP server(s) ${this.connections.map((c) => c.describe()).join(', ')} offer no tools.`);
      }
      this.routes = routes;
    })();
    // A failed start may be retried by the next init().
    this.initialising.catch(() => (this.initialising = undefined));
    return this.initialising;
  }

  private ready(): Map<string, Route> {
    if (!this.routes) throw new GemError('TOOL_ERROR', 'McpTool: call init() before using the tool.');
    return this.routes;
  }

  /** Tool names the model may call, sorted. */
  toolNames(): string[] {
    return [...this.ready().keys()].sort();
  }

  instructions(): string {
    const routes = [...this.ready().values()].sort((a, b) => a.exposed.localeCompare(b.exposed));
    const multi = this.connections.length > 1;
    return toolCallInstructions(
      routes.map((r) => ({ name: r.exposed, description: multi ? `[${r.connection.serverName}] ${r.info.description}` : r.info.description, parameters: r.info.inputSchema })),
    );
  }

  parseAction(action: string): ParsedCall<McpCallArgs> {
    const parsed = parseToolCall(action);
    if (parsed.kind === 'call' && !this.ready().has(parsed.args.name)) {
      return { kind: 'invalid', observation: `Tool '${parsed.args.name}' not found. Available tools: ${this.toolNames().join(', ')}`, parsedAction: parsed.parsedAction };
    }
    return parsed;
  }

  async execute({ name, arguments: args }: McpCallArgs, signal?: AbortSignal): Promise<ToolOutput> {
    const route = this.ready().get(name);
    if (!route) return { output: `Tool '${name}' not found. Available tools: ${this.toolNames().join(', ')}`, isError: true };
    try {
      return renderMcpResult(await route.connection.callTool(route.info.name, args, signal));
    } catch (e) {
      return { output: `[Tool execution failed: ${e instanceof Error ? e.message : String(e)}]`, isError: true };
    }
  }

  /** Every server tool as a structured Tool (after init). */
  serverTools(): Tool<Record<string, unknown>>[] {
    return [...this.ready().values()].map((r) => new McpServerTool(r.exposed, r.info, r.connection));
  }

  async close(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.close()));
  }
}

/** One MCP server tool as a structured Tool; its zod schema comes from the tool's JSON Schema. */
export class McpServerTool implements Tool<Record<string, unknown>> {
  readonly description: string;
  readonly inputSchema: z.ZodType<Record<string, unknown>>;

  constructor(
    readonly name: string,
    readonly info: McpToolInfo,
    private readonly connection: McpConnection,
  ) {
    this.description = info.description;
    this.inputSchema = schemaFromJson(info.inputSchema);
  }

  async execute(args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolOutput> {
    try {
      return renderMcpResult(await this.connection.callTool(this.info.name, args, signal));
    } catch (e) {
      return { output: `[Tool execution failed: ${e instanceof Error ? e.message : String(e)}]`, isError: true };
    }
  }
}

function schemaFromJson(schema: Record<string, unknown>): z.ZodType<Record<string, unknown>> {
  try {
    return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]) as z.ZodType<Record<string, unknown>>;
  } catch {
    // A schema zod cannot read still gets checked by the server itself.
    return z.record(z.string(), z.unknown());
  }
}

const sharedTools = new Map<string, { tool: McpTool; leases: number }>();

/**
 * One McpTool per config and options in this process, shared by every env that asks for it (a
 * vector of 64 envs should not start 64 stdio servers). Each lease's close() gives it back; the
 * last one closes the connections.
 */
export function leaseMcpTool(config: unknown, opts: McpToolOptions = {}): TextTool<McpCallArgs> {
  const key = JSON.stringify([config, opts]);
  let entry = sharedTools.get(key);
  if (!entry) {
    entry = { tool: new McpTool(config, opts), leases: 0 };
    sharedTools.set(key, entry);
  }
  entry.leases++;
  const shared = entry;
  let released = false;
  const { tool } = shared;
  return {
    name: tool.name,
    toolType: tool.toolType,
    description: tool.description,
    inputSchema: tool.inputSchema,
    init: () => tool.init(),
    instructions: () => tool.instructions(),
    parseAction: (action) => tool.parseAction(action),
    execute: (args, signal) => tool.execute(args, signal),
    close: async () => {
      if (released) return;
      released = true;
      if (--shared.leases === 0) {
        sharedTools.delete(key);
        await tool.close();
      }
    },
  };
}
