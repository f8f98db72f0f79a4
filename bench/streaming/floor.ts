/**
 * The per-step floor (issue 14, item 4): what one native step costs inside Triton when it does
 * nothing. Four ensembles on one server, three steps each, concurrency 1, a ~200-token prompt
 * and 8 output tokens:
 *   gpt2_sim   tokenize (GPT-2) → sim_llm (zero delay, no batching delay; decoupled with
 *              --decoupled, as in the headline benchmark) → detokenize
 *   floor      identity → identity → identity (bench/streaming/identity: output i = input i,
 *              through the same glue as the native steps)
 *   floor_sim  identity → sim_llm → identity: the shape of gpt2_sim, each native step replaced by
 *              an identity step with the same tensors: the first reads text_input/max_tokens and
 *              hands sim-llm the prompt's bytes as UINT32 (226 values against 200 ids), the last
 *              reads sim-llm's UINT32 tokens and length and writes the tokens back as one string.
 *              So each step is compared with one that gets and makes the same hand-offs, to and
 *              from the same backend (the identity-only floor's neighbours are identity steps).
 *   floor_post tokenize → sim_llm → identity: gpt2_sim with only its detokenize step replaced.
 * Each run measures the four ensembles one after another (the order rotating per run) and
 * --runs repeats it: the shared box's load moves single runs by 2–4×, so the report gives each
 * step's median over the runs with its spread (min–max), and the ratios per run (a run's
 * ensembles ran within seconds of each other) as median and spread:
 *   tokenize   gpt2_sim's preprocessing / floor_sim's identity_pre_sim (both before sim-llm)
 *   detokenize gpt2_sim's postprocessing / floor_sim's identity_post_sim (both after sim-llm)
 * and, for comparison, against the identity-only floor and the same tokenize step measured in two
 * ensembles (floor_post's / gpt2_sim's: how far apart two identical steps measure).
 * Times per request are from Triton's statistics: whole = the step's request time (from its
 * creation by the ensemble to its end), queue, compute input/infer/output, and "before queue" =
 * whole − queue − compute (the ensemble's hand-off to the step and the response after compute).
 * With --perf, `perf record -g` samples the server during the first run of each ensemble and the
 * report splits its CPU time into the steps' own code, the glue, Triton and the kernel.
 * Run: node --import tsx bench/streaming/floor.ts [--requests 2000] [--runs 7] [--perf] [--decoupled] [--out FILE.json]
 */
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { TritonClient, deployRepository, runLatencyTest, startLocalServer } from '../../client/index.js';
import { buildRepository, generateRepository, hasErrors } from '../../generator/index.js';

const ROOT = path.resolve(__dirname, '../..');
const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '2000' },
    runs: { type: 'string', default: '7' },
    perf: { type: 'boolean', default: false },
    decoupled: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});
const requests = Number(args.requests);
const runs = Number(args.runs);
if (!(requests > 0) || !(runs > 0)) throw new Error('--requests and --runs must be positive numbers');
const scratch = mkdtempSync(path.join(tmpdir(), 'ts-floor-'));
const repo = path.join(scratch, 'repo');
const ENSEMBLES = ['gpt2_sim', 'floor', 'floor_sim', 'floor_post'] as const;

/** One step's mean time per request in one run, µs. */
interface StepTime {
  whole: number;
  queue: number;
  input: number;
  infer: number;
  output: number;
  beforeQueue: number;
}

/** The identity step `name`: `inputs` read, the first `outputs.length` written back as `outputs`. */
function identityStep(
  name: string,
  inputs: [string, string, number[]][],
  outputs: [string, string, number[]][],
  library: string,
): void {
  mkdirSync(path.join(repo, name, '1'), { recursive: true });
  copyFileSync(library, path.join(repo, name, '1/libtriton_ts_identity.so'));
  const tensor = (kind: string, [tname, type, dims]: [string, string, number[]]) =>
    `${kind} { name: "${tname}" data_type: ${type} dims: [${dims.join(', ')}] }\n`;
  writeFileSync(
    path.join(repo, name, 'config.pbtxt'),
    `name: "${name}"\nbackend: "ts_identity"\nmax_batch_size: 8\ndynamic_batching {}\n` +
      `instance_group { count: 1 kind: KIND_CPU }\n` +
      inputs.map((t) => tensor('input', t)).join('') +
      outputs.map((t) => tensor('output', t)).join(''),
  );
}

async function main(): Promise<void> {
  // The sample with sim-llm at zero delay.
  const pipeline = JSON.parse(
    readFileSync(path.join(ROOT, 'samples/gpt2-sim/gpt2-sim.pipeline.json'), 'utf8'),
  );
  pipeline.$schema = undefined;
  const sim = pipeline.steps.find((s: { name: string }) => s.name === 'sim_llm');
  sim.parameters = { prefill_us_per_token: 0, decode_us_per_step: 0 };
  // No batching delay (the preset waits 1 ms for a batch): at concurrency 1 it is idle time
  // between the steps that the ensembles compared here would not all have.
  sim.dynamicBatching = { maxQueueDelayMicroseconds: 0 };
  // As the headline benchmark's sim-llm: one response, then the final flag on its own.
  // (A decoupled model step is served by the orchestrator unless the pipeline asks for an ensemble.)
  if (args.decoupled) {
    sim.decoupled = true;
    pipeline.serving = 'ensemble';
  }
  const pipelineFile = path.join(ROOT, 'samples/gpt2-sim/.floor.pipeline.json');
  writeFileSync(pipelineFile, JSON.stringify(pipeline));
  try {
    const { diagnostics } = generateRepository({ pipelinePath: pipelineFile, outDir: repo });
    if (hasErrors(diagnostics)) throw new Error(JSON.stringify(diagnostics));
  } finally {
    rmSync(pipelineFile, { force: true });
  }
  await buildRepository(repo);

  // The identity backend, built against the same prebuilt glue as the steps.
  const identityBuild = path.join(ROOT, 'build/bench-identity');
  execFileSync('cmake', [
    '-S',
    path.join(ROOT, 'bench/streaming/identity'),
    '-B',
    identityBuild,
    `-DTRITON_STUDIO_BACKENDS_DIR=${path.join(ROOT, 'backends')}`,
    `-DTRITON_STUDIO_BACKENDS_BUILD=${path.join(ROOT, 'build/backends')}`,
  ]);
  execFileSync('cmake', ['--build', identityBuild]);
  const library = path.join(identityBuild, 'libtriton_ts_identity.so');
  const text: [string, string, number[]] = ['IN0', 'TYPE_STRING', [1]];
  const count: [string, string, number[]] = ['IN1', 'TYPE_INT32', [1]];
  const out = (i: number, [, type, dims]: [string, string, number[]]): [string, string, number[]] => [
    `OUT${i}`,
    type,
    dims,
  ];
  identityStep('identity_pre', [text, count], [out(0, text), out(1, count)], library);
  identityStep('identity_mid', [text, count], [out(0, text), out(1, count)], library);
  identityStep('identity_post', [text, count], [out(0, text)], library);
  // tokenize's tensors in and out (the sim-llm preset's), the prompt's bytes as the ids.
  identityStep(
    'identity_pre_sim',
    [
      ['QUERY', 'TYPE_STRING', [1]],
      ['REQUEST_OUTPUT_LEN', 'TYPE_INT32', [1]],
      ['REQUEST_OUTPUT_LEN_', 'TYPE_INT32', [1]],
    ],
    [
      ['INPUT_ID', 'TYPE_UINT32', [-1]],
      ['REQUEST_INPUT_LEN', 'TYPE_UINT32', [1]],
      ['REQUEST_OUTPUT_LEN', 'TYPE_UINT32', [-1]],
    ],
    library,
  );
  // detokenize's own tensors (the sim-llm preset's), its tokens written back as the string OUTPUT.
  identityStep(
    'identity_post_sim',
    [
      ['TOKENS_BATCH', 'TYPE_UINT32', [-1, -1]],
      ['SEQUENCE_LENGTH', 'TYPE_UINT32', [-1]],
    ],
    [['OUTPUT', 'TYPE_STRING', [-1]]],
    library,
  );
  const stepBlock = (name: string, ins: [string, string], outs: string[]) =>
    `  step { model_name: "${name}" model_version: -1 input_map { key: "IN0" value: "${ins[0]}" } ` +
    `input_map { key: "IN1" value: "${ins[1]}" } ` +
    outs.map((o, i) => `output_map { key: "OUT${i}" value: "${o}" }`).join(' ') +
    ' }\n';
  mkdirSync(path.join(repo, 'floor', '1'), { recursive: true });
  writeFileSync(
    path.join(repo, 'floor', 'config.pbtxt'),
    `name: "floor"\nplatform: "ensemble"\nmax_batch_size: 8\n` +
      `input { name: "text_input" data_type: TYPE_STRING dims: [1] }\ninput { name: "max_tokens" data_type: TYPE_INT32 dims: [1] }\n` +
      `output { name: "text_output" data_type: TYPE_STRING dims: [1] }\nensemble_scheduling {\n` +
      stepBlock('identity_pre', ['text_input', 'max_tokens'], ['a0', 'a1']) +
      stepBlock('identity_mid', ['a0', 'a1'], ['b0', 'b1']) +
      stepBlock('identity_post', ['b0', 'b1'], ['text_output']) +
      '}\n',
  );
  // gpt2_sim's ensemble with identity steps in the native steps' places (same tensor names; the
  // stand-in for tokenize gets max_tokens twice, as its input_lengths and request_output_len).
  const generated = readFileSync(path.join(repo, 'gpt2_sim', 'config.pbtxt'), 'utf8');
  if (!/model_name: "postprocessing"/.test(generated) || !/model_name: "preprocessing"/.test(generated))
    throw new Error('gpt2_sim has no preprocessing/postprocessing step');
  const post = generated.replace(/model_name: "postprocessing"/, 'model_name: "identity_post_sim"');
  const both = post.replace(
    /model_name: "preprocessing"(\s*model_version: -1)/,
    'model_name: "identity_pre_sim"$1\n      input_map { key: "REQUEST_OUTPUT_LEN_" value: "max_tokens" }',
  );
  if (both === post) throw new Error('unexpected gpt2_sim ensemble: cannot place identity_pre_sim');
  for (const [name, config] of [
    ['floor_post', post],
    ['floor_sim', both],
  ] as const) {
    mkdirSync(path.join(repo, name, '1'), { recursive: true });
    writeFileSync(path.join(repo, name, 'config.pbtxt'), config.replace(/^name: .*$/m, `name: "${name}"`));
  }

  const server = await startLocalServer({ modelRepository: repo });
  const client = new TritonClient(server.grpcUrl);
  /** Per run: `ensemble/step` → that step's times. */
  const measured: Record<string, StepTime>[] = [];
  const throughput: Record<string, number[]> = {};
  try {
    const deployed = await deployRepository(client, { repository: repo, mode: 'local' });
    if (!deployed.ok)
      throw new Error(`deploy failed: ${JSON.stringify(deployed.models.filter((m) => m.state !== 'ready'))}`);
    for (const m of [
      'identity_pre',
      'identity_mid',
      'identity_post',
      'identity_pre_sim',
      'identity_post_sim',
      'floor',
      'floor_sim',
      'floor_post',
    ])
      await client.loadModel(m);
    // ~200-token prompt, 8 output tokens, as the headline benchmark.
    const prompt = 'The quick brown fox jumps over the lazy dog. '.repeat(20);
    for (let run = 0; run < runs; run++) {
      const rows: Record<string, StepTime> = {};
      // Rotating the order: no ensemble always runs first (or right after the same one).
      const order = ENSEMBLES.map((_, i) => ENSEMBLES[(i + run) % ENSEMBLES.length]!);
      for (const ensemble of order) {
        const perfData = path.join(scratch, `${ensemble}.perf.data`);
        const recorder =
          args.perf && run === 0
            ? spawn('perf', ['record', '-F', '2000', '-g', '-p', String(server.pid), '-o', perfData], {
                stdio: 'ignore',
              })
            : undefined;
        const report = await runLatencyTest(client, {
          model: ensemble,
          prompt,
          maxTokens: 8,
          load: { mode: 'concurrency', concurrency: 1, requests, warmupRequests: 200 },
        });
        if (report.results.errors > 0)
          throw new Error(`${ensemble}: ${report.results.errorMessages.join('; ')}`);
        (throughput[ensemble] ??= []).push(report.results.requestsPerSecond);
        if (recorder) {
          await new Promise((resolve) => {
            recorder.on('exit', resolve);
            recorder.kill('SIGINT');
          });
          console.log(`${ensemble} (perf, run 1):\n${cpuShares(perfData)}`);
        }
        for (const m of report.serverBreakdown) {
          if (m.model === ensemble) continue;
          const t = {
            whole: m.avgRequestMs * 1000,
            queue: m.avgQueueMs * 1000,
            input: m.avgComputeInputMs * 1000,
            infer: m.avgComputeInferMs * 1000,
            output: m.avgComputeOutputMs * 1000,
          };
          rows[`${ensemble}/${m.model}`] = {
            ...t,
            beforeQueue: t.whole - t.queue - t.input - t.infer - t.output,
          };
        }
      }
      measured.push(rows);
      const r = ratios(rows);
      console.log(
        `run ${run + 1}/${runs} (${order.join(', ')}): tokenize ${r.tokenize.toFixed(2)}×, detokenize ` +
          `${r.detokenize.toFixed(2)}×; against the identity-only floor ${r.tokenizeIdentityFloor.toFixed(2)}× and ` +
          `${r.detokenizeOldFloor.toFixed(2)}×; the same tokenize in two ensembles ${r.samePre.toFixed(2)}×`,
      );
    }
  } finally {
    client.close();
    await server.stop();
  }
  report(measured, throughput);
}

/** The ratios of one run (its ensembles measured within seconds of each other). */
function ratios(rows: Record<string, StepTime>) {
  const w = (key: string) => {
    const row = rows[key];
    if (!row) throw new Error(`no statistics for ${key}`);
    return row.whole;
  };
  return {
    tokenize: w('gpt2_sim/preprocessing') / w('floor_sim/identity_pre_sim'),
    detokenize: w('gpt2_sim/postprocessing') / w('floor_sim/identity_post_sim'),
    detokenizeAfterTokenize: w('gpt2_sim/postprocessing') / w('floor_post/identity_post_sim'),
    tokenizeIdentityFloor: w('gpt2_sim/preprocessing') / w('floor/identity_pre'),
    // The earlier report's floor: the mean of the identity ensemble's first and last step.
    detokenizeOldFloor:
      w('gpt2_sim/postprocessing') / ((w('floor/identity_pre') + w('floor/identity_post')) / 2),
    // The same tokenize step in two ensembles: how far apart two identical things measure.
    samePre: w('floor_post/preprocessing') / w('gpt2_sim/preprocessing'),
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const spread = (xs: number[], digits: number) =>
  `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;

/** Each step's median over the runs, as one run's rows. */
function medianRows(measured: Record<string, StepTime>[]): Record<string, StepTime> {
  const rows: Record<string, StepTime> = {};
  for (const key of Object.keys(measured[0]!)) {
    const pick = (f: keyof StepTime) => median(measured.map((r) => r[key]![f]));
    rows[key] = {
      whole: pick('whole'),
      queue: pick('queue'),
      input: pick('input'),
      infer: pick('infer'),
      output: pick('output'),
      beforeQueue: pick('beforeQueue'),
    };
  }
  return rows;
}

function report(measured: Record<string, StepTime>[], throughput: Record<string, number[]>): void {
  console.log(`\nmedians over ${measured.length} runs of ${requests} requests (min–max), µs per request:`);
  console.log(
    `  ${'ensemble/step'.padEnd(30)} ${'whole'.padStart(18)} ${'queue'.padStart(7)} ${'before q'.padStart(8)}  input / infer / output`,
  );
  const keys = Object.keys(measured[0]!);
  for (const key of keys) {
    const pick = (f: (t: StepTime) => number) => measured.map((rows) => f(rows[key]!));
    const whole = pick((t) => t.whole);
    console.log(
      `  ${key.padEnd(30)} ${median(whole).toFixed(1).padStart(7)} (${spread(whole, 0).padStart(9)}) ` +
        `${median(pick((t) => t.queue))
          .toFixed(1)
          .padStart(7)} ${median(pick((t) => t.beforeQueue))
          .toFixed(1)
          .padStart(8)}  ` +
        `${median(pick((t) => t.input)).toFixed(1)} / ${median(pick((t) => t.infer)).toFixed(1)} / ${median(pick((t) => t.output)).toFixed(1)}`,
    );
  }
  for (const [ensemble, rps] of Object.entries(throughput))
    console.log(`  ${ensemble}: ${median(rps).toFixed(0)} req/s (${spread(rps, 0)})`);
  const per = measured.map(ratios);
  console.log('\nratios, median over runs (min–max):');
  for (const [name, label] of [
    ['tokenize', "tokenize / floor_sim's identity_pre_sim (same hand-off to sim-llm)"],
    ['detokenize', "detokenize / floor_sim's identity_post_sim (same hand-off from sim-llm)"],
    ['detokenizeAfterTokenize', "detokenize / floor_post's identity_post_sim (tokenize before both)"],
    ['tokenizeIdentityFloor', "tokenize / floor's identity_pre (identity-only floor)"],
    ['detokenizeOldFloor', 'detokenize / mean of identity_pre and identity_post (the earlier floor)'],
    ['samePre', "floor_post's tokenize / gpt2_sim's tokenize (the same step: the noise)"],
  ] as const) {
    const xs = per.map((r) => r[name]);
    // The same ratio of the steps' medians over the runs: a second view, not run by run.
    const ofMedians = ratios(medianRows(measured))[name];
    console.log(
      `  ${label}: ${median(xs).toFixed(2)}× (${spread(xs, 2)}; ratio of the medians ${ofMedians.toFixed(2)}×)`,
    );
  }
  if (args.out)
    writeFileSync(args.out, `${JSON.stringify({ requests, runs: measured, throughput }, null, 2)}\n`);
}

/**
 * The server's sampled CPU time by where it was spent (self time, not children): the steps' own
 * code (tokenizer, detokenizer, sim-llm), the glue (triton_studio::glue), Triton (libtritonserver,
 * the gRPC frontend, protobuf), the C/C++ runtime, and the kernel.
 */
function cpuShares(perfData: string): string {
  const text = execFileSync(
    'perf',
    ['report', '-i', perfData, '--no-children', '--sort', 'dso,sym', '--stdio', '-g', 'none'],
    {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  const shares = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^\s+([\d.]+)%\s+(\S+)\s+\[(.)\]\s+(.*)$/.exec(line);
    if (!m) continue;
    const [, pct, dso, kind, sym] = m as unknown as [string, string, string, string, string];
    const where =
      kind === 'k' || dso.includes('kernel')
        ? 'kernel'
        : /triton_studio::glue/.test(sym)
          ? 'glue'
          : /libtriton_(preprocessing|postprocessing|sim_llm|ts_identity)|triton_studio|tokenizer/i.test(
                dso + sym,
              )
            ? 'steps'
            : /libc\.so|libstdc\+\+|libm\.so|ld-linux/.test(dso)
              ? 'C/C++ runtime'
              : 'Triton (server, frontend, protobuf)';
    shares.set(where, (shares.get(where) ?? 0) + Number(pct));
  }
  return [...shares.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([where, pct]) => `  ${where}: ${pct.toFixed(1)}%`)
    .join('\n');
}

// The scratch repository (and any perf data, already reported) goes when the run ends.
main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => rmSync(scratch, { recursive: true, force: true }));
