/**
 * The graph editor's pure logic: pipeline text → graph model (nodes, typed ports, wires, problems
 * on the element they are about), graph edits → minimal text edits that keep every untouched
 * character, and the wire check the editor shares with the validator.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { applyEdits } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import { buildGraphModel, elementAt, type GraphModel } from '../../extension/graphEditor/host/graphModel.js';
import { freeStepName, paletteItems } from '../../extension/graphEditor/host/palette.js';
import {
  graphEditToTextEdits,
  minimalEdits,
  type GraphEdit,
  type TextEdit,
} from '../../extension/graphEditor/host/textEdits.js';
import { listPresets, newWireErrors, validatePipeline, type Pipeline } from '../../generator/index.js';

const SAMPLES = resolve(__dirname, '../../samples');
const GPT2_SIM = join(SAMPLES, 'gpt2-sim/gpt2-sim.pipeline.json');
/** The sample folders (samples/README.md lists them, beside them). */
const sampleFolders = () =>
  readdirSync(SAMPLES, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
const sampleFiles = sampleFolders().flatMap((d) =>
  readdirSync(join(SAMPLES, d))
    .filter((f) => f.endsWith('.pipeline.json'))
    .map((f) => join(SAMPLES, d, f)),
);

function model(text: string, file = GPT2_SIM): { model: GraphModel; pipeline: Pipeline } {
  const built = buildGraphModel(text, file);
  if (!built.ok) throw new Error(`not a pipeline: ${built.problems.map((p) => p.message).join('; ')}`);
  return built;
}

function apply(text: string, edits: TextEdit[]): string {
  return applyEdits(
    text,
    edits.map((e) => ({ offset: e.offset, length: e.length, content: e.newText })),
  );
}

/** The edit applied, plus the lines it changed (before → after). */
function edited(text: string, edit: GraphEdit) {
  const { pipeline } = model(text);
  const edits = graphEditToTextEdits(text, pipeline, edit);
  const after = apply(text, edits);
  return { edits, after, removed: linesMissing(text, after), added: linesMissing(after, text) };
}

/** Lines of `a` that `b` lacks, counting repeats (a multiset difference). */
function linesMissing(a: string, b: string): string[] {
  const left = new Map<string, number>();
  for (const l of b.split('\n')) left.set(l, (left.get(l) ?? 0) + 1);
  return a.split('\n').filter((l) => {
    const n = left.get(l) ?? 0;
    left.set(l, n - 1);
    return n <= 0;
  });
}

const sim = readFileSync(GPT2_SIM, 'utf8');

describe('graph model', () => {
  it.each(sampleFiles.map((f) => [f.slice(SAMPLES.length + 1), f]))(
    'draws %s: every ensemble input/output and step as a node, every wire as an edge',
    (_name, file) => {
      const text = readFileSync(file, 'utf8');
      const { model: m, pipeline } = model(text, file);
      expect(m.nodes.map((n) => n.id)).toEqual([
        ...pipeline.inputs.map((p) => `input:${p.name}`),
        ...pipeline.steps.map((s) => `step:${s.name}`),
        ...pipeline.outputs.map((p) => `output:${p.name}`),
      ]);
      expect(m.wires).toHaveLength(pipeline.wires.length);
      expect(m.danglingWires).toEqual([]);
    },
  );

  it('spells out preset ports with name, dtype, dims and optional, and shows batching, instances, decoupled', () => {
    const m = model(sim).model;
    const llm = m.nodes.find((n) => n.id === 'step:sim_llm');
    expect(llm?.kind).toBe('step');
    if (llm?.kind !== 'step') return;
    expect(llm.inputs.find((p) => p.name === 'input_ids')).toMatchObject({
      dataType: 'UINT32',
      dims: [-1],
      optional: false,
      fromPreset: true,
      fromModule: false,
    });
    expect(llm.decoupled).toBe(false);
    expect(llm.maxBatchSize).toBe(8);
    expect(llm.dynamicBatching).toEqual({ maxQueueDelayMicroseconds: 1000 });
    expect(llm.instances).toEqual([{ count: 1, kind: 'CPU' }]);
    expect(m.wires[0]).toMatchObject({
      source: 'input:text_input',
      target: 'step:preprocessing',
      targetPort: 'QUERY',
    });
  });

  it('puts a dtype mismatch on the receiving port (a preset port, found through the wire)', () => {
    const text = sim.replace(
      '"parameters": { "prefill_us_per_token"',
      '"inputs": [{ "name": "input_ids", "dataType": "INT64", "dims": [-1] }],\n      "parameters": { "prefill_us_per_token"',
    );
    const { model: m } = model(text);
    const p = m.problems.find((x) => x.code === 'TS-E012');
    expect(p).toMatchObject({ node: 'step:sim_llm', port: { side: 'input', name: 'input_ids' }, wire: 2 });
  });

  it('puts an unwired preset input on its port, named by the message', () => {
    const text = sim.replace(/\n\s*\{ "from": "preprocessing.INPUT_ID", "to": "sim_llm.input_ids" \},/, '');
    const p = model(text).model.problems.find((x) => x.code === 'TS-E014');
    expect(p).toMatchObject({ node: 'step:sim_llm', port: { side: 'input', name: 'input_ids' } });
  });

  it('says why a text is not a pipeline (syntax, half-typed) instead of drawing anything', () => {
    const built = buildGraphModel(sim.slice(0, 400), GPT2_SIM);
    expect(built.ok).toBe(false);
    if (!built.ok) expect(built.problems[0]?.code).toBe('TS-E001');
  });

  it('finds the element under the text cursor', () => {
    const { pipeline } = model(sim);
    expect(elementAt(sim, sim.indexOf('"sim-llm/model"'), pipeline)).toEqual({ node: 'step:sim_llm' });
    expect(elementAt(sim, sim.indexOf('"postprocessing.OUTPUT"'), pipeline)).toEqual({ wire: 7 });
    expect(elementAt(sim, sim.indexOf('"max_tokens"'), pipeline)).toEqual({ node: 'input:max_tokens' });
  });
});

describe('graph edits as minimal text edits', () => {
  it('adds a wire as one new line in the style of the others', () => {
    const { edits, removed, added } = edited(sim, { op: 'addWire', from: 'a.x', to: 'b.y' });
    expect(edits).toHaveLength(1);
    expect(edits[0]!.length).toBe(0);
    expect(removed).toEqual(['    { "from": "postprocessing.OUTPUT", "to": "text_output" }']);
    expect(added).toEqual([
      '    { "from": "postprocessing.OUTPUT", "to": "text_output" },',
      '    { "from": "a.x", "to": "b.y" }',
    ]);
  });

  it('removes a step and exactly its wires, nothing else', () => {
    const { edits, after } = edited(sim, { op: 'removeSteps', names: ['sim_llm'] });
    expect(edits).toHaveLength(2);
    const p = JSON.parse(after) as Pipeline;
    expect(p.steps.map((s) => s.name)).toEqual(['preprocessing', 'postprocessing']);
    expect(p.wires.map((w) => `${w.from}>${w.to}`)).toEqual([
      'text_input>preprocessing.QUERY',
      'max_tokens>preprocessing.REQUEST_OUTPUT_LEN',
      'postprocessing.OUTPUT>text_output',
    ]);
    // Every remaining line is the original line.
    const lines = new Set(sim.split('\n'));
    expect(after.split('\n').filter((l) => !lines.has(l))).toEqual([]);
  });

  it('renames a step and its wires follow; the result validates as before', () => {
    const { after, removed } = edited(sim, { op: 'renameStep', from: 'sim_llm', to: 'llm' });
    expect(removed.every((l) => l.includes('sim_llm'))).toBe(true);
    expect(after).not.toMatch(/"sim_llm[".]/);
    const errors = (t: string) =>
      validatePipeline(t, GPT2_SIM).diagnostics.filter((d) => d.severity === 'error').length;
    expect(errors(after)).toBe(errors(sim));
  });

  it('refuses a rename onto a taken name', () => {
    expect(() => edited(sim, { op: 'renameStep', from: 'sim_llm', to: 'preprocessing' })).toThrow(
      /already exists/,
    );
  });

  it('stores positions in "layout": created once, then one value changes per move', () => {
    const first = edited(sim, { op: 'moveNodes', positions: { sim_llm: { x: 10.4, y: 20 } } });
    expect(first.removed).toEqual(['  ]']);
    expect(first.added).toEqual(['  ],', '  "layout": { "sim_llm": { "x": 10, "y": 20 } }']);
    const second = edited(first.after, { op: 'moveNodes', positions: { sim_llm: { x: 30, y: 20 } } });
    expect(second.edits).toEqual([{ offset: expect.any(Number), length: 1, newText: '3' }]); // 10 → 30
    const cleared = edited(second.after, { op: 'clearLayout' });
    expect(cleared.after).toBe(sim);
  });

  it('sets, changes and removes a step field in place', () => {
    const set = edited(sim, { op: 'setStepField', name: 'preprocessing', field: 'maxBatchSize', value: 16 });
    expect(set.added).toEqual(['      "addSpecialTokens": false,', '      "maxBatchSize": 16']);
    const change = edited(sim, {
      op: 'setStepField',
      name: 'sim_llm',
      field: 'parameters',
      value: { prefill_us_per_token: 50, decode_us_per_step: 500 },
    });
    // "2000" → "500": the common "00" stays.
    expect(change.edits).toEqual([{ offset: expect.any(Number), length: 2, newText: '5' }]);
    const gone = edited(sim, {
      op: 'setStepField',
      name: 'preprocessing',
      field: 'addSpecialTokens',
      value: undefined,
    });
    expect(gone.removed.sort()).toEqual(['      "addSpecialTokens": false', '      "tokenizer": "gpt2",']);
    expect(gone.added).toEqual(['      "tokenizer": "gpt2"']);
    expect(gone.edits).toHaveLength(1);
  });

  it('adds a step (multi-line, like its siblings) with its position', () => {
    const { after } = edited(sim, {
      op: 'addStep',
      step: { name: 'extra', kind: 'model', preset: 'sim-llm/model' },
      position: { x: 1, y: 2 },
    });
    expect(after).toContain(
      '    {\n      "name": "extra",\n      "kind": "model",\n      "preset": "sim-llm/model"\n    }\n  ],',
    );
    expect((JSON.parse(after) as Pipeline).layout).toEqual({ extra: { x: 1, y: 2 } });
  });

  it('minimalEdits turns any text into any other with edits that keep the common lines', () => {
    const line = fc.constantFrom('a\n', 'b\n', '{\n', '}\n', '  "x": 1,\n', '');
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), fc.array(line, { maxLength: 30 }), (a, b) => {
        const before = a.join('');
        const after = b.join('');
        const edits = minimalEdits(before, after);
        expect(apply(before, edits)).toBe(after);
        for (let i = 1; i < edits.length; i++) {
          expect(edits[i]!.offset).toBeGreaterThanOrEqual(edits[i - 1]!.offset + edits[i - 1]!.length);
        }
      }),
    );
  });
});

describe('wire check (the validator decides)', () => {
  const { pipeline } = model(sim);

  it('accepts a compatible wire into a free port', () => {
    const without = { ...pipeline, wires: pipeline.wires.filter((w) => w.to !== 'sim_llm.input_ids') };
    expect(
      newWireErrors(without, { from: 'preprocessing.INPUT_ID', to: 'sim_llm.input_ids' }, GPT2_SIM),
    ).toEqual([]);
  });

  it('refuses a dtype mismatch with the reason', () => {
    const without = { ...pipeline, wires: pipeline.wires.filter((w) => w.to !== 'sim_llm.input_ids') };
    const errors = newWireErrors(without, { from: 'text_input', to: 'sim_llm.input_ids' }, GPT2_SIM);
    expect(errors.map((e) => e.code)).toEqual(['TS-E012']);
    expect(errors[0]!.message).toMatch(
      /ensemble input text_input is STRING but sim_llm.input_ids expects UINT32/,
    );
  });

  it('refuses a second wire into a fed port', () => {
    const errors = newWireErrors(
      pipeline,
      { from: 'preprocessing.INPUT_ID', to: 'sim_llm.input_ids' },
      GPT2_SIM,
    );
    expect(errors.map((e) => e.code)).toEqual(['TS-E015']);
    expect(errors[0]!.message).toMatch(/already wired/);
  });

  it('refuses a wire into a fed port with a mismatched type for both reasons', () => {
    const errors = newWireErrors(pipeline, { from: 'text_input', to: 'sim_llm.input_ids' }, GPT2_SIM);
    expect(errors.map((e) => e.code).sort()).toEqual(['TS-E012', 'TS-E015']);
    const messages = errors.map((e) => e.message).join('\n');
    expect(messages).toMatch(/"sim_llm.input_ids" is already wired by wires\[\d+\]/);
    expect(messages).toMatch(/ensemble input text_input is STRING but sim_llm.input_ids expects UINT32/);
  });

  it('refuses a cycle', () => {
    const errors = newWireErrors(
      pipeline,
      { from: 'postprocessing.OUTPUT', to: 'preprocessing.QUERY' },
      GPT2_SIM,
    );
    expect(errors.length).toBeGreaterThan(0);
  });
});

describe('palette', () => {
  it('offers every preset, the sample steps and blank steps', () => {
    const items = paletteItems(SAMPLES);
    for (const p of listPresets())
      expect(items.some((i) => i.step.preset === p.id && i.id.startsWith('preset:'))).toBe(true);
    expect(items.some((i) => i.id === 'sample:gpt2-sim/sim_llm')).toBe(true);
    expect(items.some((i) => i.id === 'blank:model')).toBe(true);
    // A blank custom step is a TypeScript one (no Python in the product).
    expect(items.find((i) => i.id === 'blank:custom')?.step).toMatchObject({
      kind: 'custom',
      source: 'steps/custom.ts',
    });
  });

  it('names a new step so it clashes with nothing', () => {
    const { pipeline } = model(sim);
    expect(freeStepName(pipeline, 'sim_llm')).toBe('sim_llm_2');
    expect(freeStepName(pipeline, 'gpt2_sim')).toBe('gpt2_sim_2');
    expect(freeStepName(pipeline, 'fresh')).toBe('fresh');
  });
});
