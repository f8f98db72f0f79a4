/**
 * The chat-template preview's engine (client/tokenizer/chatPreview.ts): the native renderer and
 * tokenizer the steps use, run from Node. Its text and token count equal transformers'
 * apply_chat_template (test/fixtures/chat-template-ids.json), special tokens are marked, and a
 * template that cannot be parsed comes back with its line and column.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { markSpecialTokens, previewChat } from '../../client/index.js';

const ROOT = resolve(__dirname, '../..');
const TOKENIZERS = join(ROOT, '.cache/tokenizers');
const fixture = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/chat-template-ids.json'), 'utf8')) as {
  models: Record<
    string,
    {
      name: string;
      messages: unknown[];
      tools?: unknown[];
      chat_template_kwargs?: Record<string, unknown>;
      text: string;
      ids: number[];
    }[]
  >;
};
const scratch = mkdtempSync(join(tmpdir(), 'ts-chat-preview-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('previewChat', () => {
  for (const model of ['llama-3.1', 'qwen3']) {
    it(`renders ${model}'s conversations as transformers does and counts their tokens natively`, async () => {
      for (const c of fixture.models[model]!) {
        const preview = await previewChat({
          tokenizerConfig: join(TOKENIZERS, model, 'tokenizer_config.json'),
          tokenizer: join(TOKENIZERS, model, 'tokenizer.json'),
          messages: c.messages,
          tools: c.tools,
          kwargs: c.chat_template_kwargs,
        });
        expect(preview, c.name).toMatchObject({ ok: true, text: c.text, tokens: c.ids.length });
        if (!preview.ok) continue;
        expect(preview.segments.map((s) => s.text).join('')).toBe(c.text);
        expect(preview.segments.filter((s) => s.special).length).toBeGreaterThan(1);
      }
    }, 600_000);
  }

  it('returns a template that cannot be parsed with its line and column', async () => {
    const template = join(scratch, 'broken.jinja');
    writeFileSync(template, 'line one\n{% if messages %}\n{{ messages[0] }\n');
    const preview = await previewChat({
      tokenizerConfig: join(TOKENIZERS, 'qwen3/tokenizer_config.json'),
      chatTemplate: template,
      tokenizer: join(TOKENIZERS, 'qwen3/tokenizer.json'),
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(preview).toMatchObject({ ok: false, kind: 'syntax', line: 3, column: 16 });
  }, 600_000);
});

describe('markSpecialTokens', () => {
  it('cuts the text into plain runs and special tokens, the longest token first', () => {
    expect(markSpecialTokens('<|a|>x<|ab|><|a|>', ['<|a|>', '<|ab|>'])).toEqual([
      { text: '<|a|>', special: true },
      { text: 'x', special: false },
      { text: '<|ab|>', special: true },
      { text: '<|a|>', special: true },
    ]);
  });
});
