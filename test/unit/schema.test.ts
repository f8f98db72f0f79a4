/**
 * generator/schema/pipeline.schema.json is what editors use for completion and checks while a
 * pipeline file is typed (VS Code's jsonValidation): it must offer exactly the presets that exist.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { validatePipeline } from '../../generator/index.js';
import { listPresets } from '../../generator/presets/index.js';
import schema from '../../generator/schema/pipeline.schema.json';

const SAMPLE = resolve(__dirname, '../../samples/gpt2-sim/gpt2-sim.pipeline.json');

describe('pipeline.schema.json', () => {
  const presetEnum = (schema.definitions.step.properties.preset as { enum?: string[] }).enum;

  it('lists every preset id in step.preset, and nothing else (add a new preset to the schema too)', () => {
    expect(presetEnum, 'step.preset has no enum').toBeDefined();
    expect([...presetEnum!].sort()).toEqual(
      listPresets()
        .map((p) => p.id)
        .sort(),
    );
    expect(new Set(presetEnum).size).toBe(presetEnum!.length);
  });

  it('makes an editor flag an unknown preset (the published schema, as VS Code applies it)', () => {
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
    const sample = JSON.parse(readFileSync(SAMPLE, 'utf8')) as { steps: { preset?: string }[] };
    expect(validate(sample)).toBe(true);
    sample.steps[1]!.preset = 'sim-llm/modle';
    expect(validate(sample)).toBe(false);
    expect(validate.errors!.map((e) => `${e.instancePath} ${e.keyword}`)).toEqual(['/steps/1/preset enum']);
  });

  it('an unknown preset is still reported once, as TS-E050 with a suggestion, not as a schema error', () => {
    const text = readFileSync(SAMPLE, 'utf8').replace('"sim-llm/model"', '"sim-llm/modle"');
    const errors = validatePipeline(text, SAMPLE).diagnostics.filter((d) => d.severity === 'error');
    expect(errors.map((d) => d.code)).toEqual(['TS-E050']);
    expect(errors[0]!.message).toContain('Unknown preset "sim-llm/modle"');
  });
});
