/**
 * A chat template's syntax error at its place, from @huggingface/jinja alone (no native engine
 * asked: the editor before a build): inside a tokenizer_config.json's `chat_template` string, JSON
 * escapes counted, and inside a Jinja file. Alone it warns (TS-W014): it refuses some valid Jinja,
 * which test/integration/chat-template-diagnostics.test.ts lists beside the native engine's verdicts.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  jinjaFileDiagnostics,
  jinjaTemplatesNamedBy,
  tokenizerConfigDiagnostics,
  type Diagnostic,
} from '../../generator/index.js';

/** The document text a diagnostic underlines. */
function underlined(text: string, d: Diagnostic): string {
  const lines = text.split('\n');
  const offset = (p: { line: number; column: number }) =>
    lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.column;
  return text.slice(offset(d.range.start), offset(d.range.end));
}

describe('in a tokenizer_config.json', () => {
  it('underlines the bad character inside the chat_template string, after escapes of every length', () => {
    // \n, \" and \t are two characters in the file, \u00e9 six; each one decoded character.
    const text = [
      '{',
      '  "bos_token": "<s>",',
      '  "chat_template": "{{ bos_token }}\\n{% for m in messages %}{{ m[\\"content\\"] | trim }}\\u00e9\\t{% endfor %}\\n{{ x @ y }}"',
      '}',
    ].join('\n');
    const [d, ...more] = tokenizerConfigDiagnostics(text, '/m/tokenizer_config.json');
    expect(more).toEqual([]);
    expect(d).toMatchObject({ code: 'TS-W014', severity: 'warning', file: '/m/tokenizer_config.json' });
    expect(d!.message).toContain('Unexpected character: @');
    expect(d!.range.start.line).toBe(2);
    expect(underlined(text, d!)).toBe('@');
  });

  it('underlines a whole token the parser stops at, and a string literal with its escapes', () => {
    const text = JSON.stringify(
      { chat_template: '{%- for m in messages -%}{{ m.role | }}{%- endfor %}' },
      null,
      2,
    );
    const [d] = tokenizerConfigDiagnostics(text, '/m/tokenizer_config.json');
    expect(d!.message).toContain('Unexpected token: CloseExpression');
    expect(underlined(text, d!)).toBe('}}');
    const quoted = '{"chat_template": "{{ \'a\\\\n\' + }}"}'; // the template holds {{ 'a\n' + }}
    const [q] = tokenizerConfigDiagnostics(quoted, '/m/tokenizer_config.json');
    expect(underlined(quoted, q!)).toBe('}}');
  });

  it('names which of a list of named templates fails, and underlines in it', () => {
    const text = JSON.stringify(
      {
        chat_template: [
          { name: 'default', template: '{{ messages[0].content }}' },
          { name: 'tool_use', template: '{% if tools %}{{ tools | tojson }}' },
        ],
      },
      null,
      1,
    );
    const [d, ...more] = tokenizerConfigDiagnostics(text, '/m/tokenizer_config.json');
    expect(more).toEqual([]);
    expect(d!.message).toContain('chat template "tool_use"');
    expect(d!.message).toContain('{% if %} is never closed: add {% endif %}');
    expect(underlined(text, d!)).toBe('if');
  });

  it('says nothing about a config without a chat_template, or of one that parses', () => {
    expect(tokenizerConfigDiagnostics('{"bos_token": "<s>"}', '/m/tokenizer_config.json')).toEqual([]);
    expect(tokenizerConfigDiagnostics('{"chat_template": "{{ x }}"}', '/m/tokenizer_config.json')).toEqual(
      [],
    );
    expect(tokenizerConfigDiagnostics('{"chat_template": ', '/m/tokenizer_config.json')).toEqual([]);
  });

  const tokenizers = resolve(__dirname, '../../.cache/tokenizers');
  const configs = existsSync(tokenizers)
    ? readdirSync(tokenizers)
        .map((d) => join(tokenizers, d, 'tokenizer_config.json'))
        .filter((f) => existsSync(f))
    : [];
  it.each(configs)("the model's own template %s parses", (file) => {
    expect(tokenizerConfigDiagnostics(readFileSync(file, 'utf8'), file)).toEqual([]);
  });
  it('has the models to check', () => expect(configs.length).toBeGreaterThanOrEqual(6));
});

describe('in a Jinja file', () => {
  it('underlines the error on its line, generation tags and trim markers counted', () => {
    const text = [
      '{%- for message in messages %}',
      '  {%- generation %}{{ message.content }}{% endgeneration -%}',
      '  {{- message.role ~ ~ }}',
      '{%- endfor %}',
    ].join('\n');
    const [d] = jinjaFileDiagnostics(text, '/m/chat.jinja');
    expect(d!.message).toContain('Unexpected token: AdditiveBinaryOperator');
    expect(d!.range.start).toEqual({ line: 2, column: 21 });
    expect(underlined(text, d!)).toBe('~');
  });

  it('points an unclosed block at its keyword, an unterminated string at its quote', () => {
    const unclosed = '{% for m in messages %}\n{% if m.role == "user" %}{{ m.content }}{% endfor %}';
    const [u] = jinjaFileDiagnostics(unclosed, '/m/chat.jinja');
    expect(u!.message).toContain('Unknown statement type: endfor');
    const open = '{% for m in messages %}\n{{ m.content }}';
    const [o] = jinjaFileDiagnostics(open, '/m/chat.jinja');
    expect(o!.message).toContain('{% for %} is never closed: add {% endfor %}');
    expect(underlined(open, o!)).toBe('for');
    const quote = '{{ "<|user|>" }}\n{{ "<|end| }}';
    const [q] = jinjaFileDiagnostics(quote, '/m/chat.jinja');
    expect(q!.range.start).toEqual({ line: 1, column: 3 });
  });
});

describe('which Jinja files a pipeline names', () => {
  it('lists the chatTemplate files that are not JSON, resolved beside the pipeline', () => {
    const pipeline = JSON.stringify({
      steps: [
        { name: 'a', chatTemplate: './templates/chat.jinja' },
        { name: 'b', chatTemplate: './model/tokenizer_config.json' },
        { name: 'c', tokenizer: 'gpt2' },
      ],
    });
    expect(jinjaTemplatesNamedBy(pipeline, '/p/x.pipeline.json')).toEqual(['/p/templates/chat.jinja']);
    expect(jinjaTemplatesNamedBy('{"steps": ', '/p/x.pipeline.json')).toEqual([]);
  });
});
