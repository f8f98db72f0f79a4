/** vs-perf-analyzer's models: the gpt2-sim sample in three timings, generated and built. */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildRepository } from '../../../generator/build/index.js';
import { generateRepository, hasErrors } from '../../../generator/index.js';
import type { Variant } from './figures.js';
import { OUT, ROOT } from './settings.js';

export const TIMINGS: Record<Variant, { prefill: number; decode: number }> = {
  latency: { prefill: 50, decode: 500 },
  stream: { prefill: 50, decode: 500 },
  fast: { prefill: 5, decode: 20 },
};

/** The variant's model repository, prepared (generated and built) by this run or, --prebuilt, before it. */
export const repositoryOf = (variant: Variant) => join(OUT, variant, 'repo');

/** Generates the variant's repository (a fresh one) and builds its steps. */
export async function prepare(variant: Variant): Promise<string> {
  const pipeline = JSON.parse(
    readFileSync(join(ROOT, 'samples/gpt2-sim/gpt2-sim.pipeline.json'), 'utf8'),
  ) as {
    name: string;
    inputs: Record<string, unknown>[];
    wires: Record<string, unknown>[];
    steps: Record<string, unknown>[];
  };
  pipeline.name = `gpt2_sim_${variant}`;
  const timing = TIMINGS[variant];
  for (const step of pipeline.steps) {
    if (step.name !== 'sim_llm') continue;
    step.parameters = { prefill_us_per_token: timing.prefill, decode_us_per_step: timing.decode };
    if (variant === 'stream') {
      step.decoupled = true;
      step.inputs = [{ name: 'streaming', dataType: 'BOOL', dims: [1], optional: true }];
    }
  }
  if (variant === 'stream') {
    pipeline.inputs.push({ name: 'stream', dataType: 'BOOL', dims: [1], optional: true });
    pipeline.wires.push({ from: 'stream', to: 'sim_llm.streaming' });
  }
  const dir = join(OUT, variant);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'pipeline.json');
  writeFileSync(file, JSON.stringify(pipeline));
  const repo = repositoryOf(variant);
  const { diagnostics } = generateRepository({ pipelinePath: file, outDir: repo });
  if (hasErrors(diagnostics)) throw new Error(`generating ${variant}: ${JSON.stringify(diagnostics)}`);
  await buildRepository(repo);
  return repo;
}
