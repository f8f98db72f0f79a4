/**
 * Pipelines built from a preset family (New Pipeline "from a preset"): each validates with no
 * error and no warning, and is wired as the family's samples wire the same presets.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  formatDiagnostic,
  pipelineFromPresets,
  presetFamilies,
  validatePipeline,
  type Pipeline,
} from '../../generator/index.js';

const SAMPLES = resolve(__dirname, '../../samples');
const FILE = join(SAMPLES, 'new.pipeline.json'); // where a tokenizer name resolves like a sample's
const TOKENIZER: Record<string, string> = {
  'distilbert-onnx': 'bert-base-uncased',
  'embedding-onnx': 'bert-base-uncased',
  'reranker-onnx': 'bert-base-uncased',
};

/** Every sample pipeline, for the wires it draws between preset ports. */
/** The sample folders (samples/README.md lists them, beside them). */
const sampleFolders = () =>
  readdirSync(SAMPLES, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
const samples = sampleFolders().flatMap((dir) =>
  readdirSync(join(SAMPLES, dir))
    .filter((f) => f.endsWith('.pipeline.json'))
    .map((f) => JSON.parse(readFileSync(join(SAMPLES, dir, f), 'utf8')) as Pipeline),
);

/** A wire as preset ids and ports: `tensorrt-llm/preprocessing.INPUT_ID → tensorrt-llm/model.input_ids`. */
function presetWires(p: Pipeline): string[] {
  const preset = new Map(p.steps.map((s) => [s.name, s.preset]));
  const end = (e: string) => {
    const [step, port] = e.split('.');
    return port !== undefined && preset.get(step!) ? `${preset.get(step!)}.${port}` : undefined;
  };
  return p.wires.flatMap((w) => {
    const from = end(w.from);
    const to = end(w.to);
    return from && to ? [`${from} → ${to}`] : [];
  });
}

describe('pipelines from preset families', () => {
  it('has a family per preset system', () => {
    expect(presetFamilies().map((f) => f.id)).toEqual([
      'tensorrt-llm',
      'fastertransformer-gptj',
      'vllm',
      'distilbert-onnx',
      'embedding-onnx',
      'reranker-onnx',
      'sim-llm',
      'llama-cpp',
    ]);
  });

  it.each(presetFamilies().map((f) => f.id))('%s validates with no error or warning', (id) => {
    const pipeline = pipelineFromPresets(id, { tokenizer: TOKENIZER[id] ?? 'gpt2' });
    const diagnostics = validatePipeline(JSON.stringify(pipeline, null, 2), FILE).diagnostics.filter(
      (d) => d.severity !== 'info',
    );
    expect(diagnostics.map(formatDiagnostic)).toEqual([]);
  });

  it.each(presetFamilies().map((f) => f.id))('%s wires its steps as the samples wire them', (id) => {
    const ours = presetWires(pipelineFromPresets(id, { tokenizer: 'gpt2' }));
    if (presetFamilies().find((f) => f.id === id)!.presets.length > 1) expect(ours.length).toBeGreaterThan(1);
    const theirs = new Set(samples.flatMap(presetWires));
    // Between steps, only wires some sample draws too (samples also wire optional ports).
    expect(ours.filter((w) => !theirs.has(w))).toEqual([]);
  });

  it('names the ensemble tensors a prompt needs: text_input, max_tokens → text_output', () => {
    const p = pipelineFromPresets('sim-llm', { tokenizer: 'gpt2', name: 'my_llm' });
    expect(p.name).toBe('my_llm');
    expect(p.inputs.map((i) => `${i.name} ${i.dataType}`)).toEqual(['text_input STRING', 'max_tokens INT32']);
    expect(p.outputs.map((o) => o.name)).toEqual(['text_output']);
  });

  it('refuses an unknown family, naming the known ones', () => {
    expect(() => pipelineFromPresets('gpt-5')).toThrow(/no preset family 'gpt-5': use one of tensorrt-llm, /);
  });
});
