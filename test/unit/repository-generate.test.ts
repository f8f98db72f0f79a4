/**
 * generateRepository on the gpt2-sim sample: what lands on disk (one model folder per step and
 * the ensemble, their configs read back through the pbtxt reader, the tokenizer and C++ sources
 * beside the repository).
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic, generateRepository, MANIFEST_FILE } from '../../generator/index.js';
import {
  SAMPLE,
  GPT2_TOKENIZER,
  readConfig,
  generateSample,
  useWorkFolder,
  work,
} from './repository-helpers.js';

useWorkFolder();

describe('generateRepository (gpt2-sim sample)', () => {
  it('writes one model folder per step plus the ensemble, each with a version folder', () => {
    const repo = join(work, 'repo');
    const r = generateSample(repo);
    expect(r.ensembleName).toBe('gpt2_sim');
    expect(r.models.map((m) => `${m.name}:${m.kind}`)).toEqual([
      'gpt2_sim:ensemble',
      'preprocessing:tokenize',
      'sim_llm:model',
      'postprocessing:detokenize',
    ]);
    for (const m of ['gpt2_sim', 'preprocessing', 'sim_llm', 'postprocessing']) {
      expect(existsSync(join(repo, m, 'config.pbtxt'))).toBe(true);
      expect(existsSync(join(repo, m, '1'))).toBe(true);
    }
  });

  it('wires the ensemble by tensor names: every step input maps to a tensor some step or the client produces', () => {
    const repo = join(work, 'repo');
    generateSample(repo);
    const ens = readConfig(repo, 'gpt2_sim');
    expect(ens.platform).toBe('ensemble');
    expect(ens.max_batch_size).toBe(8);
    expect(ens.input).toEqual([
      { name: 'text_input', data_type: 'TYPE_STRING', dims: [1] },
      { name: 'max_tokens', data_type: 'TYPE_INT32', dims: [1] },
    ]);
    expect(ens.output).toEqual([{ name: 'text_output', data_type: 'TYPE_STRING', dims: [-1] }]);
    const steps = ens.ensemble_scheduling!.step;
    expect(steps.map((s) => s.model_name)).toEqual(['preprocessing', 'sim_llm', 'postprocessing']);
    const produced = new Set(['text_input', 'max_tokens']);
    for (const s of steps) {
      for (const t of Object.values(s.input_map))
        expect(produced.has(t), `${s.model_name} reads ${t}`).toBe(true);
      for (const t of Object.values(s.output_map)) produced.add(t);
    }
    expect(steps[0]!.input_map).toEqual({ QUERY: 'text_input', REQUEST_OUTPUT_LEN: 'max_tokens' });
    expect(steps[2]!.output_map).toEqual({ OUTPUT: 'text_output' });
    expect(steps[1]!.input_map.input_ids).toBe(steps[0]!.output_map.INPUT_ID);
  });

  it('gives the tokenize step INT32 in and UINT32 out for REQUEST_OUTPUT_LEN (the conversion an ensemble cannot do)', () => {
    const repo = join(work, 'repo');
    generateSample(repo);
    const pre = readConfig(repo, 'preprocessing');
    expect(pre.backend).toBe('preprocessing');
    expect(pre.input!.find((t) => t.name === 'REQUEST_OUTPUT_LEN')!.data_type).toBe('TYPE_INT32');
    expect(pre.output!.find((t) => t.name === 'REQUEST_OUTPUT_LEN')!.data_type).toBe('TYPE_UINT32');
    expect(pre.output!.find((t) => t.name === 'INPUT_ID')).toEqual({
      name: 'INPUT_ID',
      data_type: 'TYPE_UINT32',
      dims: [-1],
    });
    expect(pre.instance_group).toEqual([{ kind: 'KIND_CPU', count: 1 }]);
    expect(pre.parameters!.add_special_tokens).toEqual({ string_value: 'false' });
  });

  it('configures sim_llm with the FasterTransformer interface, dynamic batching, ragged ids and its latency parameters', () => {
    const repo = join(work, 'repo');
    generateSample(repo);
    const sim = readConfig(repo, 'sim_llm');
    expect(sim.backend).toBe('sim_llm');
    expect(sim.input).toEqual([
      { name: 'input_ids', data_type: 'TYPE_UINT32', dims: [-1], allow_ragged_batch: true },
      { name: 'input_lengths', data_type: 'TYPE_UINT32', dims: [1] },
      { name: 'request_output_len', data_type: 'TYPE_UINT32', dims: [-1] },
    ]);
    expect(sim.output).toEqual([
      { name: 'output_ids', data_type: 'TYPE_UINT32', dims: [-1, -1] },
      { name: 'sequence_length', data_type: 'TYPE_UINT32', dims: [-1] },
    ]);
    expect(sim.dynamic_batching).toEqual({ max_queue_delay_microseconds: 1000 });
    expect(sim.parameters).toEqual({
      prefill_us_per_token: { string_value: '50' },
      decode_us_per_step: { string_value: '2000' },
    });
  });

  it('leaves out of config.pbtxt a preset parameter the step sets to null', () => {
    const pipeline = JSON.parse(readFileSync(SAMPLE, 'utf8')) as {
      steps: { name: string; tokenizer?: string; parameters?: Record<string, unknown> }[];
    };
    pipeline.steps.find((s) => s.name === 'sim_llm')!.parameters = { decode_us_per_step: null };
    for (const s of pipeline.steps) if (s.tokenizer) s.tokenizer = GPT2_TOKENIZER;
    const file = join(work, 'p.pipeline.json');
    writeFileSync(file, JSON.stringify(pipeline));
    const r = generateRepository({ pipelinePath: file, outDir: join(work, 'repo') });
    expect(r.diagnostics.filter((d) => d.severity !== 'info').map(formatDiagnostic)).toEqual([]);
    expect(readConfig(join(work, 'repo'), 'sim_llm').parameters).toEqual({
      prefill_us_per_token: { string_value: '50' },
    });
  });

  it("takes the model step's max_input_len as the tokenize step's token limit unless the step sets its own", () => {
    const pipeline = JSON.parse(readFileSync(SAMPLE, 'utf8')) as {
      steps: { name: string; tokenizer?: string; parameters?: Record<string, unknown> }[];
    };
    pipeline.steps.find((s) => s.name === 'sim_llm')!.parameters = { max_input_len: 64 };
    for (const s of pipeline.steps) if (s.tokenizer) s.tokenizer = GPT2_TOKENIZER;
    const generate = (name: string) => {
      const file = join(work, `${name}.pipeline.json`);
      writeFileSync(file, JSON.stringify(pipeline));
      const r = generateRepository({ pipelinePath: file, outDir: join(work, name) });
      expect(r.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).toEqual([]);
      return readConfig(join(work, name), 'preprocessing').parameters;
    };
    expect(generate('from-model')).toMatchObject({ max_input_tokens: { string_value: '64' } });
    pipeline.steps.find((s) => s.name === 'preprocessing')!.parameters = { max_input_tokens: 32 };
    expect(generate('own')).toMatchObject({ max_input_tokens: { string_value: '32' } });
  });

  it('makes the detokenize step stateful per request only behind a decoupled (streaming) step', () => {
    const plain = join(work, 'plain');
    generateSample(plain);
    expect(readConfig(plain, 'postprocessing').parameters).not.toHaveProperty('streaming');

    const pipeline = JSON.parse(readFileSync(SAMPLE, 'utf8')) as {
      $schema?: string;
      steps: { name: string; decoupled?: boolean }[];
    };
    delete pipeline.$schema;
    pipeline.steps.find((s) => s.name === 'sim_llm')!.decoupled = true;
    const file = join(work, 'streaming.pipeline.json');
    writeFileSync(file, JSON.stringify(pipeline));
    const repo = join(work, 'streaming');
    // Served as an ensemble (the orchestrator, the default, has no detokenize model of its own).
    const r = generateRepository({ pipelinePath: file, outDir: repo, serving: 'ensemble' });
    expect(r.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).toEqual([]);
    expect(r.diagnostics.map((d) => d.code)).toContain('TS-W011');
    expect(readConfig(repo, 'postprocessing').parameters!.streaming).toEqual({ string_value: 'true' });
    expect(readConfig(repo, 'preprocessing').parameters).not.toHaveProperty('streaming');
  });

  it('ships the tokenizer with the tokenize/detokenize models and their C++ sources beside the repository', () => {
    const repo = join(work, 'repo');
    const r = generateSample(repo);
    const sources = `${repo}.src`;
    expect(r.sourcesDir).toBe(sources);
    for (const m of ['preprocessing', 'postprocessing']) {
      expect(readFileSync(join(repo, m, '1', 'tokenizer.json')).equals(readFileSync(GPT2_TOKENIZER))).toBe(
        true,
      );
      expect(readFileSync(join(sources, m, 'step.cc'), 'utf8')).toMatch(/^\/\/ Generated by Triton Studio/);
      expect(readFileSync(join(sources, m, 'CMakeLists.txt'), 'utf8')).toMatch(
        /^# Generated by Triton Studio/,
      );
    }
    expect(readFileSync(join(sources, 'postprocessing', 'step.cc'), 'utf8')).toContain('"TOKENS_BATCH"');
    expect(existsSync(join(sources, 'sim_llm'))).toBe(false);
    expect(r.sourceFiles.sort()).toEqual([
      'postprocessing/CMakeLists.txt',
      'postprocessing/step.cc',
      'preprocessing/CMakeLists.txt',
      'preprocessing/step.cc',
      MANIFEST_FILE,
    ]);
  });

  it('puts nothing but config.pbtxt and numeric version folders into a model folder (Triton logs any other folder)', () => {
    const repo = join(work, 'repo');
    const r = generateSample(repo);
    for (const { name } of r.models) {
      const entries = readdirSync(join(repo, name), { withFileTypes: true });
      expect(
        entries
          .filter((e) => !(e.isDirectory() ? /^\d+$/.test(e.name) : e.name === 'config.pbtxt'))
          .map((e) => e.name),
        name,
      ).toEqual([]);
    }
    // At the top: the model folders (Triton's index lists every folder) and the manifest.
    expect(readdirSync(repo).sort()).toEqual([...r.models.map((m) => m.name), MANIFEST_FILE].sort());
  });

  it('removes the sources of an earlier generation once the pipeline has no native step left', () => {
    const repo = join(work, 'repo');
    generateSample(repo);
    expect(existsSync(`${repo}.src`)).toBe(true);
    // The vLLM sample: one model step that tokenizes itself.
    const file = resolve(__dirname, '../../samples/gpt2-vllm/gpt2-vllm.pipeline.json');
    const r = generateRepository({ pipelinePath: file, outDir: repo });
    expect(r.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).toEqual([]);
    expect(r.sourceFiles).toEqual([]);
    expect(existsSync(`${repo}.src`)).toBe(false);
  });
});
