/**
 * The chat-template view: the conversation of a turn rendered as the prompt text a model gets, by the
 * same templates the concat_chat wrappers use (built-in ChatML, Qwen, Llama 3, or a model's own Jinja
 * `chat_template`). `gem-ts ui --chat-template X` adds X: a built-in name, a Jinja file, or a Hugging
 * Face tokenizer_config.json (its `chat_template`, bos_token and eos_token).
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { BUILTIN_CHAT_TEMPLATES, resolveChatTemplate, type ChatMessage, type ChatTemplate } from '../wrappers/chatTemplate.ts';

export interface ChatTemplates {
  names: string[];
  /** The one the page shows first: the model's own when given, else ChatML. */
  default: string;
  render(name: string, messages: readonly ChatMessage[]): string;
}

function tokenText(v: unknown): string {
  if (typeof v === 'string') return v;
  const content = (v as { content?: unknown } | null)?.content;
  return typeof content === 'string' ? content : '';
}

/** A tokenizer_config.json's template: a string, or a list of named ones (the 'default' wins). */
function fromTokenizerConfig(cfg: Record<string, unknown>, path: string): { template: string; vars: Record<string, unknown> } {
  let t = cfg.chat_template;
  if (Array.isArray(t)) t = (t.find((x) => x?.name === 'default') ?? t[0])?.template;
  if (typeof t !== 'string') throw new Error(`--chat-template ${path}: the file has no chat_template`);
  return { template: t, vars: { bos_token: tokenText(cfg.bos_token), eos_token: tokenText(cfg.eos_token) } };
}

export async function loadChatTemplates(spec?: string): Promise<ChatTemplates> {
  const all = new Map<string, ChatTemplate>(Object.entries(BUILTIN_CHAT_TEMPLATES));
  let def = 'chatml';
  if (spec && all.has(spec)) def = spec;
  else if (spec) {
    let text: string;
    try {
      text = await readFile(spec, 'utf8');
    } catch (e) {
      throw new Error(`--chat-template ${spec}: not a built-in (${[...all.keys()].join(', ')}) and not a readable file (${(e as Error).message})`, { cause: e });
    }
    let template = text;
    let vars: Record<string, unknown> = {};
    if (spec.endsWith('.json')) {
      let cfg: Record<string, unknown>;
      try {
        cfg = JSON.parse(text) as Record<string, unknown>;
      } catch (e) {
        throw new Error(`--chat-template ${spec}: not valid JSON (${(e as Error).message})`, { cause: e });
      }
      ({ template, vars } = fromTokenizerConfig(cfg, spec));
    }
    def = basename(spec) === 'tokenizer_config.json' ? 'model' : basename(spec).replace(/\.(jinja2?|json|txt)$/, '');
    try {
      all.set(def, resolveChatTemplate(template, vars));
    } catch (e) {
      throw new Error(`--chat-template ${spec}: ${(e as Error).message}`, { cause: e });
    }
  }
  return {
    names: [...all.keys()],
    default: def,
    render(name, messages) {
      const t = all.get(name);
      if (!t) throw new Error(`no chat template '${name}' (have ${[...all.keys()].join(', ')})`);
      return t(messages);
    },
  };
}
