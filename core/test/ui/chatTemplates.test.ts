import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadChatTemplates } from '../../src/ui/chatTemplates.ts';

const dir = mkdtempSync(join(tmpdir(), 'gem-ui-templates-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const messages = [
  { role: 'system' as const, content: 'Be brief.' },
  { role: 'user' as const, content: 'Guess.' },
];

describe('loadChatTemplates', () => {
  it('offers the built-ins, ChatML first', async () => {
    const t = await loadChatTemplates();
    expect(t.default).toBe('chatml');
    expect(t.names).toEqual(['chatml', 'qwen', 'llama3']);
    expect(t.render('chatml', messages)).toBe('<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nGuess.<|im_end|>\n<|im_start|>assistant\n');
    expect(() => t.render('nope', messages)).toThrow(/no chat template 'nope'/);
  });

  it("reads a model's tokenizer_config.json: its Jinja template and special tokens", async () => {
    const cfg = join(dir, 'tokenizer_config.json');
    const template = "{{ bos_token }}{% for m in messages %}[{{ m.role }}] {{ m.content }}{{ eos_token }}{% endfor %}{% if add_generation_prompt %}[assistant] {% endif %}";
    writeFileSync(cfg, JSON.stringify({ chat_template: template, bos_token: '<s>', eos_token: { content: '</s>' } }));
    const t = await loadChatTemplates(cfg);
    expect(t.default).toBe('model');
    expect(t.render('model', messages)).toBe('<s>[system] Be brief.</s>[user] Guess.</s>[assistant] ');
  });

  it('a bad --chat-template says what is wrong', async () => {
    await expect(loadChatTemplates(join(dir, 'missing.jinja'))).rejects.toThrow(/--chat-template .*missing\.jinja: not a built-in \(chatml, qwen, llama3\) and not a readable file/);
    writeFileSync(join(dir, 'broken.json'), '{');
    await expect(loadChatTemplates(join(dir, 'broken.json'))).rejects.toThrow(/not valid JSON/);
    writeFileSync(join(dir, 'none.json'), '{}');
    await expect(loadChatTemplates(join(dir, 'none.json'))).rejects.toThrow(/has no chat_template/);
    writeFileSync(join(dir, 'bad.jinja'), '{% for m in messages %}');
    await expect(loadChatTemplates(join(dir, 'bad.jinja'))).rejects.toThrow(/--chat-template .*bad\.jinja: chat_template does not parse as Jinja/);
  });
});
