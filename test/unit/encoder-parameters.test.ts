/**
 * A tokenize step's truncation/padding parameters: one table (generator/model/encoderParameters.ts)
 * that the C++ parser and docs/TOKENIZERS.md follow; diagnostics at the value that is wrong;
 * the cut an encoder model gets by default; the embedding and reranker preset families.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  pipelineFromPresets,
  presetFamilies,
  validatePipeline,
  type Diagnostic,
  type Pipeline,
} from '../../generator/index.js';
import { ENCODER_PARAMETERS, specialTokenCounts } from '../../generator/model/encoderParameters.js';

const ROOT = resolve(__dirname, '../..');
const CPP = readFileSync(resolve(ROOT, 'backends/triton/src/encoder_options.cc'), 'utf8');
const SAMPLE = resolve(ROOT, 'samples/ms-marco-reranker-onnx/ms-marco-reranker-onnx.pipeline.json');
const EMBEDDING = resolve(ROOT, 'samples/bge-embedding-onnx/bge-embedding-onnx.pipeline.json');

/** The reranker sample with its tokenize step's parameters set; the diagnostics of codes 09x. */
function diagnose(parameters: Record<string, unknown>, file = SAMPLE): { text: string; found: Diagnostic[] } {
  const pipeline = JSON.parse(readFileSync(file, 'utf8')) as Pipeline;
  pipeline.steps[0]!.parameters = parameters as Record<string, string>;
  const text = JSON.stringify(pipeline, null, 2);
  const found = validatePipeline(text, file).diagnostics.filter((d) => /^TS-[EW]09/.test(d.code));
  return { text, found };
}

/** The text a diagnostic's range covers. */
function covered(text: string, d: Diagnostic): string {
  const lines = text.split('\n');
  expect(d.range.start.line).toBe(d.range.end.line);
  return lines[d.range.start.line]!.slice(d.range.start.column, d.range.end.column);
}

describe('the truncation/padding parameter table', () => {
  it.each(ENCODER_PARAMETERS.map((p) => p.name))('the C++ step parses %s, with the same choices', (name) => {
    const p = ENCODER_PARAMETERS.find((e) => e.name === name)!;
    expect(CPP).toContain(`"${name}"`);
    for (const choice of p.choices ?? []) expect(CPP).toContain(`"${choice}"`);
  });

  it('is the list docs/TOKENIZERS.md shows', () => {
    const path = resolve(ROOT, 'docs/TOKENIZERS.md');
    const doc = readFileSync(path, 'utf8');
    const begin = '<!-- encoder parameters: generated from generator/model/encoderParameters.ts -->\n';
    const end = '<!-- end of encoder parameters -->';
    const table = [
      '| parameter | overrides | values | what |',
      '|---|---|---|---|',
      ...ENCODER_PARAMETERS.map(
        (p) =>
          `| \`${p.name}\` | ${p.hf} | ${p.choices ? p.choices.map((c) => `\`${c}\``).join(', ') : `whole number ≥ ${p.min}`} | ${p.doc}${p.derived ? ' (written by the generator)' : ''} |`,
      ),
    ].join('\n');
    const start = doc.indexOf(begin);
    const stop = doc.indexOf(end);
    expect(start, 'docs/TOKENIZERS.md lacks the markers').toBeGreaterThan(0);
    const current = doc.slice(start + begin.length, stop);
    if (process.env.UPDATE_DOCS === '1' && current !== `${table}\n`)
      writeFileSync(path, doc.slice(0, start + begin.length) + `${table}\n` + doc.slice(stop));
    else expect(current).toBe(`${table}\n`);
  });

  it("counts the special tokens of HF's post-processors", () => {
    const bert = JSON.parse(
      readFileSync(resolve(ROOT, '.cache/tokenizers/bert-base-uncased/tokenizer.json'), 'utf8'),
    );
    expect(specialTokenCounts(bert)).toEqual({ single: 2, pair: 3 });
    expect(specialTokenCounts({ post_processor: { type: 'RobertaProcessing' } })).toEqual({
      single: 2,
      pair: 4,
    });
    expect(
      specialTokenCounts({
        post_processor: { type: 'Sequence', processors: [{ type: 'ByteLevel' }, { type: 'BertProcessing' }] },
      }),
    ).toEqual({ single: 2, pair: 3 });
    expect(specialTokenCounts({ post_processor: null })).toBeUndefined();
  });
});

describe('diagnostics of the truncation/padding parameters, at the value', () => {
  it('accepts sensible settings without a word', () => {
    const { found } = diagnose({
      max_length: 256,
      stride: 32,
      truncation_strategy: 'only_second',
      pad_to_multiple_of: 8,
    });
    expect(found).toEqual([]);
  });

  it('TS-E090: a count out of range or not a whole number', () => {
    const { text, found } = diagnose({ max_length: 0, stride: '-1', pad_to_multiple_of: 2.5 });
    expect(found.map((d) => [d.code, d.severity, covered(text, d)])).toEqual([
      ['TS-E090', 'error', '0'],
      ['TS-E090', 'error', '"-1"'],
      ['TS-E090', 'error', '2.5'],
    ]);
    expect(found[0]!.message).toMatch(/"max_length" must be a whole number ≥ 1 .*got "0"/);
  });

  it('TS-E091: an unknown strategy or direction names the values there are', () => {
    const { text, found } = diagnose({ truncation_strategy: 'longest', padding_direction: 'up' });
    expect(found.map((d) => [d.code, covered(text, d)])).toEqual([
      ['TS-E091', '"longest"'],
      ['TS-E091', '"up"'],
    ]);
    expect(found[0]!.message).toContain('use one of "longest_first", "only_first", "only_second"');
  });

  it('TS-E092: fixed padding without a length', () => {
    const { text, found } = diagnose({ padding_strategy: 'fixed' });
    expect(found.map((d) => [d.code, covered(text, d)])).toEqual([['TS-E092', '"fixed"']]);
    expect(diagnose({ padding_strategy: 'fixed', padding_length: 128 }).found).toEqual([]);
  });

  it('TS-W090: a stride HF aborts on (not below the cut: max_length − specials, halved for a longest_first pair)', () => {
    // Reranker (a pair, BERT: 3 specials): max_length 16 leaves 13, a longest_first text may be cut to 6.
    const { text, found } = diagnose({ max_length: 16, stride: 6 });
    expect(found.map((d) => [d.code, d.severity, covered(text, d)])).toEqual([['TS-W090', 'warning', '6']]);
    expect(found[0]!.message).toMatch(
      /"stride": 6 is not below 6, .*max_length 16 minus 3 special tokens, halved for a pair/,
    );
    expect(diagnose({ max_length: 16, stride: 5 }).found).toEqual([]);
    // only_second cuts one text: up to 13 tokens.
    expect(diagnose({ max_length: 16, stride: 12, truncation_strategy: 'only_second' }).found).toEqual([]);
    // A single text (the embedding sample, 2 specials): cut to 14.
    expect(diagnose({ max_length: 16, stride: 14 }, EMBEDDING).found.map((d) => d.code)).toEqual(['TS-W090']);
    expect(diagnose({ max_length: 16, stride: 13 }, EMBEDDING).found).toEqual([]);
  });

  it('TS-W091: max_length below the special tokens (HF skips the exact cut)', () => {
    const { text, found } = diagnose({ max_length: 2 });
    expect(found.map((d) => [d.code, d.severity, covered(text, d)])).toEqual([['TS-W091', 'warning', '2']]);
    expect(found[0]!.message).toContain('below the 3 special tokens the tokenizer adds to a pair');
    expect(diagnose({ max_length: 2 }, EMBEDDING).found).toEqual([]); // 2 = a single text's specials
  });
});

describe('the embedding and reranker preset families', () => {
  it('are offered to New Pipeline (VS Code and `triton-studio new`) and make pipelines that validate clean', () => {
    const ids = presetFamilies().map((f) => f.id);
    expect(ids).toEqual(expect.arrayContaining(['embedding-onnx', 'reranker-onnx']));
    for (const id of ['embedding-onnx', 'reranker-onnx']) {
      const pipeline = pipelineFromPresets(id, { tokenizer: 'bert-base-uncased' });
      const text = JSON.stringify(pipeline);
      const errors = validatePipeline(text, resolve(ROOT, 'samples/p.pipeline.json')).diagnostics;
      expect(errors).toEqual([]);
      expect(pipeline.wires).toContainEqual({ from: 'tokenize.token_type_ids', to: 'model.token_type_ids' });
    }
    const reranker = pipelineFromPresets('reranker-onnx');
    expect(reranker.inputs.map((p) => p.name)).toEqual(['text_input', 'text_pair']);
    expect(pipelineFromPresets('embedding-onnx').outputs.map((p) => p.name)).toEqual(['sentence_embedding']);
  });
});
