/**
 * importRepository on repositories laid out like the TensorRT-LLM and FasterTransformer templates
 * (Python pre/post-processing, TensorRT-LLM's Python BLS front-end beside the ensemble), on a
 * single-model vLLM repository, and on repositories Triton Studio generated itself (import then
 * generate gives the same configs back).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  formatDiagnostic,
  generateRepository,
  importRepository,
  validatePipeline,
  type Step,
} from '../../generator/index.js';
import { defaultTokenizerSearchDirs, resolveTokenizer } from '../../generator/pipeline/tokenizers.js';
import {
  ftRepository as ftLayout,
  layOutRepository,
  trtllmRepository as trtllmLayout,
  trtllmTemplateRepository,
  ftTemplateRepository,
  type TemplateModel,
} from '../fixtures/repositories/templates.js';
import { fillTemplate } from '../../generator/import/fillTemplate.js';

const SAMPLES = resolve(__dirname, '../../samples');
const LLAMA_DIR = dirname(resolveTokenizer('llama-2', __filename, defaultTokenizerSearchDirs()).file!);
const GPT2_FILE = resolveTokenizer('gpt2', __filename, defaultTokenizerSearchDirs()).file!;

let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'ts-import-'));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

/** Lays out `models` (folder → fixture config, with text replacements) as a repository. */
const repository = (models: Record<string, TemplateModel>): string =>
  layOutRepository(join(work, 'repo'), models);

const stepOf = (steps: Step[], name: string) => steps.find((s) => s.name === name)!;

/** inflight_batcher_llm: ensemble, Python pre/post-processing, tensorrt_llm, and tensorrt_llm_bls. */
const trtllmRepository = (tokenizerDir: string): string => trtllmLayout(join(work, 'repo'), tokenizerDir);

describe('importRepository: TensorRT-LLM inflight_batcher_llm layout', () => {
  it('turns the Python pre/post-processing into native steps using the tokenizer its tokenizer_dir names', () => {
    const out = join(work, 'llama.pipeline.json');
    const r = importRepository(trtllmRepository(LLAMA_DIR), { outFile: out });
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const p = r.pipeline!;
    expect(p.name).toBe('ensemble');
    expect(p.steps.map((s) => `${s.name}:${s.kind}`)).toEqual([
      'preprocessing:tokenize',
      'tensorrt_llm:model',
      'postprocessing:detokenize',
    ]);
    const pre = stepOf(p.steps, 'preprocessing');
    expect(resolve(work, pre.tokenizer!)).toBe(join(LLAMA_DIR, 'tokenizer.json'));
    expect(pre.addSpecialTokens).toBe(true);
    expect(pre.inputs!.map((i) => `${i.name}:${i.role}`)).toEqual([
      'QUERY:text',
      'REQUEST_OUTPUT_LEN:requestOutputLen',
      'BAD_WORDS_DICT:badWords',
      'STOP_WORDS_DICT:stopWords',
      'EMBEDDING_BIAS_WORDS:embeddingBiasWords',
      'EMBEDDING_BIAS_WEIGHTS:embeddingBiasWeights',
      'END_ID:endId',
      'PAD_ID:padId',
    ]);
    expect(pre.outputs!.map((o) => o.role)).toEqual([
      'inputIds',
      'inputLength',
      'badWordsIds',
      'stopWordsIds',
      'embeddingBias',
      'requestOutputLen',
      'endId',
      'padId',
    ]);
    expect(stepOf(p.steps, 'postprocessing').skipSpecialTokens).toBe(true);
    // The Python pool of 4 becomes one native instance (a streaming detokenize step needs one).
    expect(stepOf(p.steps, 'postprocessing').instanceGroups).toBeUndefined();
    expect(r.diagnostics.map((d) => `${d.severity} ${d.message}`)).toContain(
      'info Step "postprocessing" becomes a native detokenize step with one CPU instance instead of 4 Python instances.',
    );
  });

  it('keeps end_id / pad_id, and says which optional Python-only tensors the native step leaves out', () => {
    const r = importRepository(trtllmRepository(LLAMA_DIR), { outFile: join(work, 'p.pipeline.json') });
    const warning = r.diagnostics.find((d) => d.code === 'TS-W071')!;
    expect(warning.file).toBe(join(work, 'repo', 'preprocessing', 'config.pbtxt'));
    expect(warning.message).toBe(
      'Step "preprocessing" becomes a native tokenize step without DECODER_QUERY (no native equivalent; optional).',
    );
    // The native step has END_ID / PAD_ID roles now: the ensemble keeps end_id / pad_id and their wires.
    expect(r.pipeline!.inputs.map((i) => i.name)).toEqual([
      'text_input',
      'max_tokens',
      'bad_words',
      'stop_words',
      'end_id',
      'pad_id',
      'top_p',
      'stream',
    ]);
    expect(r.pipeline!.wires).toContainEqual({ from: 'end_id', to: 'preprocessing.END_ID' });
    expect(r.pipeline!.wires).toContainEqual({ from: 'pad_id', to: 'preprocessing.PAD_ID' });
  });

  it('gives each situation its own code, and each code one severity', () => {
    const r = importRepository(trtllmRepository(LLAMA_DIR), { outFile: join(work, 'p.pipeline.json') });
    const kept = importRepository(trtllmRepository('${tokenizer_dir}'), {
      outFile: join(work, 'k.pipeline.json'),
    });
    const seen = [...r.diagnostics, ...kept.diagnostics].map((d) => `${d.code} ${d.severity}`);
    expect(new Set(seen)).toEqual(
      new Set(['TS-W071 warning', 'TS-W072 info', 'TS-W073 info', 'TS-W002 warning', 'TS-W008 info']),
    );
    // A step parameter the native step no longer reads is listed with what replaced it.
    expect(r.diagnostics.filter((d) => d.code === 'TS-W008').map((d) => d.message)).toEqual(
      ['preprocessing', 'postprocessing'].map(
        (step) =>
          `Step "${step}": parameter tokenizer_dir (${LLAMA_DIR}) becomes the step's "tokenizer" ` +
          `(${stepOf(r.pipeline!.steps, step).tokenizer}); the native step ships a copy of it as 1/tokenizer.json ` +
          'instead of reading the folder at run time.',
      ),
    );
    expect(r.diagnostics.filter((d) => d.code === 'TS-W072').map((d) => d.message)).toContain(
      'Step "postprocessing" becomes a native detokenize step with one CPU instance instead of 4 Python instances.',
    );
  });

  it('keeps the model step whole: ports, batching, decoupled, parameters, and other fields as raw config', () => {
    const p = importRepository(trtllmRepository(LLAMA_DIR), {
      outFile: join(work, 'p.pipeline.json'),
    }).pipeline!;
    const trt = stepOf(p.steps, 'tensorrt_llm');
    expect(trt).toMatchObject({ backend: 'tensorrtllm', maxBatchSize: 64, decoupled: true });
    expect(trt.dynamicBatching).toEqual({ preferredBatchSizes: [64], maxQueueDelayMicroseconds: 0 });
    expect(trt.config).toEqual({ dynamic_batching: { default_queue_policy: { max_queue_size: 0 } } });
    expect(trt.inputs!.find((i) => i.name === 'input_lengths')).toEqual({
      name: 'input_lengths',
      dataType: 'INT32',
      dims: [1],
      reshape: [],
    });
    expect(trt.parameters!.gpt_model_path).toBe('/engines/llama-2-7b/1-gpu');
    expect(p.wires).toContainEqual({
      from: 'preprocessing.INPUT_ID',
      to: 'tensorrt_llm.input_ids',
      tensor: '_INPUT_ID',
    });
  });

  it('produces a pipeline that validates and generates', () => {
    const out = join(work, 'llama.pipeline.json');
    const r = importRepository(trtllmRepository(LLAMA_DIR), { outFile: out });
    writeFileSync(out, r.pipelineText!);
    const v = validatePipeline(r.pipelineText!, out);
    expect(v.diagnostics.filter((d) => d.severity !== 'info').map(formatDiagnostic)).toEqual([]);
    // As an ensemble, to read its wiring (a streaming pipeline's default is the orchestrator).
    const g = generateRepository({ pipelinePath: out, outDir: join(work, 'generated'), serving: 'ensemble' });
    expect(g.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const ens = readFileSync(join(work, 'generated', 'ensemble', 'config.pbtxt'), 'utf8');
    expect(ens).toContain('value: "_TOKENS_BATCH"');
  });

  it('keeps a Python step, with a warning, when tokenizer_dir is still a template placeholder', () => {
    const r = importRepository(trtllmRepository('${tokenizer_dir}'), {
      outFile: join(work, 'p.pipeline.json'),
    });
    const pre = stepOf(r.pipeline!.steps, 'preprocessing');
    expect(pre).toMatchObject({ kind: 'custom', backend: 'python', maxBatchSize: 64 });
    expect(pre.files).toEqual(['./repo/preprocessing/1/model.py']);
    expect(pre.parameters!.tokenizer_dir).toBe('${tokenizer_dir}');
    expect(
      r.diagnostics.filter((d) => d.code === 'TS-W002' && d.severity === 'warning').map((d) => d.message),
    ).toEqual([
      'Python tokenize step "preprocessing" is kept as a Python step: its "tokenizer_dir" parameter is still a template ' +
        'placeholder (${tokenizer_dir}); fill it in (fill_template.py) and import again.',
      'Python detokenize step "postprocessing" is kept as a Python step: its "tokenizer_dir" parameter is still a ' +
        'template placeholder (${tokenizer_dir}); fill it in (fill_template.py) and import again.',
    ]);
  });

  it('leaves the Python BLS front-end (tensorrt_llm_bls) out of the pipeline, with a note saying why', () => {
    const out = join(work, 'llama.pipeline.json');
    const r = importRepository(trtllmRepository(LLAMA_DIR), { outFile: out });
    expect(r.pipeline!.steps.map((s) => s.name)).not.toContain('tensorrt_llm_bls');
    expect(r.pipelineText).not.toContain('tensorrt_llm_bls');
    const notes = r.diagnostics.filter(
      (d) => d.file === join(work, 'repo', 'tensorrt_llm_bls', 'config.pbtxt'),
    );
    expect(notes.map((d) => `${d.severity} ${d.code}: ${d.message}`)).toEqual([
      'info TS-W073: Model "tensorrt_llm_bls" is left out of the pipeline: a Python front-end (BLS) that calls ' +
        'the models itself; send its requests (text_input, ...) to the ensemble "ensemble", which the pipeline ' +
        'generates without Python.',
    ]);
    // A note, not a warning: the import is complete and the pipeline generates without it.
    writeFileSync(out, r.pipelineText!);
    const g = generateRepository({ pipelinePath: out, outDir: join(work, 'generated') });
    expect(g.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).toEqual([]);
    expect(existsSync(join(work, 'generated', 'tensorrt_llm_bls'))).toBe(false);
  });

  it('notes every other model the chosen ensemble does not use (another ensemble, an unused model)', () => {
    const repo = trtllmRepository(LLAMA_DIR);
    layOutRepository(repo, {
      other_ensemble: { fixture: 'ft_gptj_ensemble.pbtxt' },
      spare_vllm: { fixture: 'vllm_model.pbtxt' },
    });
    const r = importRepository(repo, { outFile: join(work, 'p.pipeline.json'), ensemble: 'ensemble' });
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(
      r.diagnostics.filter((d) => d.message.includes('is left out')).map((d) => `${d.severity} ${d.message}`),
    ).toEqual([
      'info Model "other_ensemble" is left out of the pipeline: another ensemble; import it with --ensemble ' +
        'other_ensemble.',
      'info Model "spare_vllm" is left out of the pipeline: not used by the ensemble "ensemble".',
      expect.stringMatching(/^info Model "tensorrt_llm_bls" is left out of the pipeline: a Python front-end/),
    ]);
  });
});

describe('importRepository: FasterTransformer GPT-J layout', () => {
  // The preprocessing ships its tokenizer beside its code; the postprocessing only vocab files.
  const ftRepository = (): string => ftLayout(join(work, 'repo'), GPT2_FILE);

  it('recognises a tokenizer.json shipped in the model folder', () => {
    const r = importRepository(ftRepository(), { outFile: join(work, 'codegen.pipeline.json') });
    const pre = stepOf(r.pipeline!.steps, 'preprocessing');
    expect(pre.kind).toBe('tokenize');
    expect(pre.tokenizer).toBe('./repo/preprocessing/1/tokenizer.json');
    expect(pre.inputs!.find((i) => i.name === 'REQUEST_OUTPUT_LEN')).toMatchObject({
      dataType: 'UINT32',
      dims: [-1],
    });
  });

  it('keeps the postprocessing in Python (with its files) when nothing says which tokenizer it uses', () => {
    const r = importRepository(ftRepository(), { outFile: join(work, 'codegen.pipeline.json') });
    const post = stepOf(r.pipeline!.steps, 'postprocessing');
    expect(post).toMatchObject({ kind: 'custom', backend: 'python' });
    expect(post.files!.sort()).toEqual([
      './repo/postprocessing/1/gpt2-vocab.json',
      './repo/postprocessing/1/model.py',
    ]);
    expect(r.diagnostics.map((d) => d.message)).toContain(
      'Python detokenize step "postprocessing" is kept as a Python step: no "tokenizer_dir" parameter and no ' +
        'tokenizer.json in the model folder tell which tokenizer it uses.',
    );
  });

  it('maps the fastertransformer model with its angle-bracket and repeated-field config intact', () => {
    const p = importRepository(ftRepository(), { outFile: join(work, 'x.pipeline.json') }).pipeline!;
    const ft = stepOf(p.steps, 'fastertransformer');
    expect(ft).toMatchObject({ kind: 'model', backend: 'fastertransformer', maxBatchSize: 1024 });
    expect(ft.decoupled).toBeUndefined();
    expect(ft.config).toEqual({ default_model_filename: 'codegen-350M-mono-gptj' });
    expect(p.inputs.map((i) => i.name)).toEqual([
      'INPUT_0',
      'INPUT_1',
      'INPUT_2',
      'INPUT_3',
      'runtime_top_k',
      'temperature',
    ]);
    expect(p.wires).toContainEqual({ from: 'fastertransformer.sequence_length', to: 'sequence_length' });
  });

  it('produces a pipeline that validates and generates, its one warning the postprocessing kept in Python', () => {
    const out = join(work, 'codegen.pipeline.json');
    const r = importRepository(ftRepository(), { outFile: out });
    expect(r.diagnostics.map((d) => `${d.severity} ${d.code} ${d.file}`)).toEqual([
      `warning TS-W002 ${join(work, 'repo', 'postprocessing', 'config.pbtxt')}`,
    ]);
    writeFileSync(out, r.pipelineText!);
    expect(validatePipeline(r.pipelineText!, out).diagnostics.map(formatDiagnostic)).toEqual([]);
    const generated = join(work, 'generated');
    const g = generateRepository({ pipelinePath: out, outDir: generated });
    expect(g.diagnostics.map(formatDiagnostic)).toEqual([]);
    // A native tokenize step (C++ source and its tokenizer), the model as it was, the Python
    // postprocessing with its files, and the ensemble wiring them by the repository's own names.
    expect(existsSync(join(`${generated}.src`, 'preprocessing', 'step.cc'))).toBe(true);
    expect(existsSync(join(generated, 'preprocessing', '1', 'tokenizer.json'))).toBe(true);
    expect(readFileSync(join(generated, 'fastertransformer', 'config.pbtxt'), 'utf8')).toContain(
      'backend: "fastertransformer"',
    );
    expect(readFileSync(join(generated, 'postprocessing', 'config.pbtxt'), 'utf8')).toContain(
      'backend: "python"',
    );
    expect(existsSync(join(generated, 'postprocessing', '1', 'model.py'))).toBe(true);
    expect(existsSync(join(generated, 'postprocessing', '1', 'gpt2-vocab.json'))).toBe(true);
    expect(readFileSync(join(generated, 'ensemble', 'config.pbtxt'), 'utf8')).toContain(
      'value: "_TOKENS_BATCH"',
    );
  });
});

describe('importRepository: other shapes of repository', () => {
  it('wraps a single model without an ensemble (vLLM) in a pipeline', () => {
    const repo = repository({ vllm_model: { fixture: 'vllm_model.pbtxt' } });
    const r = importRepository(repo, { outFile: join(work, 'v.pipeline.json') });
    const p = r.pipeline!;
    expect(p.name).toBe('vllm_model_ensemble');
    expect(p.steps[0]).toMatchObject({ name: 'vllm_model', kind: 'model', backend: 'vllm', decoupled: true });
    expect(p.wires).toContainEqual({ from: 'vllm_model.text_output', to: 'text_output' });
    const v = validatePipeline(r.pipelineText!, join(work, 'v.pipeline.json'));
    expect(v.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).toEqual([]);
  });

  it('gives back the same configs for a repository it generated (import ∘ generate is stable)', () => {
    const sample = join(SAMPLES, 'gpt2-sim', 'gpt2-sim.pipeline.json');
    const first = join(work, 'first');
    expect(
      generateRepository({ pipelinePath: sample, outDir: first }).diagnostics.filter(
        (d) => d.severity === 'error',
      ),
    ).toEqual([]);
    const out = join(work, 'gpt2-sim.pipeline.json');
    const imported = importRepository(first, { outFile: out });
    expect(imported.diagnostics).toEqual([]);
    writeFileSync(out, imported.pipelineText!);
    const second = join(work, 'second');
    const g = generateRepository({ pipelinePath: out, outDir: second });
    expect(g.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).toEqual([]);
    for (const m of ['gpt2_sim', 'preprocessing', 'sim_llm', 'postprocessing']) {
      expect(readFileSync(join(second, m, 'config.pbtxt'), 'utf8'), m).toBe(
        readFileSync(join(first, m, 'config.pbtxt'), 'utf8'),
      );
    }
  });

  it('reports a config.pbtxt Triton could not read, with its file and line', () => {
    const repo = repository({
      m: { fixture: 'vllm_model.pbtxt', replace: [['max_batch_size: 0', 'max_batch_size: zero']] },
    });
    const r = importRepository(repo);
    expect(r.pipelineText).toBeUndefined();
    expect(r.diagnostics.map(formatDiagnostic)).toEqual([
      `${join(repo, 'm', 'config.pbtxt')}:13:17: error TS-E070: "max_batch_size" needs an integer (int32) but found "zero".`,
    ]);
  });

  it('explains what is wrong with something that is no model repository', () => {
    expect(importRepository(join(work, 'nope')).diagnostics[0]!.message).toContain('is not a folder');
    mkdirSync(join(work, 'empty'));
    expect(importRepository(join(work, 'empty')).diagnostics[0]).toMatchObject({ code: 'TS-E071' });
    const repo = repository({
      a: { fixture: 'trtllm_ensemble.pbtxt' },
      b: { fixture: 'ft_gptj_ensemble.pbtxt' },
    });
    expect(importRepository(repo).diagnostics[0]!.message).toContain('holds several ensembles (a, b)');
    expect(importRepository(repo, { ensemble: 'c' }).diagnostics[0]!.message).toContain(
      'No ensemble named "c"',
    );
  });
});

describe('importRepository: the inflight_batcher_llm template as the tutorial leaves it', () => {
  const FILL = { max_queue_delay_microseconds: '0', max_queue_size: '0' };
  const importTemplate = (set?: Record<string, string>) =>
    importRepository(trtllmTemplateRepository(join(work, 'repo'), LLAMA_DIR), {
      outFile: join(work, 'llama.pipeline.json'),
      set,
    });
  const messages = (
    r: { diagnostics: { code: string; severity: string; message: string }[] },
    code: string,
  ) => r.diagnostics.filter((d) => d.code === code).map((d) => `${d.severity} ${d.message}`);

  it('names each placeholder Triton cannot read, where it is, and how to fill it', () => {
    const r = importTemplate();
    expect(r.pipeline).toBeUndefined();
    expect(r.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).toEqual([
      expect.stringMatching(
        /tensorrt_llm\/config\.pbtxt:13:35: error TS-E072: \$\{max_queue_delay_microseconds\} is an unfilled template placeholder.*--set max_queue_delay_microseconds=VALUE/,
      ),
      expect.stringMatching(
        /tensorrt_llm\/config\.pbtxt:14:45: error TS-E072: \$\{max_queue_size\} is an unfilled/,
      ),
    ]);
  });

  it('with --set fills them as fill_template.py does; a --set that fills nothing is a warning', () => {
    const r = importTemplate({ ...FILL, nothing_has_this: '1' });
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(messages(r, 'TS-W007')).toEqual([
      expect.stringContaining('--set nothing_has_this: no config.pbtxt'),
    ]);
    const trt = stepOf(r.pipeline!.steps, 'tensorrt_llm');
    expect(trt.dynamicBatching).toEqual({ preferredBatchSizes: [64], maxQueueDelayMicroseconds: 0 });
    // String values the tutorial leaves unfilled stay as written (the backend reads them as unset),
    // without a diagnostic: only placeholders Triton cannot parse are errors.
    expect(trt.parameters).toMatchObject({
      lora_cache_gpu_memory_fraction: '${lora_cache_gpu_memory_fraction}',
      gpu_device_ids: '${gpu_device_ids}',
      max_beam_width: '1',
    });
    expect(r.diagnostics.filter((d) => /lora_cache|gpu_device_ids/.test(d.message))).toEqual([]);
  });

  it("fills as Python's string.Template.safe_substitute: ${name} and $name, $$ is $, the rest stays", () => {
    const used = new Set<string>();
    // Python: Template('${a} $a $$a ${b} $ ${9x} $a_b').safe_substitute(a='1', a_b='2')
    expect(fillTemplate('${a} $a $$a ${b} $ ${9x} $a_b', { a: '1', a_b: '2' }, used)).toBe(
      '1 1 $a ${b} $ ${9x} 2',
    );
    expect([...used].sort()).toEqual(['a', 'a_b']);
  });

  it('reads unfilled add/skip_special_tokens as model.py does (true), and says so', () => {
    const r = importTemplate(FILL);
    expect(stepOf(r.pipeline!.steps, 'preprocessing').addSpecialTokens).toBe(true);
    expect(stepOf(r.pipeline!.steps, 'postprocessing').skipSpecialTokens).toBe(true);
    expect(messages(r, 'TS-W008')).toEqual(
      expect.arrayContaining([
        'info Step "preprocessing": add_special_tokens is "${add_special_tokens}" (an unfilled placeholder, or neither true nor false); it becomes true, the default the template\'s model.py uses then.',
        'info Step "postprocessing": skip_special_tokens is "${skip_special_tokens}" (an unfilled placeholder, or neither true nor false); it becomes true, the default the template\'s model.py uses then.',
      ]),
    );
  });

  it('lists every ensemble input and output it drops or changes, and the result validates and generates', () => {
    const r = importTemplate(FILL);
    const w008 = messages(r, 'TS-W008').filter((m) => m.includes('Ensemble'));
    expect(w008).toEqual([
      ...['lora_weights', 'lora_config', 'guided_decoding_guide_type', 'guided_decoding_guide'].map(
        (n) =>
          `info Ensemble input "${n}": allow_ragged_batch left out (an ensemble does not batch; the steps that read it keep theirs).`,
      ),
      'warning Ensemble output "kv_cache_alloc_total_blocks" is declared twice; the pipeline keeps one (Triton serves one tensor of that name).',
      ...['decoder_text_input', 'prompt_table_extra_id'].map(
        (n) =>
          `warning Ensemble input "${n}" is left out: it only fed preprocessing's Python-only tensors (PROMPT_TABLE_EXTRA_ID, DECODER_QUERY, OUT_PROMPT_TABLE_EXTRA_IDS).`,
      ),
    ]);
    const p = r.pipeline!;
    expect(p.inputs.map((i) => i.name)).toContain('lora_weights');
    expect(p.outputs.map((o) => o.name)).toEqual(['text_output', 'kv_cache_alloc_total_blocks']);
    const out = join(work, 'llama.pipeline.json');
    writeFileSync(out, r.pipelineText!);
    const v = validatePipeline(r.pipelineText!, out);
    expect(v.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).toEqual([]);
    const g = generateRepository({ pipelinePath: out, outDir: join(work, 'generated') });
    expect(g.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).toEqual([]);
  });
});

describe('importRepository: FasterTransformer all_models/gptj with gpt2-vocab.json + gpt2-merges.txt', () => {
  it('writes the equivalent tokenizer.json once, and both tokenizer steps become native', () => {
    const out = join(work, 'gptj.pipeline.json');
    const r = importRepository(ftTemplateRepository(join(work, 'repo'), GPT2_FILE), { outFile: out });
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const tokenizer = join(work, 'gptj.preprocessing.tokenizer.json');
    expect(Object.keys(r.files!)).toEqual([tokenizer]);
    // Hugging Face's own GPT-2 tokenizer.json, field for field.
    expect(JSON.parse(r.files![tokenizer]!)).toEqual(JSON.parse(readFileSync(GPT2_FILE, 'utf8')));
    const steps = r.pipeline!.steps;
    expect(steps.map((s) => `${s.name}:${s.kind}`)).toEqual([
      'preprocessing:tokenize',
      'fastertransformer:model',
      'postprocessing:detokenize',
    ]);
    expect(stepOf(steps, 'preprocessing').tokenizer).toBe('./gptj.preprocessing.tokenizer.json');
    expect(stepOf(steps, 'postprocessing').tokenizer).toBe('./gptj.preprocessing.tokenizer.json');
    expect(r.diagnostics.filter((d) => d.code === 'TS-W008').map((d) => d.message)).toContain(
      'Step "preprocessing": gpt2-vocab.json + gpt2-merges.txt become gptj.preprocessing.tokenizer.json (byte-level BPE, as Hugging Face converts them), written beside the pipeline.',
    );
    for (const [file, text] of Object.entries({ ...r.files, [out]: r.pipelineText! }))
      writeFileSync(file, text);
    const g = generateRepository({ pipelinePath: out, outDir: join(work, 'generated') });
    expect(g.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).toEqual([]);
  });

  it('keeps the step in Python, saying why, when merges.txt does not fit vocab.json', () => {
    const repo = ftTemplateRepository(join(work, 'repo'), GPT2_FILE);
    writeFileSync(join(repo, 'postprocessing', '1', 'gpt2-merges.txt'), '#version: 0.2\nno_such_token x\n');
    const r = importRepository(repo, { outFile: join(work, 'gptj.pipeline.json') });
    expect(stepOf(r.pipeline!.steps, 'postprocessing').kind).toBe('custom');
    expect(r.diagnostics.map((d) => d.message)).toContain(
      'Python detokenize step "postprocessing" is kept as a Python step: its gpt2-vocab.json / gpt2-merges.txt: merges.txt line 2: "no_such_token x" merges tokens that vocab.json lacks.',
    );
  });
});
