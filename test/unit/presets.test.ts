/**
 * Every preset (and every sample's ensemble interface) against the published tensor interfaces of
 * the systems users replace (TensorRT-LLM's and FasterTransformer's templates, vLLM's backend, the
 * ONNX encoder). The tables below are transcribed from the team's interface notes; where those name
 * a tensor without its dtype or dims, the value comes from the public template itself and the port
 * says so (`from: 'template'`). A preset that differs
 * on purpose must name the difference in DEVIATIONS (and docs/PIPELINE.md explains it): any
 * other difference fails.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateRepository, validatePipeline, type Pipeline, type Port } from '../../generator/index.js';
import { findPreset, listPresets } from '../../generator/presets/index.js';

const SAMPLES = resolve(__dirname, '../../samples');

interface Spec {
  name: string;
  dataType: string;
  dims: number[];
  optional?: boolean;
  /** TRITON.md names the tensor but not this dtype/dims: taken from the public template. */
  from?: 'template';
}

interface Interface {
  inputs: Spec[];
  outputs: Spec[];
}

const t = (name: string, dataType: string, dims: number[], extra: Partial<Spec> = {}): Spec => ({
  name,
  dataType,
  dims,
  ...extra,
});
const opt = { optional: true };
const optT = { optional: true, from: 'template' as const };
const T = { from: 'template' as const };

// --- TRITON.md, "Interfaces users replace" ------------------------------------------------------

/** TensorRT-LLM inflight_batcher_llm. */
const TRTLLM = {
  preprocessing: {
    inputs: [
      t('QUERY', 'STRING', [1]),
      t('REQUEST_OUTPUT_LEN', 'INT32', [1]),
      t('BAD_WORDS_DICT', 'STRING', [-1], opt),
      t('STOP_WORDS_DICT', 'STRING', [-1], opt),
      t('EMBEDDING_BIAS_WORDS', 'STRING', [-1], optT),
      t('EMBEDDING_BIAS_WEIGHTS', 'FP32', [-1], optT),
      t('END_ID', 'INT32', [1], opt),
      t('PAD_ID', 'INT32', [1], opt),
    ],
    outputs: [
      t('INPUT_ID', 'INT32', [-1]),
      t('REQUEST_INPUT_LEN', 'INT32', [1]),
      t('BAD_WORDS_IDS', 'INT32', [2, -1]),
      t('STOP_WORDS_IDS', 'INT32', [2, -1]),
      t('EMBEDDING_BIAS', 'FP32', [-1], T),
      t('REQUEST_OUTPUT_LEN', 'INT32', [-1], T),
      t('OUT_END_ID', 'INT32', [1], T),
      t('OUT_PAD_ID', 'INT32', [1], T),
    ],
  },
  postprocessing: {
    inputs: [t('TOKENS_BATCH', 'INT32', [-1, -1]), t('SEQUENCE_LENGTH', 'INT32', [-1])],
    outputs: [t('OUTPUT', 'STRING', [-1])],
  },
  /** TRITON.md lists the tensorrt_llm step only through the ensemble; these are the template's. */
  model: {
    inputs: [
      t('input_ids', 'INT32', [-1], T),
      t('input_lengths', 'INT32', [1], T),
      t('request_output_len', 'INT32', [1], T),
      t('end_id', 'INT32', [1], optT),
      t('pad_id', 'INT32', [1], optT),
      t('bad_words_list', 'INT32', [2, -1], optT),
      t('stop_words_list', 'INT32', [2, -1], optT),
      t('embedding_bias', 'FP32', [-1], optT),
      t('beam_width', 'INT32', [1], optT),
      t('temperature', 'FP32', [1], optT),
      t('runtime_top_k', 'INT32', [1], optT),
      t('runtime_top_p', 'FP32', [1], optT),
      t('repetition_penalty', 'FP32', [1], optT),
      t('random_seed', 'UINT64', [1], optT),
      t('streaming', 'BOOL', [1], optT),
    ],
    outputs: [
      t('output_ids', 'INT32', [-1, -1], T),
      t('sequence_length', 'INT32', [-1], T),
      t('cum_log_probs', 'FP32', [-1], T),
      t('output_log_probs', 'FP32', [-1, -1], T),
    ],
  },
  /** `text_input` STRING[1], `max_tokens` INT32[1], optional stream / bad_words / stop_words / sampling → text_output. */
  ensemble: {
    inputs: [
      t('text_input', 'STRING', [1]),
      t('max_tokens', 'INT32', [1]),
      t('bad_words', 'STRING', [-1], opt),
      t('stop_words', 'STRING', [-1], opt),
      t('end_id', 'INT32', [1], optT),
      t('pad_id', 'INT32', [1], optT),
      t('embedding_bias_words', 'STRING', [-1], optT),
      t('embedding_bias_weights', 'FP32', [-1], optT),
      t('stream', 'BOOL', [1], optT),
      t('temperature', 'FP32', [1], optT),
      t('top_p', 'FP32', [1], optT),
    ],
    outputs: [t('text_output', 'STRING', [-1], T)],
  },
} satisfies Record<string, Interface>;

/** FasterTransformer GPT-J (codegen-350M-mono-gptj). */
const FT = {
  preprocessing: {
    inputs: [
      t('QUERY', 'STRING', [-1]),
      t('BAD_WORDS_DICT', 'STRING', [-1]),
      t('STOP_WORDS_DICT', 'STRING', [-1]),
      t('REQUEST_OUTPUT_LEN', 'UINT32', [-1]),
    ],
    outputs: [
      t('INPUT_ID', 'UINT32', [-1]),
      t('REQUEST_INPUT_LEN', 'UINT32', [1]),
      t('BAD_WORDS_IDS', 'INT32', [2, -1]),
      t('STOP_WORDS_IDS', 'INT32', [2, -1]),
      t('REQUEST_OUTPUT_LEN', 'UINT32', [-1], T),
    ],
  },
  postprocessing: {
    inputs: [t('TOKENS_BATCH', 'UINT32', [-1, -1])],
    outputs: [t('OUTPUT', 'STRING', [-1, -1])],
  },
  model: {
    inputs: [
      t('input_ids', 'UINT32', [-1]),
      t('input_lengths', 'UINT32', [1], T),
      t('request_output_len', 'UINT32', [-1], T),
      t('runtime_top_k', 'UINT32', [1], optT),
      t('runtime_top_p', 'FP32', [1], optT),
      t('temperature', 'FP32', [1], optT),
    ],
    outputs: [t('output_ids', 'UINT32', [-1, -1], T), t('sequence_length', 'UINT32', [-1], T)],
  },
  /** `INPUT_0` prompt, `INPUT_1` output length, `INPUT_2/3` bad/stop words → `OUTPUT_0`, `sequence_length`. */
  ensemble: {
    inputs: [
      t('INPUT_0', 'STRING', [1], T),
      t('INPUT_1', 'UINT32', [1], T),
      t('INPUT_2', 'STRING', [-1], T),
      t('INPUT_3', 'STRING', [-1], T),
      t('runtime_top_k', 'UINT32', [1], optT),
      t('temperature', 'FP32', [1], optT),
    ],
    outputs: [t('OUTPUT_0', 'STRING', [-1, -1], T), t('sequence_length', 'UINT32', [-1], T)],
  },
} satisfies Record<string, Interface>;

/** vLLM: one decoupled model, max_batch_size 0. */
const VLLM: Interface = {
  inputs: [
    t('text_input', 'STRING', [1], T),
    t('stream', 'BOOL', [1], optT),
    t('sampling_parameters', 'STRING', [1], optT),
  ],
  outputs: [t('text_output', 'STRING', [-1], T)],
};

/** Encoder classifier (DistilBERT): tokenizer → input_ids, attention_mask INT64[-1] → logits. */
const DISTILBERT = {
  tokenize: {
    inputs: [],
    outputs: [t('input_ids', 'INT64', [-1]), t('attention_mask', 'INT64', [-1])],
  },
  model: {
    inputs: [t('input_ids', 'INT64', [-1]), t('attention_mask', 'INT64', [-1])],
    outputs: [t('logits', 'FP32', [2], T)],
  },
} satisfies Record<string, Interface>;

/**
 * BERT-family encoders with type ids, as their ONNX exports present them (TRITON.md's encoder
 * line plus `token_type_ids`): bge-small-en-v1.5 / e5-small-v2 through sentence-transformers'
 * export (pooled `sentence_embedding`, 384 wide), ms-marco-MiniLM-L-6-v2 (one relevance logit).
 */
const BERT_ENCODER_IDS = [
  t('input_ids', 'INT64', [-1]),
  t('attention_mask', 'INT64', [-1]),
  t('token_type_ids', 'INT64', [-1]),
];
const ENCODERS = {
  tokenize: { inputs: [], outputs: BERT_ENCODER_IDS },
  embedding: { inputs: BERT_ENCODER_IDS, outputs: [t('sentence_embedding', 'FP32', [384], T)] },
  reranker: { inputs: BERT_ENCODER_IDS, outputs: [t('logits', 'FP32', [1], T)] },
} satisfies Record<string, Interface>;

// --- what each preset / sample is compared with, and where it differs on purpose ----------------

interface Case {
  /** A preset id, or `sample:<folder>` for that sample's ensemble inputs/outputs. */
  subject: string;
  expected: Interface;
  /** Every intended difference, in the words `compare` prints, each with its reason. */
  deviations?: Record<string, string>;
}

const FT_ENSEMBLE_KEPT_GENERATE_NAMES =
  'the sample keeps text_input / max_tokens / text_output so Triton’s generate endpoint and `triton-studio prompt` work; the FT presets still build the original INPUT_0..3 → OUTPUT_0 ensemble (see the drop-in test below)';

const CASES: Case[] = [
  { subject: 'tensorrt-llm/preprocessing', expected: TRTLLM.preprocessing },
  { subject: 'tensorrt-llm/postprocessing', expected: TRTLLM.postprocessing },
  {
    subject: 'tensorrt-llm/model',
    expected: TRTLLM.model,
  },
  // The llama.cpp step speaks TensorRT-LLM's model interface, so its pre/post presets wire to it.
  {
    subject: 'llama-cpp/model',
    expected: TRTLLM.model,
    deviations: {
      'missing input repetition_penalty':
        'not applied by the llama.cpp step yet (a config declaring it is still served)',
      'missing output cum_log_probs': 'the llama.cpp step returns ids and lengths, no log probabilities',
      'missing output output_log_probs': 'the llama.cpp step returns ids and lengths, no log probabilities',
    },
  },
  { subject: 'sample:gpt2-tensorrt-llm', expected: TRTLLM.ensemble },
  {
    subject: 'sample:llama2-tensorrt-llm',
    expected: TRTLLM.ensemble,
    deviations: {
      'extra input system_prompt STRING[1] optional':
        'the chat-template hook’s optional system prompt (a HookInputs field of hooks/llama2-chat.ts)',
    },
  },
  {
    subject: 'fastertransformer-gptj/preprocessing',
    expected: FT.preprocessing,
    deviations: {
      'BAD_WORDS_DICT: optional true, expected false':
        'word lists may be left out (the native step then sends empty lists); FT clients that send them are unaffected',
      'STOP_WORDS_DICT: optional true, expected false':
        'word lists may be left out (the native step then sends empty lists); FT clients that send them are unaffected',
    },
  },
  {
    subject: 'fastertransformer-gptj/postprocessing',
    expected: FT.postprocessing,
    deviations: {
      'extra input SEQUENCE_LENGTH UINT32[-1] optional':
        'optional: when wired, each beam is cut at its length instead of decoding padding',
    },
  },
  {
    subject: 'fastertransformer-gptj/model',
    expected: FT.model,
    deviations: Object.fromEntries(
      [
        'len_penalty FP32[1]',
        'repetition_penalty FP32[1]',
        'random_seed UINT64[1]',
        'is_return_log_probs BOOL[1]',
        'beam_width UINT32[1]',
        'start_id UINT32[1]',
        'end_id UINT32[1]',
        'bad_words_list INT32[2,-1]',
        'stop_words_list INT32[2,-1]',
      ]
        .map((p) => `extra input ${p} optional`)
        .concat(['extra output cum_log_probs FP32[-1]', 'extra output output_log_probs FP32[-1,-1]'])
        .map((k) => [k, 'the GPT-J template’s further optional tensors (“…” in TRITON.md)']),
    ),
  },
  // The drop-in for existing FasterTransformer clients: the FT ensemble exactly, from the presets.
  { subject: 'sample:codegen-fastertransformer/codegen-ft-dropin', expected: FT.ensemble },
  {
    subject: 'sample:codegen-fastertransformer',
    expected: FT.ensemble,
    deviations: {
      'missing input INPUT_0': FT_ENSEMBLE_KEPT_GENERATE_NAMES,
      'missing input INPUT_1': FT_ENSEMBLE_KEPT_GENERATE_NAMES,
      'missing input INPUT_2': FT_ENSEMBLE_KEPT_GENERATE_NAMES,
      'missing input INPUT_3': FT_ENSEMBLE_KEPT_GENERATE_NAMES,
      'missing input runtime_top_k': FT_ENSEMBLE_KEPT_GENERATE_NAMES,
      'missing output OUTPUT_0': FT_ENSEMBLE_KEPT_GENERATE_NAMES,
      'extra input text_input STRING[1]': FT_ENSEMBLE_KEPT_GENERATE_NAMES,
      'extra input max_tokens INT32[1]':
        'the generate endpoint sends max_tokens as INT32; the preprocessing step takes INT32 and hands FasterTransformer UINT32 (FT’s own INPUT_1 / REQUEST_OUTPUT_LEN is UINT32[-1])',
      'extra input bad_words STRING[-1] optional': FT_ENSEMBLE_KEPT_GENERATE_NAMES,
      'extra input stop_words STRING[-1] optional': FT_ENSEMBLE_KEPT_GENERATE_NAMES,
      'extra input top_k UINT32[1] optional': FT_ENSEMBLE_KEPT_GENERATE_NAMES,
      'extra output text_output STRING[-1,-1]': FT_ENSEMBLE_KEPT_GENERATE_NAMES,
    },
  },
  { subject: 'vllm/model', expected: VLLM, deviations: vllmExtra() },
  { subject: 'sample:gpt2-vllm', expected: VLLM },
  {
    subject: 'distilbert-onnx/tokenize',
    expected: DISTILBERT.tokenize,
    deviations: {
      'extra input TEXT STRING[1]':
        'TRITON.md names no tokenizer input for the encoder; TEXT is this preset’s',
    },
  },
  { subject: 'distilbert-onnx/model', expected: DISTILBERT.model },
  {
    subject: 'embedding-onnx/tokenize',
    expected: ENCODERS.tokenize,
    deviations: {
      'extra input TEXT STRING[1]': 'the encoder interface names no tokenizer input; TEXT is this preset’s',
    },
  },
  { subject: 'embedding-onnx/model', expected: ENCODERS.embedding },
  {
    subject: 'reranker-onnx/tokenize',
    expected: ENCODERS.tokenize,
    deviations: {
      'extra input TEXT STRING[1]': 'the query; the encoder interface names no tokenizer input',
      'extra input TEXT_PAIR STRING[1]': 'the passage, encoded with the pair template',
    },
  },
  { subject: 'reranker-onnx/model', expected: ENCODERS.reranker },
  // sim-llm is the project's stand-in: DESIGN.md gives it FasterTransformer's tensor interface.
  {
    subject: 'sim-llm/model',
    expected: {
      inputs: FT.model.inputs.filter((p) => !p.optional),
      outputs: FT.model.outputs,
    },
  },
  {
    subject: 'sim-llm/preprocessing',
    expected: FT.preprocessing,
    deviations: {
      'QUERY: dims [1], expected [-1]': 'one prompt per row, as the generate endpoint sends text_input',
      'REQUEST_OUTPUT_LEN: dataType INT32, expected UINT32':
        'takes the generate endpoint’s INT32 max_tokens; the output REQUEST_OUTPUT_LEN is UINT32 as FT wants',
      'REQUEST_OUTPUT_LEN: dims [1], expected [-1]': 'one length per row, like max_tokens',
      'missing input BAD_WORDS_DICT': 'sim-llm ignores word lists',
      'missing input STOP_WORDS_DICT': 'sim-llm ignores word lists',
      'missing output BAD_WORDS_IDS': 'sim-llm ignores word lists',
      'missing output STOP_WORDS_IDS': 'sim-llm ignores word lists',
    },
  },
  {
    subject: 'sim-llm/postprocessing',
    expected: FT.postprocessing,
    deviations: {
      'extra input SEQUENCE_LENGTH UINT32[-1]':
        'sim-llm always sends lengths; each beam is cut at its length',
      'OUTPUT: dims [-1], expected [-1,-1]': 'one string per beam, as TensorRT-LLM’s OUTPUT STRING[-1]',
    },
  },
];

function vllmExtra(): Record<string, string> {
  return {
    'extra input exclude_input_in_output BOOL[1] optional':
      'newer vllm_backend releases accept it (answer without the prompt); optional, so TRITON.md’s clients are unaffected',
  };
}

// --- comparison -----------------------------------------------------------------------------------

const fmtDims = (d: number[]) => `[${d.join(',')}]`;
const fmtPort = (p: { name: string; dataType: string; dims: number[]; optional?: boolean }) =>
  `${p.name} ${p.dataType}${fmtDims(p.dims)}${p.optional ? ' optional' : ''}`;

/** Every difference between actual ports and the TRITON.md table, one line each. */
function compare(actual: Interface | { inputs: Port[]; outputs: Port[] }, expected: Interface): string[] {
  const out: string[] = [];
  for (const side of ['inputs', 'outputs'] as const) {
    const word = side === 'inputs' ? 'input' : 'output';
    const have = actual[side];
    for (const e of expected[side]) {
      const a = have.find((p) => p.name === e.name);
      if (!a) {
        out.push(`missing ${word} ${e.name}`);
        continue;
      }
      if (a.dataType !== e.dataType) out.push(`${e.name}: dataType ${a.dataType}, expected ${e.dataType}`);
      if (fmtDims(a.dims) !== fmtDims(e.dims))
        out.push(`${e.name}: dims ${fmtDims(a.dims)}, expected ${fmtDims(e.dims)}`);
      if (Boolean(a.optional) !== Boolean(e.optional))
        out.push(`${e.name}: optional ${Boolean(a.optional)}, expected ${Boolean(e.optional)}`);
    }
    for (const a of have) {
      if (!expected[side].some((e) => e.name === a.name)) out.push(`extra ${word} ${fmtPort(a)}`);
    }
  }
  return out;
}

function actualOf(subject: string): { inputs: Port[]; outputs: Port[] } {
  if (subject.startsWith('sample:')) {
    const [sample = '', file = sample] = subject.slice('sample:'.length).split('/');
    const p = JSON.parse(readFileSync(join(SAMPLES, sample, `${file}.pipeline.json`), 'utf8')) as Pipeline;
    return { inputs: p.inputs, outputs: p.outputs };
  }
  const preset = findPreset(subject);
  if (!preset) throw new Error(`no preset ${subject}`);
  return { inputs: preset.template.inputs ?? [], outputs: preset.template.outputs ?? [] };
}

describe('presets and samples against the interfaces in TRITON.md', () => {
  it('covers every preset', () => {
    const covered = new Set(CASES.map((c) => c.subject));
    expect(
      listPresets()
        .filter((p) => !covered.has(p.id))
        .map((p) => p.id),
    ).toEqual([]);
  });

  it.each(CASES)('$subject', ({ subject, expected, deviations = {} }) => {
    const differences = compare(actualOf(subject), expected);
    // Each difference must be a named, explained deviation; a named deviation that no longer
    // happens must be removed from the list (and from docs/PIPELINE.md).
    expect(differences.filter((d) => !(d in deviations))).toEqual([]);
    expect(Object.keys(deviations).filter((d) => !differences.includes(d))).toEqual([]);
  });
});

describe('preset settings TRITON.md names', () => {
  const tpl = (id: string) => findPreset(id)!.template;

  it('TensorRT-LLM: add_special_tokens defaults to true, skip_special_tokens on the postprocessing', () => {
    expect(tpl('tensorrt-llm/preprocessing').addSpecialTokens).toBe(true);
    expect(tpl('tensorrt-llm/postprocessing').skipSpecialTokens).toBe(true);
  });

  it('FasterTransformer GPT-J: max_batch_size 1024 on every step', () => {
    for (const id of ['preprocessing', 'model', 'postprocessing'])
      expect(tpl(`fastertransformer-gptj/${id}`).maxBatchSize).toBe(1024);
  });

  it('vLLM: backend vllm, decoupled, max_batch_size 0', () => {
    expect(tpl('vllm/model')).toMatchObject({ backend: 'vllm', decoupled: true, maxBatchSize: 0 });
  });

  it('the FasterTransformer drop-in pipeline validates: the FT presets wire up to the original FT ensemble', () => {
    const file = join(SAMPLES, 'codegen-fastertransformer', 'codegen-ft-dropin.pipeline.json');
    const r = validatePipeline(readFileSync(file, 'utf8'), file);
    expect(r.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message)).toEqual([]);
  });
});

describe("a step's own fields override its preset's, backend and platform as one choice", () => {
  const file = join(SAMPLES, 'distilbert-onnx', 'distilbert-onnx.pipeline.json');
  /** The DistilBERT sample with its model step changed by `edit`: errors, and the step's config.pbtxt. */
  function withModelStep(edit: Record<string, unknown>) {
    const p = JSON.parse(readFileSync(file, 'utf8')) as Pipeline;
    const step = p.steps.find((s) => s.kind === 'model')!;
    Object.assign(step, edit, { files: [] });
    const dir = mkdtempSync(join(tmpdir(), 'ts-override-'));
    cpSync(join(SAMPLES, 'distilbert-onnx', 'steps'), join(dir, 'steps'), { recursive: true }); // the label step
    try {
      const pipelinePath = join(dir, 'p.pipeline.json');
      writeFileSync(pipelinePath, JSON.stringify(p));
      const r = generateRepository({ pipelinePath, outDir: join(dir, 'repo') });
      const errors = r.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code} ${d.message}`);
      const config = join(dir, 'repo', step.name, 'config.pbtxt');
      return { errors, config: existsSync(config) ? readFileSync(config, 'utf8') : '' };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('"backend": "sim_llm" on a platform preset (onnxruntime_onnx) is the one line the CPU stand-in needs', () => {
    const r = withModelStep({ backend: 'sim_llm' });
    expect(r.errors).toEqual([]);
    expect(r.config).toContain('backend: "sim_llm"');
    expect(r.config).not.toContain('platform');
    expect(r.config).toContain('name: "attention_mask"'); // the preset's ports stay
  });

  it('"platform": null takes the preset\'s platform away; a backend then completes the step', () => {
    expect(withModelStep({ platform: null, backend: 'sim_llm' }).errors).toEqual([]);
    expect(withModelStep({ platform: null }).errors).toEqual([
      expect.stringMatching(/^TS-E054 Step "distilbert" needs a "backend"/),
    ]);
  });

  it('a step that sets both itself is still told to keep one', () => {
    expect(withModelStep({ platform: 'onnxruntime_onnx', backend: 'sim_llm' }).errors).toEqual([
      expect.stringMatching(/^TS-E054 .*sets both "backend" and "platform"/),
    ]);
  });
});
