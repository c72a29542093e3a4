/**
 * The Python tool (GEM's PythonCodeTool): the model writes code in `<python>…</python>` or in a
 * markdown python block; the first block (the one that ends first) runs in the sandbox and the model
 * sees "Code execution result: " followed by stdout and stderr. Anything written after that block
 * is dropped from the history (`parsed_action` ends with the block), as in GEM.
 */
import { z } from 'zod';
import { firstEndingMatch, type ParsedCall, type TextTool, type ToolOutput } from '../tool.ts';
import { getSharedSandbox, type Sandbox } from '../../sandbox/sandbox.ts';

export interface PythonCodeToolOptions {
  /** Seconds per run (GEM's default 5). */
  timeout?: number;
  /** Show only the last line of stderr (GEM's keep_error_last_line). */
  keepErrorLastLine?: boolean;
  /** Address-space limit per run; default the sandbox's. */
  memoryMb?: number;
  /** The sandbox to run in; default the process-wide one. */
  sandbox?: Sandbox;
}

const PYTHON_TAG = /<python>(.*?)<\/python>/s;
// Three backticks, then "python" (GEM also accepts a newline before the word); other tags are not code.
const PYTHON_FENCE = /```\n?python(.*?)```/s;

export const PYTHON_TOOL_INSTRUCTIONS =
  'Work through the problem step by step. When computing helps, you may write Python code inside ' +
  '<python>...</python> tags or in a ```python fenced block; it runs in a sandbox and what it prints comes ' +
  'back to you after "Code execution result: ". Only the first code block of a message runs. ' +
  'Give your final answer inside \\boxed{}.';

const PythonArgs = z.object({ code: z.string() }).strict();
type PythonArgs = z.infer<typeof PythonArgs>;

export class PythonCodeTool implements TextTool<PythonArgs> {
  readonly name = 'python';
  readonly toolType = 'python_code';
  readonly description = 'Run a Python 3 program in a sandbox (no network, no host files) and return what it prints.';
  readonly inputSchema = PythonArgs;
  readonly timeoutMs: number;
  readonly keepErrorLastLine: boolean;
  private readonly memoryMb?: number;
  private readonly ownSandbox?: Sandbox;

  constructor(opts: PythonCodeToolOptions = {}) {
    const timeout = opts.timeout ?? 5;
    if (!(timeout > 0 && Number.isFinite(timeout))) throw new RangeError(`PythonCodeTool: timeout must be positive seconds, got ${timeout}`);
    this.timeoutMs = timeout * 1000;
    this.keepErrorLastLine = opts.keepErrorLastLine ?? false;
    this.memoryMb = opts.memoryMb;
    this.ownSandbox = opts.sandbox;
  }

  instructions(): string {
    return PYTHON_TOOL_INSTRUCTIONS;
  }

  parseAction(action: string): ParsedCall<PythonArgs> {
    const m = firstEndingMatch(action, [PYTHON_TAG, PYTHON_FENCE]);
    if (!m) return { kind: 'none', parsedAction: action };
    return { kind: 'call', args: { code: m[1].trim() }, parsedAction: action.slice(0, m.index + m[0].length) };
  }

  async execute({ code }: PythonArgs, signal?: AbortSignal): Promise<ToolOutput> {
    if (code.trim() === '...') {
      // A bare placeholder is not a program (GEM reports it as a syntax error too).
      return { output: 'SyntaxError: the code block holds only "..."', isError: true };
    }
    const sandbox = this.ownSandbox ?? getSharedSandbox();
    const r = await sandbox.run({ code, timeoutMs: this.timeoutMs, memoryMb: this.memoryMb, signal });
    let stderr = r.stderr;
    if (this.keepErrorLastLine && stderr) stderr = stderr.trim().split('\n').pop() ?? '';
    const output = stderr ? `${r.stdout}\n${stderr}` : r.stdout;
    return { output, isError: r.exitCode !== 0 || r.killedReason !== undefined };
  }

  observe(result: ToolOutput): string {
    return `Code execution result: ${result.output.replace(/^[ \n]+/, '')}\n`;
  }
}
