/**
 * Validation of pipeline files, syntax and shape: the gpt2-sim sample is valid, and each JSON or
 * schema mistake has its code, a range over the exact text at fault and a message that says how
 * to fix it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic, type Pipeline } from '../../generator/index.js';
import { FILE, SAMPLE, run, only, wire, step } from './pipeline-validate-helpers.js';

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
