import { describe, expect, it } from 'vitest';
import { parsePromptFile } from '../../extension/prompts/promptFile.js';

describe('.prompt files', () => {
  it('reads front matter and one prompt per block, with the line each block starts on', () => {
    const file = parsePromptFile(
      [
        '---',
        'server: 127.0.0.1:8001',
        'model: gpt2_sim',
        'max_tokens: 32',
        'stop: ["\\n\\n", "###"]',
        '---',
        '',
        'Tell me about Triton.',
        '',
        '===',
        'A prompt',
        'on two lines.',
        '===',
      ].join('\n'),
    );
    expect(file.errors).toEqual([]);
    expect(file.settings).toEqual({
      server: '127.0.0.1:8001',
      model: 'gpt2_sim',
      maxTokens: 32,
      stop: ['\n\n', '###'],
    });
    expect(file.blocks).toEqual([
      { text: 'Tell me about Triton.', line: 7, endLine: 7 },
      { text: 'A prompt\non two lines.', line: 10, endLine: 11 },
    ]);
  });

  it('needs no front matter: the whole file is one prompt', () => {
    expect(parsePromptFile('Just this.\n')).toEqual({
      settings: {},
      blocks: [{ text: 'Just this.', line: 0, endLine: 0 }],
      errors: [],
    });
  });

  it('takes a single stop word as a bare text', () => {
    expect(parsePromptFile('---\nstop: END\n---\nx').settings.stop).toEqual(['END']);
  });

  it('names the line and the fix of each bad front matter entry, and keeps the good ones', () => {
    const file = parsePromptFile('---\nmodel: m\nmax_tokens: many\ncolour: red\nstop: []\nno colon\n---\nhi');
    expect(file.settings).toEqual({ model: 'm' });
    expect(file.errors.map((e) => e.line)).toEqual([2, 3, 4, 5]);
    expect(file.errors[0]!.message).toMatch(/max_tokens must be a whole number/);
    expect(file.errors[1]!.message).toMatch(/unknown key 'colour'/);
    expect(file.blocks).toHaveLength(1);
  });

  it('reports front matter that is never closed instead of sending it as a prompt', () => {
    const file = parsePromptFile('---\nmodel: m\nhello');
    expect(file.blocks).toEqual([]);
    expect(file.errors[0]).toMatchObject({ line: 0, message: expect.stringMatching(/never closed/) });
  });
});
