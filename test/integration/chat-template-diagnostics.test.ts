/**
 * Where @huggingface/jinja (the editor's in-process parser) and the native engine (the parser the
 * steps run, `ts-render-chat`) disagree, the native engine decides: every template of the corpus
 * and of the offline models is asked of both, and the differences are listed here by name. A
 * template the native engine parses shows nothing in the editor; one it refuses shows its error,
 * at its line and column, inside the tokenizer_config.json string or the Jinja file.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildBackends } from '../../generator/build/index.js';
import { jinjaSyntaxError } from '../../generator/chatTemplate/jinjaSyntax.js';
import { nativeTemplateCheck } from '../../generator/chatTemplate/nativeCheck.js';
import {
  jinjaFileDiagnostics,
  tokenizerConfigDiagnostics,
  type Diagnostic,
  type NativeTemplateCheck,
} from '../../generator/index.js';

const ROOT = resolve(__dirname, '../..');
const FIXTURES = join(ROOT, 'test/fixtures/chat-templates');
let native: NativeTemplateCheck;

beforeAll(async () => {
  await buildBackends({ targets: ['ts-render-chat'] });
  native = nativeTemplateCheck(join(ROOT, 'build/backends/tools/ts-render-chat'))!;
}, 600_000);

const expected = JSON.parse(readFileSync(join(FIXTURES, 'expected.json'), 'utf8')) as {
  templates: Record<string, { config: string; template?: string }>;
};
/** Every template of the byte-exact suite: the models' own and the corpus (the err-* ones included). */
const templates = Object.entries(expected.templates).map(([name, t]) => ({
  name,
  text: t.template
    ? readFileSync(join(ROOT, t.template), 'utf8')
    : (JSON.parse(readFileSync(join(ROOT, t.config), 'utf8')) as { chat_template: string }).chat_template,
}));

function underlined(text: string, d: Diagnostic): string {
  const lines = text.split('\n');
  const offset = (p: { line: number; column: number }) =>
    lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.column;
  return text.slice(offset(d.range.start), offset(d.range.end));
}

describe('@huggingface/jinja beside the native engine', () => {
  it('disagrees on these templates of the suite, and on no other', () => {
    const verdicts = templates.map(({ name, text }) => ({
      name,
      native: native(text)?.ok ?? 'not asked',
      js: jinjaSyntaxError(text) === undefined,
    }));
    expect(verdicts.every((v) => v.native !== 'not asked')).toBe(true);
    const differ = (nativeOk: boolean) =>
      verdicts.filter((v) => v.native === nativeOk && v.js !== nativeOk).map((v) => v.name);
    // Valid Jinja (transformers renders every one byte for byte like the native engine) that
    // @huggingface/jinja 0.5.11 refuses: {% raw %}, {% with %}, (1,) tuples, `is divisibleby 3`,
    // `x is sameas none`, recursive loops, a negative-literal whitespace marker, \U escapes…
    expect(differ(true)).toEqual([
      'corpus/07-tojson-variants',
      'corpus/11-tests',
      'corpus/14-recursive-loop',
      'corpus/15-raw',
      'corpus/18-arithmetic',
      'corpus/19-formatting',
      'corpus/22-whitespace-control',
      'corpus/25-with-filter-blocks',
      'corpus/27-python-repr',
      'corpus/33-literals',
    ]);
    // Templates the native engine refuses at load and @huggingface/jinja parses: jinja2 checks
    // filter names when it compiles a template, @huggingface/jinja only when it renders.
    expect(differ(false)).toEqual(['corpus/err-02-unknown-filter']);
  });

  it('shows nothing for a template the native engine parses, though @huggingface/jinja refuses it', () => {
    const raw = templates.find((t) => t.name === 'corpus/15-raw')!.text;
    expect(jinjaFileDiagnostics(raw, '/m/chat.jinja', native)).toEqual([]);
    const [alone] = jinjaFileDiagnostics(raw, '/m/chat.jinja'); // no build: it only warns
    expect(alone).toMatchObject({ code: 'TS-W014', severity: 'warning' });
  });

  it("shows the native engine's error where @huggingface/jinja sees none, at the native line and column", () => {
    const text = JSON.stringify(
      { chat_template: '{%- for m in messages %}\n{{ m.content | no_such_filter }}\n{%- endfor %}' },
      null,
      2,
    );
    expect(tokenizerConfigDiagnostics(text, '/m/tokenizer_config.json')).toEqual([]);
    const [d, ...more] = tokenizerConfigDiagnostics(text, '/m/tokenizer_config.json', native);
    expect(more).toEqual([]);
    expect(d).toMatchObject({ code: 'TS-E058', severity: 'error' });
    expect(d!.message).toContain("line 2, column 16: No filter named 'no_such_filter'");
    expect(d!.message).toContain('native engine');
    expect(underlined(text, d!)).toBe('no_such_filter');
  });

  it('places an error both see where the native engine says, in the Jinja file', () => {
    const text = 'Hello\n{%- for m in messages %}{{ m.role ~ }}{% endfor %}';
    const [d] = jinjaFileDiagnostics(text, '/m/chat.jinja', native);
    expect(d).toMatchObject({ code: 'TS-E058', range: { start: { line: 1, column: 36 } } });
    expect(d!.message).toContain("line 2, column 37: unexpected '}}'");
    expect(underlined(text, d!)).toBe('}}');
  });

  it('counts columns in code points, as the native engine does, and JSON escapes in the config', () => {
    // 😀 is two UTF-16 units and one code point; \u00e9 six characters in the file and one in the template.
    const template = 'é😀 {{ x ~ }}';
    const text = `{"chat_template": "\\u00e9😀 {{ x ~ }}"}`;
    const [d] = tokenizerConfigDiagnostics(text, '/m/tokenizer_config.json', native);
    expect(d!.message).toContain('line 1, column 11');
    expect(underlined(text, d!)).toBe('}}');
    const [j] = jinjaFileDiagnostics(template, '/m/chat.jinja', native);
    expect(underlined(template, j!)).toBe('}}');
  });
});
