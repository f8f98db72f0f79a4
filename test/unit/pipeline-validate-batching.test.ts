/**
 * Validation of pipeline files, batching and decoupled steps: one test per diagnostic code, each
 * checking the code, that the range covers the exact text at fault, and that the message says how
 * to fix it.
 */
import { describe, expect, it } from 'vitest';
import { base, covered, run, only, wire, step } from './pipeline-validate-helpers.js';

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
