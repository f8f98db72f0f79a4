/**
 * The headline benchmark (issue 14, item 5): on one tritonserver, the same sim-llm at zero delay
 * (decoupled, no batching delay) behind three front ends, a ~200-token prompt, output lengths
 * 8 / 32 / 128 at concurrency 1 / 8 / 32:
 *   python        Python-backend preprocessing/postprocessing written the way TensorRT-LLM's
 *                 inflight_batcher_llm templates do it (bench/streaming/python/*: a Hugging Face
 *                 tokenizer inside model.py) in an ensemble;
 *   ensemble      the native tokenize/detokenize steps in the generated ensemble;
 *   orchestrator  the generated native orchestrator (when the generator has `serving`);
 *   orchestrator-batched  (asked for only) the same behind Triton's dynamic batcher.
 * Per run: requests/s and latency percentiles from the client, and from Triton's statistics the
 * whole server time of the pre/post steps per request (queue + compute; the orchestrator's is its
 * own request time less the model step's) and their compute alone. Variants run interleaved at
 * every point so the shared box's load drifts over all of them alike.
 *
 * Needs a bench-only venv (no Python in the product):
 *   /usr/bin/python3.11 -m venv build/bench-py-venv && build/bench-py-venv/bin/pip install "numpy<2" tokenizers transformers
 * Each point is measured --runs times (variants interleaved within each repeat) and the median of
 * each figure is reported: the shared box's load moves single runs by 2–3×.
 * Run: node --import tsx bench/streaming/headline.ts [--requests 500] [--runs 3] [--lengths 8,32,128]
 *        [--concurrency 1,8,32] [--variants python,ensemble,orchestrator] [--stream] [--engine node|native]
 *        [--out FILE.json]
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  runLatencyTest,
  startLocalServer,
  TritonClient,
  type PerfEngine,
  type PerfReport,
  type ServerModelBreakdown,
} from '../../client/index.js';
import { buildRepository } from '../../generator/build/index.js';
import { generateRepository, hasErrors } from '../../generator/index.js';
import { benchVenv, pythonBackendServer } from '../pythonBackend.js';

const ROOT = path.resolve(__dirname, '../..');
const work = path.join(ROOT, 'build/bench-headline');
const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '500' },
    runs: { type: 'string', default: '3' },
    lengths: { type: 'string', default: '8,32,128' },
    concurrency: { type: 'string', default: '1,8,32' },
    variants: { type: 'string', default: 'python,ensemble,orchestrator' },
    stream: { type: 'boolean', default: false },
    // The client on the same 2 cores: the native engine (ts-perf-driver) costs it less per request.
    engine: { type: 'string', default: 'node' },
    out: { type: 'string', default: path.join(work, 'results.json') },
  },
});
const numbers = (text: string) => text.split(',').map(Number);
const PROMPT = 'The quick brown fox jumps over the lazy dog. '.repeat(20); // 200 GPT-2 tokens

type Variant = 'python' | 'ensemble' | 'orchestrator' | 'orchestrator-batched';
interface Front {
  variant: Variant;
  model: string;
  /** The models that are pre/post-processing (their whole time is summed). */
  prePost: string[];
  /** The orchestrator: its own time is its request time less the model step's. */
  orchestrator?: string;
}

/** The gpt2-sim sample with sim-llm decoupled at zero delay and no batching delay. */
function pipeline(name: string, serving?: 'ensemble' | 'orchestrator'): Record<string, unknown> {
  const p = JSON.parse(readFileSync(path.join(ROOT, 'samples/gpt2-sim/gpt2-sim.pipeline.json'), 'utf8'));
  delete p.$schema;
  p.name = name;
  if (serving) p.serving = serving;
  p.inputs.push({ name: 'stream', dataType: 'BOOL', dims: [1], optional: true });
  p.wires.push({ from: 'stream', to: 'sim_llm.streaming' });
  const sim = p.steps.find((s: { name: string }) => s.name === 'sim_llm');
  sim.decoupled = true;
  sim.inputs = [{ name: 'streaming', dataType: 'BOOL', dims: [1], optional: true }];
  sim.dynamicBatching = { maxQueueDelayMicroseconds: 0 };
  sim.parameters = { prefill_us_per_token: 0, decode_us_per_step: 0 };
  return p;
}

async function generate(name: string, serving?: 'ensemble' | 'orchestrator'): Promise<string> {
  const dir = path.join(work, name);
  const file = path.join(ROOT, `samples/gpt2-sim/.${name}.pipeline.json`); // the tokenizer resolves from the sample's folder
  writeFileSync(file, JSON.stringify(pipeline(name, serving)));
  try {
    rmSync(dir, { recursive: true, force: true });
    const { diagnostics } = generateRepository({ pipelinePath: file, outDir: dir });
    if (hasErrors(diagnostics)) throw new Error(`${name}: ${JSON.stringify(diagnostics)}`);
  } finally {
    rmSync(file, { force: true });
  }
  await buildRepository(dir);
  return dir;
}

/** Copies a generated repository's model folders into the combined one (models it already has are the same). */
function merge(from: string, into: string): string[] {
  const models: string[] = [];
  for (const entry of readdirSync(from)) {
    if (!existsSync(path.join(from, entry, 'config.pbtxt'))) continue;
    models.push(entry);
    if (!existsSync(path.join(into, entry)))
      cpSync(path.join(from, entry), path.join(into, entry), { recursive: true });
  }
  return models;
}

/** The Python-backend steps and their ensemble, beside the native ones (same sim_llm). */
function writePythonFront(repo: string, nativeEnsemble: string): void {
  const venv = benchVenv(path.join(ROOT, 'build/bench-py-venv'), '"numpy<2" tokenizers transformers');
  const tokenizerDir = path.join(work, 'gpt2-tokenizer');
  mkdirSync(tokenizerDir, { recursive: true });
  cpSync(path.join(ROOT, '.cache/tokenizers/gpt2/tokenizer.json'), path.join(tokenizerDir, 'tokenizer.json'));
  writeFileSync(
    path.join(tokenizerDir, 'tokenizer_config.json'),
    JSON.stringify({
      tokenizer_class: 'GPT2Tokenizer',
      bos_token: '<|endoftext|>',
      eos_token: '<|endoftext|>',
      unk_token: '<|endoftext|>',
      model_max_length: 1024,
    }),
  );
  const parameters = (extra: Record<string, string>) =>
    Object.entries({ tokenizer_dir: tokenizerDir, EXECUTION_ENV_PATH: venv, ...extra })
      .map(([k, v]) => `parameters { key: "${k}" value { string_value: "${v}" } }\n`)
      .join('');
  for (const step of ['preprocessing', 'postprocessing']) {
    const native = readFileSync(path.join(repo, step, 'config.pbtxt'), 'utf8');
    // The native step's tensors and batching, the Python backend and the template's parameters.
    const body = native
      .replace(/^#.*\n/gm, '')
      .replace(/^name: .*$/m, `name: "py_${step}"`)
      .replace(/^backend: .*$/m, 'backend: "python"')
      .replace(/parameters \{[\s\S]*$/m, '');
    mkdirSync(path.join(repo, `py_${step}`, '1'), { recursive: true });
    writeFileSync(
      path.join(repo, `py_${step}`, 'config.pbtxt'),
      body +
        parameters(
          step === 'preprocessing' ? { add_special_tokens: 'false' } : { skip_special_tokens: 'true' },
        ),
    );
    cpSync(path.join(__dirname, 'python', step, 'model.py'), path.join(repo, `py_${step}`, '1', 'model.py'));
  }
  const ensemble = readFileSync(path.join(repo, nativeEnsemble, 'config.pbtxt'), 'utf8')
    .replace(/^name: .*$/m, 'name: "hl_python"')
    .replace(/model_name: "(preprocessing|postprocessing)"/g, 'model_name: "py_$1"');
  mkdirSync(path.join(repo, 'hl_python', '1'), { recursive: true });
  writeFileSync(path.join(repo, 'hl_python', 'config.pbtxt'), ensemble);
}

function servingSupported(): boolean {
  const schema = JSON.parse(readFileSync(path.join(ROOT, 'generator/schema/pipeline.schema.json'), 'utf8'));
  return schema.properties?.serving !== undefined;
}

interface Row {
  variant: Variant;
  outputTokens: number;
  concurrency: number;
  requestsPerSecond: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  /** Server time of pre + post per request: queue + compute, µs. */
  prePostWholeUs: number;
  /** Their compute alone (input + infer + output), µs. */
  prePostComputeUs: number;
  errors: number;
}

function perRequest(report: PerfReport, front: Front): { whole: number; compute: number } {
  const byModel = new Map(report.serverBreakdown.map((m) => [m.model, m]));
  const top = byModel.get(front.model)?.requests ?? report.results.requests;
  const total = (m: ServerModelBreakdown | undefined, pick: (m: ServerModelBreakdown) => number) =>
    m ? pick(m) * m.requests : 0;
  const compute = (m: ServerModelBreakdown) =>
    m.avgComputeInputMs + m.avgComputeInferMs + m.avgComputeOutputMs;
  let whole = 0;
  let work = 0;
  for (const name of front.prePost) {
    whole += total(byModel.get(name), (m) => m.avgRequestMs);
    work += total(byModel.get(name), compute);
  }
  if (front.orchestrator) {
    const sim = byModel.get('sim_llm');
    whole +=
      total(byModel.get(front.orchestrator), (m) => m.avgRequestMs) - total(sim, (m) => m.avgRequestMs);
    work += total(byModel.get(front.orchestrator), compute) - total(sim, (m) => m.avgRequestMs);
  }
  return { whole: (whole / top) * 1000, compute: (work / top) * 1000 };
}

async function main(): Promise<void> {
  const variants = args.variants!.split(',') as Variant[];
  mkdirSync(work, { recursive: true });
  const repo = path.join(work, 'repo');
  rmSync(repo, { recursive: true, force: true });
  mkdirSync(repo, { recursive: true });
  const hasServing = servingSupported();
  const fronts: Front[] = [];
  const ensembleRepo = await generate('hl_ensemble', hasServing ? 'ensemble' : undefined);
  const models = merge(ensembleRepo, repo);
  if (variants.includes('python')) {
    writePythonFront(repo, 'hl_ensemble');
    fronts.push({
      variant: 'python',
      model: 'hl_python',
      prePost: ['py_preprocessing', 'py_postprocessing'],
    });
  }
  if (variants.includes('ensemble'))
    fronts.push({ variant: 'ensemble', model: 'hl_ensemble', prePost: ['preprocessing', 'postprocessing'] });
  if (variants.includes('orchestrator')) {
    if (!hasServing) {
      console.log(
        'orchestrator: skipped, this checkout generates no orchestrator yet (no `serving` in the pipeline schema)',
      );
    } else {
      const orchestratorRepo = await generate('hl_orchestrator', 'orchestrator');
      for (const m of merge(orchestratorRepo, repo)) if (!models.includes(m)) models.push(m);
      fronts.push({
        variant: 'orchestrator',
        model: 'hl_orchestrator',
        prePost: [],
        orchestrator: 'hl_orchestrator',
      });
      if (variants.includes('orchestrator-batched')) {
        // The same orchestrator behind Triton's dynamic batcher: queued requests reach one Execute together.
        const batched = path.join(repo, 'hl_orchestrator_batched');
        cpSync(path.join(repo, 'hl_orchestrator'), batched, { recursive: true });
        const config = readFileSync(path.join(batched, 'config.pbtxt'), 'utf8');
        writeFileSync(
          path.join(batched, 'config.pbtxt'),
          `${config.replace(/^name: .*$/m, 'name: "hl_orchestrator_batched"')}dynamic_batching { }\n`,
        );
        fronts.push({
          variant: 'orchestrator-batched',
          model: 'hl_orchestrator_batched',
          prePost: [],
          orchestrator: 'hl_orchestrator_batched',
        });
      }
    }
  }
  // Steps before what calls them; the Python ones last before their ensemble.
  const order = [
    ...models.filter((m) => !m.startsWith('hl_')),
    ...(variants.includes('python') ? ['py_preprocessing', 'py_postprocessing'] : []),
    ...fronts.map((f) => f.model),
  ];
  const server = await startLocalServer({
    modelRepository: repo,
    tritonserver: pythonBackendServer(work),
    loadModels: order,
  });
  const client = new TritonClient(server.grpcUrl);
  const rows: Row[] = [];
  try {
    const requests = Number(args.requests);
    for (const outputTokens of numbers(args.lengths!)) {
      for (const concurrency of numbers(args.concurrency!)) {
        const runs = new Map<Variant, Row[]>(fronts.map((f) => [f.variant, []]));
        for (let run = 0; run < Number(args.runs); run++) {
          for (const front of fronts) {
            const report = await runLatencyTest(client, {
              model: front.model,
              engine: args.engine as PerfEngine,
              prompt: PROMPT,
              maxTokens: outputTokens,
              stream: args.stream,
              load: { mode: 'concurrency', concurrency, requests, warmupRequests: Math.max(10, concurrency) },
            });
            if (report.results.errors > 0) {
              console.log(
                `${front.variant}: ${report.results.errors} errors: ${report.results.errorMessages.join('; ')}`,
              );
            }
            const time = perRequest(report, front);
            runs.get(front.variant)!.push({
              variant: front.variant,
              outputTokens,
              concurrency,
              requestsPerSecond: report.results.requestsPerSecond,
              p50Ms: report.results.latency.p50Ms,
              p90Ms: report.results.latency.p90Ms,
              p99Ms: report.results.latency.p99Ms,
              prePostWholeUs: time.whole,
              prePostComputeUs: time.compute,
              errors: report.results.errors,
            });
          }
        }
        for (const [variant, measured] of runs) {
          const median = (pick: (r: Row) => number) => {
            const xs = measured.map(pick).sort((a, b) => a - b);
            return xs[Math.floor(xs.length / 2)]!;
          };
          const row: Row = {
            variant,
            outputTokens,
            concurrency,
            requestsPerSecond: median((r) => r.requestsPerSecond),
            p50Ms: median((r) => r.p50Ms),
            p90Ms: median((r) => r.p90Ms),
            p99Ms: median((r) => r.p99Ms),
            prePostWholeUs: median((r) => r.prePostWholeUs),
            prePostComputeUs: median((r) => r.prePostComputeUs),
            errors: measured.reduce((n, r) => n + r.errors, 0),
          };
          rows.push(row);
          console.log(
            `${String(outputTokens).padStart(4)} tok  c=${String(concurrency).padEnd(3)} ${variant.padEnd(13)}` +
              `${row.requestsPerSecond.toFixed(0).padStart(6)} req/s  p50 ${row.p50Ms.toFixed(2)}  p90 ${row.p90Ms.toFixed(2)}  p99 ${row.p99Ms.toFixed(2)} ms` +
              `  pre+post whole ${row.prePostWholeUs.toFixed(0)} µs, compute ${row.prePostComputeUs.toFixed(0)} µs` +
              ` (req/s over runs: ${measured.map((r) => r.requestsPerSecond.toFixed(0)).join(', ')})`,
          );
        }
      }
    }
  } finally {
    client.close();
    await server.stop();
  }
  writeFileSync(args.out!, `${JSON.stringify({ stream: args.stream, prompt: PROMPT, rows }, null, 2)}\n`);
  console.log('\nratios against python (requests/s, pre+post whole, pre+post compute):');
  for (const row of rows.filter((r) => r.variant !== 'python')) {
    const base = rows.find(
      (r) =>
        r.variant === 'python' && r.outputTokens === row.outputTokens && r.concurrency === row.concurrency,
    );
    if (!base) continue;
    console.log(
      `${String(row.outputTokens).padStart(4)} tok  c=${String(row.concurrency).padEnd(3)} ${row.variant.padEnd(13)}` +
        `${(row.requestsPerSecond / base.requestsPerSecond).toFixed(2)}×  ${(base.prePostWholeUs / row.prePostWholeUs).toFixed(1)}×  ` +
        `${(base.prePostComputeUs / row.prePostComputeUs).toFixed(1)}×`,
    );
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
