/**
 * .prompt files: their blocks, settings and conversations as the editor reads them
 * (extension/prompts/promptFile).
 */
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

  it('reads a block opening with a role marker as a conversation, sent as a chat', () => {
    const file = parsePromptFile(
      [
        '---',
        'chat_template_kwargs: {"enable_thinking": false}',
        '---',
        '@system',
        'You are terse.',
        '',
        '@user What is 2+2?',
        '@assistant',
        '4',
        '@user',
        '  And 3+3?',
        '  Show your work.',
        '===',
        'A plain prompt @user stays text.',
      ].join('\n'),
    );
    expect(file.errors).toEqual([]);
    expect(file.settings.chatTemplateKwargs).toEqual({ enable_thinking: false });
    expect(file.blocks[0]).toMatchObject({
      line: 3,
      endLine: 11,
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'What is 2+2?' },
        { role: 'assistant', content: '4' },
        { role: 'user', content: '  And 3+3?\n  Show your work.' },
      ],
    });
    // For a pipeline without a messages input, the conversation as openai-serve flattens it.
    expect(file.blocks[0]!.text).toBe(
      'system: You are terse.\nuser: What is 2+2?\nassistant: 4\nuser:   And 3+3?\n  Show your work.\nassistant:',
    );
    expect(file.blocks[1]).toEqual({ text: 'A plain prompt @user stays text.', line: 13, endLine: 13 });
    expect(parsePromptFile('---\nchat_template_kwargs: [1]\n---\nx').errors[0]!.message).toMatch(
      /chat_template_kwargs must be a JSON object/,
    );
  });
});
