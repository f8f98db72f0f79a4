/**
 * Generator benchmark (`npm run bench:generator`): generating a 50-step pipeline (target < 200 ms)
 * and validating a typical pipeline file (target < 20 ms, since the editor validates on every
 * keystroke). Reports median and p95 over repeated runs after warm-up; results go in
 * docs/BENCHMARKS.md ("Generator").
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generateRepository, validatePipeline, type Pipeline } from '../../generator/index.js';

const ROOT = resolve(__dirname, '../..');
const TYPICAL = join(ROOT, 'samples/codegen-fastertransformer/codegen-fastertransformer.pipeline.json');

/** tokenize → 48 chained model steps (two tensors each) → detokenize. */
function fiftyStepPipeline(): Pipeline {
  const steps: Pipeline['steps'] = [
    { name: 'preprocessing', kind: 'tokenize', preset: 'sim-llm/preprocessing', tokenizer: 'gpt2' },
  ];
  const wires: Pipeline['wires'] = [
    { from: 'text_input', to: 'preprocessing.QUERY' },
    { from: 'max_tokens', to: 'preprocessing.REQUEST_OUTPUT_LEN' },
  ];
  let prev = { ids: 'preprocessing.INPUT_ID', len: 'preprocessing.REQUEST_INPUT_LEN' };
  for (let i = 1; i <= 48; i++) {
    const name = `stage_${i}`;
    steps.push({
      name,
      kind: 'model',
      backend: 'onnxruntime',
      maxBatchSize: 8,
      dynamicBatching: { maxQueueDelayMicroseconds: 100 },
      parameters: { stage: i },
      inputs: [
        { name: 'ids_in', dataType: 'UINT32', dims: [-1] },
        { name: 'len_in', dataType: 'UINT32', dims: [1] },
      ],
      outputs: [
        { name: 'ids_out', dataType: 'UINT32', dims: [-1] },
        { name: 'len_out', dataType: 'UINT32', dims: [1] },
      ],
    });
    wires.push({ from: prev.ids, to: `${name}.ids_in` }, { from: prev.len, to: `${name}.len_in` });
    prev = { ids: `${name}.ids_out`, len: `${name}.len_out` };
  }
  steps.push({
    name: 'postprocessing',
    kind: 'detokenize',
    tokenizer: 'gpt2',
    maxBatchSize: 8,
    inputs: [
      { name: 'TOKENS', dataType: 'UINT32', dims: [-1], role: 'tokens' },
      { name: 'LENGTH', dataType: 'UINT32', dims: [1], role: 'sequenceLength' },
    ],
    outputs: [{ name: 'OUTPUT', dataType: 'STRING', dims: [-1], role: 'text' }],
  });
  wires.push(
    { from: prev.ids, to: 'postprocessing.TOKENS' },
    { from: prev.len, to: 'postprocessing.LENGTH' },
    { from: 'postprocessing.OUTPUT', to: 'text_output' },
  );
  return {
    version: 1,
    name: 'fifty_steps',
    maxBatchSize: 8,
    inputs: [
      { name: 'text_input', dataType: 'STRING', dims: [1] },
      { name: 'max_tokens', dataType: 'INT32', dims: [1] },
    ],
    outputs: [{ name: 'text_output', dataType: 'STRING', dims: [-1] }],
    steps,
    wires,
  };
}

function measure(runs: number, fn: () => void): { median: number; p95: number; min: number } {
  for (let i = 0; i < 5; i++) fn(); // warm-up: module loading, schema compilation, JIT
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { median: at(0.5), p95: at(0.95), min: times[0]! };
}

function main(): void {
  const work = mkdtempSync(join(tmpdir(), 'ts-bench-gen-'));
  try {
    const pipelineFile = join(work, 'fifty.pipeline.json');
    const fifty = JSON.stringify(fiftyStepPipeline(), null, 2);
    writeFileSync(pipelineFile, fifty);
    const outDir = join(work, 'repo');
    const check = generateRepository({ pipelinePath: pipelineFile, outDir });
    const errors = check.diagnostics.filter((d) => d.severity === 'error');
    if (errors.length)
      throw new Error(`the benchmark pipeline is invalid: ${errors.map((d) => d.message).join('; ')}`);
    const typical = readFileSync(TYPICAL, 'utf8');

    const rows: [string, { median: number; p95: number; min: number }, number][] = [
      [
        'generate 50-step pipeline (write + atomic replace)',
        measure(30, () => void generateRepository({ pipelinePath: pipelineFile, outDir })),
        200,
      ],
      [
        'generate 50-step pipeline (plan only, dryRun)',
        measure(30, () => void generateRepository({ pipelinePath: pipelineFile, outDir, dryRun: true })),
        200,
      ],
      [
        'validate typical file (codegen-fastertransformer, 3 steps)',
        measure(300, () => void validatePipeline(typical, TYPICAL)),
        20,
      ],
      ['validate 50-step pipeline', measure(100, () => void validatePipeline(fifty, pipelineFile)), 20],
    ];
    console.log(`files per generation: ${check.files.length}; node ${process.version}`);
    console.log('| case | median ms | p95 ms | min ms | target ms | |');
    console.log('|---|---:|---:|---:|---:|---|');
    for (const [name, r, target] of rows) {
      console.log(
        `| ${name} | ${r.median.toFixed(2)} | ${r.p95.toFixed(2)} | ${r.min.toFixed(2)} | < ${target} | ${r.median < target ? 'ok' : 'OVER'} |`,
      );
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main();
