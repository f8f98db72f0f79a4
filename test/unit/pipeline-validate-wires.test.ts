/**
 * Validation of pipeline files, wires: one test per diagnostic code, each checking the code, that
 * the range covers the exact text at fault, and that the message says how to fix it.
 */
import { describe, expect, it } from 'vitest';
import { base, run, only, wire, step } from './pipeline-validate-helpers.js';

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
