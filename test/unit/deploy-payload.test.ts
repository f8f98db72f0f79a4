/**
 * What deploy sends for one model: a staged (candidate) copy of a pipeline must call the staged
 * copies of its steps, whether the pipeline is an ensemble or a native orchestrator.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRepository } from '../../client/repository.js';
import { modelPayload } from '../../client/deploy/payload.js';

function repository(): string {
  const root = mkdtempSync(join(tmpdir(), 'ts-payload-'));
  const model = (name: string, config: string) => {
    mkdirSync(join(root, name, '1'), { recursive: true });
    writeFileSync(join(root, name, 'config.pbtxt'), config);
  };
  model('sim_llm', 'name: "sim_llm"\nbackend: "sim_llm"\nmax_batch_size: 0\n');
  model(
    'gpt2',
    'name: "gpt2"\nbackend: "gpt2"\nmax_batch_size: 0\n' +
      'parameters { key: "orchestrates" value { string_value: "sim_llm" } }\n',
  );
  return root;
}

describe('deploy payload', () => {
  it('reads a native orchestrator as a model clients call, after the model step it calls', () => {
    const entries = readRepository(repository());
    expect(entries.map((e) => [e.name, e.callable, e.dependencies])).toEqual([
      ['sim_llm', false, []],
      ['gpt2', true, ['sim_llm']],
    ]);
  });

  it("points a staged orchestrator at the staged model step, and leaves the served one's target alone", () => {
    const gpt2 = readRepository(repository()).find((e) => e.name === 'gpt2')!;
    const staged = modelPayload(gpt2, 'gpt2__candidate', {
      upload: true,
      renameSteps: new Map([['sim_llm', 'sim_llm__candidate']]),
    });
    const target = (payload: { config: Record<string, unknown> }) =>
      (payload.config.parameters as Record<string, { string_value: string }>).orchestrates!.string_value;
    expect(target(staged)).toBe('sim_llm__candidate');
    expect(target(modelPayload(gpt2, 'gpt2', { upload: false }))).toBe('sim_llm');
    // An unchanged model step is served under its own name: the staged orchestrator calls that one.
    expect(target(modelPayload(gpt2, 'gpt2__candidate', { upload: true, renameSteps: new Map() }))).toBe(
      'sim_llm',
    );
  });
});
