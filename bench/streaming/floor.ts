/**
 * The per-step floor (issue 14, item 4): what one native step costs inside Triton when it does
 * nothing. Two ensembles on one server, three steps each, concurrency 1:
 *   gpt2_sim   tokenize (GPT-2) → sim_llm (zero delay, not decoupled) → detokenize
 *   floor      identity → identity → identity (bench/streaming/identity: output i = input i,
 *              through the same glue as the native steps)
 * Prints each step's mean time per request inside the server (queue, compute input/infer/output)
 * from Triton's statistics, and the ratio of the native steps to the identity floor.
 * With --perf, `perf record -g` samples the server during each ensemble's run and the report
 * splits its CPU time into the steps' own code, the glue, Triton and the kernel.
 * Run: node --import tsx bench/streaming/floor.ts [requests] [--perf]
 */
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TritonClient, deployRepository, runLatencyTest, startLocalServer } from '../../client/index.js';
import { buildRepository, generateRepository, hasErrors } from '../../generator/index.js';

const ROOT = path.resolve(__dirname, '../..');
const requests = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 2000);
const profile = process.argv.includes('--perf');
const scratch = mkdtempSync(path.join(tmpdir(), 'ts-floor-'));
const repo = path.join(scratch, 'repo');

async function main(): Promise<void> {
  // The sample with sim-llm at zero delay.
  const pipeline = JSON.parse(
    readFileSync(path.join(ROOT, 'samples/gpt2-sim/gpt2-sim.pipeline.json'), 'utf8'),
  );
  pipeline.$schema = undefined;
  pipeline.steps.find((s: { name: string }) => s.name === 'sim_llm').parameters = {
    prefill_us_per_token: 0,
    decode_us_per_step: 0,
  };
  const pipelineFile = path.join(ROOT, 'samples/gpt2-sim/.floor.pipeline.json');
  writeFileSync(pipelineFile, JSON.stringify(pipeline));
  try {
    const { diagnostics } = generateRepository({ pipelinePath: pipelineFile, outDir: repo });
    if (hasErrors(diagnostics)) throw new Error(JSON.stringify(diagnostics));
  } finally {
    execFileSync('rm', ['-f', pipelineFile]);
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
  const steps = ['identity_pre', 'identity_mid', 'identity_post'];
  for (const [i, name] of steps.entries()) {
    const last = i === steps.length - 1;
    mkdirSync(path.join(repo, name, '1'), { recursive: true });
    copyFileSync(
      path.join(identityBuild, 'libtriton_ts_identity.so'),
      path.join(repo, name, '1/libtriton_ts_identity.so'),
    );
    writeFileSync(
      path.join(repo, name, 'config.pbtxt'),
      `name: "${name}"\nbackend: "ts_identity"\nmax_batch_size: 8\ndynamic_batching {}\n` +
        `instance_group { count: 1 kind: KIND_CPU }\n` +
        `input { name: "IN0" data_type: TYPE_STRING dims: [1] }\ninput { name: "IN1" data_type: TYPE_INT32 dims: [1] }\n` +
        `output { name: "OUT0" data_type: TYPE_STRING dims: [1] }\n` +
        (last ? '' : `output { name: "OUT1" data_type: TYPE_INT32 dims: [1] }\n`),
    );
  }
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

  const server = await startLocalServer({ modelRepository: repo });
  const client = new TritonClient(server.grpcUrl);
  try {
    if (!(await deployRepository(client, { repository: repo, mode: 'local' })).ok)
      throw new Error('deploy failed');
    for (const m of [...steps, 'floor']) await client.loadModel(m);
    // ~200-token prompt, 8 output tokens, as the headline benchmark.
    const prompt = 'The quick brown fox jumps over the lazy dog. '.repeat(20);
    const rows: Record<
      string,
      { requestUs: number; inUs: number; inferUs: number; outUs: number; queueUs: number }
    > = {};
    for (const model of ['gpt2_sim', 'floor']) {
      const perfData = path.join(scratch, `${model}.perf.data`);
      const recorder = profile
        ? spawn('perf', ['record', '-F', '2000', '-g', '-p', String(server.pid), '-o', perfData], {
            stdio: 'ignore',
          })
        : undefined;
      const report = await runLatencyTest(client, {
        model,
        prompt,
        maxTokens: 8,
        load: { mode: 'concurrency', concurrency: 1, requests, warmupRequests: 200 },
      });
      console.log(
        `${model}: ${report.results.requestsPerSecond.toFixed(0)} req/s, p50 ${report.results.latency.p50Ms.toFixed(3)} ms`,
      );
      if (recorder) {
        await new Promise((resolve) => {
          recorder.on('exit', resolve);
          recorder.kill('SIGINT');
        });
        console.log(cpuShares(perfData));
      }
      for (const m of report.serverBreakdown) {
        rows[m.model] = {
          requestUs: m.avgRequestMs * 1000,
          queueUs: m.avgQueueMs * 1000,
          inUs: m.avgComputeInputMs * 1000,
          inferUs: m.avgComputeInferMs * 1000,
          outUs: m.avgComputeOutputMs * 1000,
        };
      }
    }
    console.log('\nper request inside the server, µs:   whole  queue  input  infer  output');
    for (const [model, r] of Object.entries(rows)) {
      const f = (x: number) => x.toFixed(1).padStart(6);
      console.log(
        `  ${model.padEnd(16)} ${f(r.requestUs)} ${f(r.queueUs)} ${f(r.inUs)} ${f(r.inferUs)} ${f(r.outUs)}`,
      );
    }
    const floor = (rows.identity_pre!.requestUs + rows.identity_post!.requestUs) / 2;
    for (const step of ['preprocessing', 'postprocessing']) {
      console.log(
        `${step}: ${(rows[step]!.requestUs / floor).toFixed(2)}x the identity floor (${floor.toFixed(1)} µs)`,
      );
    }
  } finally {
    client.close();
    await server.stop();
  }
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

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
