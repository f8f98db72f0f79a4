/**
 * Which step of which pipeline the chat-template preview renders for
 * (extension/views/chatTemplateTarget).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chatTemplateTarget } from '../../extension/views/chatTemplateTarget.js';

const ROOT = resolve(__dirname, '../..');

describe("the chat-template preview's target", () => {
  it("is the tokenize step's tokenizer_config.json and tokenizer.json", () => {
    const file = join(ROOT, 'samples/qwen3-tensorrt-llm/qwen3-tensorrt-llm.pipeline.json');
    expect(chatTemplateTarget(readFileSync(file, 'utf8'), file)).toEqual({
      step: 'preprocessing',
      tokenizer: join(ROOT, '.cache/tokenizers/qwen3/tokenizer.json'),
      tokenizerConfig: join(ROOT, '.cache/tokenizers/qwen3/tokenizer_config.json'),
    });
  });

  it('says what to do for a pipeline that takes no conversations', () => {
    const file = join(ROOT, 'samples/gpt2-sim/gpt2-sim.pipeline.json');
    expect(chatTemplateTarget(readFileSync(file, 'utf8'), file)).toEqual({
      problem: expect.stringMatching(
        /no tokenize step takes conversations: give one a port with role "messages"/,
      ),
    });
  });
});
