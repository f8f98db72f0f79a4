/**
 * The config.pbtxt reader/writer: round trips of real-world configs, exact string escaping,
 * errors with line and column, and the protobuf-JSON form the repository API takes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  modelConfigFromJson,
  modelConfigToJson,
  parsePbtxt,
  printPbtxt,
  type ModelConfig,
} from '../../generator/index.js';

const FIXTURES = resolve(__dirname, '../fixtures/pbtxt');
const fixtureFiles = readdirSync(FIXTURES).filter((f) => f.endsWith('.pbtxt'));
/** Every config.pbtxt of the golden repositories (what the generator writes for each sample). */
const GOLDEN = resolve(__dirname, '../fixtures/repositories/golden');
const goldenFiles = readdirSync(GOLDEN, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('config.pbtxt'))
  .sort();
/** Round-tripped configs: hand-collected real-world ones, then the generator's golden output. */
const roundTripFiles = [
  ...fixtureFiles.map((f) => ({ label: f, path: join(FIXTURES, f) })),
  ...goldenFiles.map((f) => ({ label: `golden/${f}`, path: join(GOLDEN, f) })),
];

function parseOk(text: string): ModelConfig {
  const r = parsePbtxt(text);
  expect(r.diagnostics).toEqual([]);
  return r.config!;
}

function errorOf(text: string) {
  const r = parsePbtxt(text, 'm/config.pbtxt');
  expect(r.config).toBeUndefined();
  expect(r.diagnostics).toHaveLength(1);
  const d = r.diagnostics[0]!;
  expect(d.code).toBe('TS-E070');
  return { line: d.range.start.line + 1, column: d.range.start.column + 1, message: d.message };
}

describe('pbtxt round trip of real-world configs', () => {
  it('has a fixture for every seed system', () => {
    expect(fixtureFiles.length).toBeGreaterThanOrEqual(10);
  });

  it('finds the config.pbtxt files of every golden repository (steps and ensemble)', () => {
    const samples = new Set(goldenFiles.map((f) => f.split(/[\\/]/)[0]));
    expect([...samples].sort()).toEqual(readdirSync(GOLDEN).sort());
    expect(goldenFiles.length).toBeGreaterThanOrEqual(2 * samples.size);
  });

  it.each(goldenFiles)('golden/%s: printing its config gives the file back byte for byte', (file) => {
    const text = readFileSync(join(GOLDEN, file), 'utf8');
    const body = text.replace(/^(#.*\n)+\n?/, ''); // the generated-file header
    expect(body).not.toBe(text);
    expect(printPbtxt(parseOk(text))).toBe(body);
  });

  it.each(roundTripFiles)(
    '$label: parse → print → parse gives the same config, and printing is stable',
    ({ path }) => {
      const first = parseOk(readFileSync(path, 'utf8'));
      const printed = printPbtxt(first);
      const second = parseOk(printed);
      expect(second).toEqual(first);
      expect(printPbtxt(second)).toBe(printed);
    },
  );

  it('reads every syntax form protobuf text format allows', () => {
    const c = parseOk(readFileSync(join(FIXTURES, 'ft_gptj_fastertransformer.pbtxt'), 'utf8'));
    expect(c.model_transaction_policy).toEqual({ decoupled: false }); // `< … >` and `False`
    expect(c.input![0]).toEqual({ name: 'input_ids', data_type: 'TYPE_UINT32', dims: [-1] }); // `dims: -1`
    expect(c.input!.map((i) => i.name)).toContain('stop_words_list'); // `input { }` repeated one by one
    expect(c.parameters!.model_type).toEqual({ string_value: 'GPT-J' });
    const t = parseOk(readFileSync(join(FIXTURES, 'tensorrt_llm.pbtxt'), 'utf8'));
    expect(t.input![1]!.reshape).toEqual({ shape: [] });
    expect(t.dynamic_batching).toEqual({
      preferred_batch_size: [64],
      max_queue_delay_microseconds: 0,
      default_queue_policy: { max_queue_size: 0 },
    });
  });

  it('reads maps with integer keys and nested maps', () => {
    const c = parseOk(readFileSync(join(FIXTURES, 'onnx_bert.pbtxt'), 'utf8'));
    expect(c.dynamic_batching!.priority_queue_policy).toEqual({
      '1': {
        timeout_action: 'DELAY',
        default_timeout_microseconds: 100000,
        allow_timeout_override: true,
        max_queue_size: 64,
      },
    });
    expect(c.model_warmup).toEqual([
      {
        name: 'short sentence',
        batch_size: 1,
        inputs: {
          input_ids: { data_type: 'TYPE_INT64', dims: [16], zero_data: true },
          attention_mask: { data_type: 'TYPE_INT64', dims: [16], random_data: true },
        },
      },
    ]);
  });

  it('keeps 64-bit integers beyond 2^53 exactly', () => {
    const c = parseOk('dynamic_batching { max_queue_delay_microseconds: 18446744073709551615 }');
    expect(c.dynamic_batching!.max_queue_delay_microseconds).toBe(18446744073709551615n);
    expect(printPbtxt(c)).toContain('max_queue_delay_microseconds: 18446744073709551615');
  });

  it('concatenates adjacent strings and decodes C escapes, octal and hex bytes as UTF-8', () => {
    const c = parseOk(`name: "a" 'b' "\\"q\\" \\\\ \\n\\t\\101\\x42 \\303\\251"`);
    expect(c.name).toBe('ab"q" \\ \n\tAB é');
  });
});

describe('pbtxt string escaping (hostile names)', () => {
  const hostile = [
    'quote " and \' apostrophe',
    'back\\slash\\',
    'new\nline and \r carriage',
    'comment */ /* and #include <evil.h>',
    '# not a comment',
    'ünïcødé 名前 🚀',
    'nul \u0000 bell \u0007 del \u007f',
    '${template_placeholder}',
  ];
  it.each(hostile)('%j reads back exactly and stays on one line', (value) => {
    const config: ModelConfig = {
      name: value,
      input: [{ name: value, data_type: 'TYPE_STRING', dims: [1] }],
      parameters: { [value]: { string_value: value } },
    };
    const text = printPbtxt(config, { header: [`Generated by Triton Studio from ${value}`] });
    expect(parseOk(text)).toEqual(config);
    expect(
      text
        .split('\n')
        .filter((l) => l.includes('name: '))
        .every((l) => /^\s*name: ".*"$/.test(l)),
    ).toBe(true);
    expect(text.split('\n')[0]).toMatch(/^# Generated by Triton Studio/);
    expect(text.split('\n')[1]).toBe('');
  });
});

describe('pbtxt syntax errors carry line and column', () => {
  it('unknown field, with a suggestion (Triton rejects unknown fields too)', () => {
    expect(errorOf('name: "m"\nmax_batch_sise: 4\n')).toEqual({
      line: 2,
      column: 1,
      message:
        'ModelConfig has no field "max_batch_sise" (did you mean "max_batch_size"?); Triton rejects unknown fields.',
    });
  });

  it('a field of a nested message that does not exist there', () => {
    const e = errorOf('input [\n  {\n    name: "x"\n    dtype: TYPE_FP32\n  }\n]\n');
    expect(e).toMatchObject({ line: 4, column: 5 });
    expect(e.message).toContain('ModelInput has no field "dtype" (did you mean "data_type"?)');
  });

  it('missing ":" before a scalar', () => {
    expect(errorOf('name "m"')).toMatchObject({ line: 1, column: 6, message: 'expected ":" after "name".' });
  });

  it('unterminated string', () => {
    expect(errorOf('name: "m\nbackend: "x"')).toMatchObject({ line: 1, column: 7 });
  });

  it('unknown enum value, with a suggestion', () => {
    const e = errorOf('input [ { name: "x" data_type: TYPE_FLOAT32 dims: [1] } ]');
    expect(e.column).toBe(32);
    expect(e.message).toContain('"TYPE_FLOAT32" is not a DataType value');
  });

  it('integer out of range and wrong value types', () => {
    expect(errorOf('max_batch_size: 3000000000').message).toContain(
      'out of range for "max_batch_size" (int32)',
    );
    expect(errorOf('max_batch_size: "8"').message).toContain('needs an integer (int32)');
    expect(errorOf('name: 5').message).toContain('needs a quoted string');
    expect(errorOf('response_cache { enable: yes }').message).toContain('needs true or false');
  });

  it('a non-repeated field set twice, and two members of one oneof', () => {
    expect(errorOf('name: "a"\nname: "b"')).toMatchObject({
      line: 2,
      column: 1,
      message: 'field "name" is set more than once.',
    });
    expect(errorOf('dynamic_batching { }\nsequence_batching { }').message).toContain(
      '"sequence_batching" and "dynamic_batching" are alternatives (oneof scheduling_choice)',
    );
  });

  it('unclosed message and stray characters', () => {
    expect(errorOf('input [ { name: "x"\n')).toMatchObject({ line: 2, column: 1 });
    expect(errorOf('name: "a" @')).toMatchObject({
      line: 1,
      column: 11,
      message: 'unexpected character "@".',
    });
  });
});

describe('unfilled template placeholders (fill_template.py syntax)', () => {
  const template = [
    'name: "tensorrt_llm"',
    'dynamic_batching {',
    '  preferred_batch_size: [ ${triton_max_batch_size} ]',
    '  max_queue_delay_microseconds: ${max_queue_delay_microseconds}',
    '  default_queue_policy: { max_queue_size: ${max_queue_size} }',
    '}',
    'parameters: { key: "gpt_model_path" value: { string_value: "${engine_dir}" } }',
  ].join('\n');

  it('each gets its own TS-E072 naming it, at its place; placeholders inside strings are values', () => {
    const r = parsePbtxt(template);
    expect(r.config).toBeUndefined();
    expect(
      r.diagnostics.map((d) => [
        d.code,
        d.range.start.line + 1,
        d.range.start.column + 1,
        d.message.split(':')[0],
      ]),
    ).toEqual([
      ['TS-E072', 3, 27, '${triton_max_batch_size} is an unfilled template placeholder'],
      ['TS-E072', 4, 33, '${max_queue_delay_microseconds} is an unfilled template placeholder'],
      ['TS-E072', 5, 43, '${max_queue_size} is an unfilled template placeholder'],
    ]);
    expect(r.diagnostics[2]!.message).toContain('triton-studio import --set max_queue_size=VALUE');
  });

  it('a syntax error after a placeholder is reported too', () => {
    const r = parsePbtxt('max_batch_size: ${n}\nbackend "x"');
    expect(r.diagnostics.map((d) => d.code)).toEqual(['TS-E072', 'TS-E070']);
  });
});

describe('protobuf JSON (the repository API `config` parameter)', () => {
  it.each(fixtureFiles)('%s: pbtxt → JSON → pbtxt keeps the config', (file) => {
    const config = parseOk(readFileSync(join(FIXTURES, file), 'utf8'));
    const json = modelConfigToJson(config);
    const back = modelConfigFromJson(JSON.parse(JSON.stringify(json)));
    expect(back).toEqual(config);
  });

  it('writes proto field names, enum names and maps as objects', () => {
    const config = parseOk(readFileSync(join(FIXTURES, 'trtllm_postprocessing.pbtxt'), 'utf8'));
    expect(modelConfigToJson(config)).toEqual({
      name: 'postprocessing',
      backend: 'python',
      max_batch_size: 64,
      input: [
        { name: 'TOKENS_BATCH', data_type: 'TYPE_INT32', dims: [-1, -1] },
        { name: 'SEQUENCE_LENGTH', data_type: 'TYPE_INT32', dims: [-1] },
      ],
      output: [{ name: 'OUTPUT', data_type: 'TYPE_STRING', dims: [-1] }],
      parameters: {
        tokenizer_dir: { string_value: '/models/llama-2-7b-hf' },
        skip_special_tokens: { string_value: 'true' },
      },
      instance_group: [{ count: 4, kind: 'KIND_CPU' }],
    });
  });

  it('writes 64-bit integers beyond 2^53 as strings, as proto JSON does', () => {
    const json = modelConfigToJson(
      parsePbtxt('dynamic_batching { max_queue_delay_microseconds: 9007199254740993 }').config!,
    );
    expect(json).toEqual({ dynamic_batching: { max_queue_delay_microseconds: '9007199254740993' } });
  });

  it('reads lowerCamelCase names and int64 strings (what Triton returns from v2/models/M/config)', () => {
    expect(
      modelConfigFromJson({
        name: 'm',
        maxBatchSize: 4,
        input: [{ name: 'x', dataType: 'TYPE_FP32', dims: ['-1', '3'] }],
      }),
    ).toEqual({
      name: 'm',
      max_batch_size: 4,
      input: [{ name: 'x', data_type: 'TYPE_FP32', dims: [-1, 3] }],
    });
  });

  it('rejects unknown fields and wrong types, naming the path', () => {
    expect(() => modelConfigFromJson({ input: [{ name: 'x', dtype: 'TYPE_FP32' }] })).toThrow(
      'config.input[0]: ModelInput has no field "dtype"',
    );
    expect(() => modelConfigFromJson({ max_batch_size: 1.5 })).toThrow(
      'config.max_batch_size must be an integer (int32)',
    );
    expect(() => modelConfigFromJson({ input: [{ data_type: 'FP32' }] })).toThrow(
      '"FP32" is not a DataType value',
    );
  });
});
