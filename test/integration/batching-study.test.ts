/**
 * sim-llm's scheduling modes on the real tritonserver (what each mode does to a long request and
 * a short one sent just after it), and `study batching` end to end on a short run: the same seeded
 * workload against every mode, its report, its HTML and the CLI on top.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TritonClient } from '../../client/grpc/client.js';
import { sendPrompt } from '../../client/prompt.js';
import { startLocalServer, type LocalServer } from '../../client/server/localServer.js';
import {
  DEFAULT_STUDY_MODEL,
  runBatchingStudy,
  studyModelConfig,
  type SchedulingMode,
} from '../../client/study/batching.js';
import { formatStudyReport, renderStudyHtml } from '../../client/study/batchingReport.js';
import { buildBackends, simLlmLibrary } from '../../generator/build/index.js';

const ROOT = resolve(__dirname, '../..');
const scratch = mkdtempSync(join(tmpdir(), 'ts-batching-'));
let server: LocalServer;
let client: TritonClient;
let library: string;

beforeAll(async () => {
  library = simLlmLibrary((await buildBackends()).buildDir);
  server = await startLocalServer({ modelRepository: scratch });
  client = new TritonClient(server.grpcUrl);
}, 600_000);

afterAll(async () => {
  client?.close();
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

// 2 ms per decode step: the long request (60 tokens) takes ≥ 120 ms, the short one (1 token) ~2 ms.
const MODEL = { ...DEFAULT_STUDY_MODEL, decodeUsPerStep: 2000, maxBatch: 2, staticTimeoutUs: 400_000 };

async function deploy(mode: SchedulingMode, extra: Record<string, string> = {}): Promise<string> {
  const name = `sched_${mode}`;
  const config = studyModelConfig(name, mode, MODEL) as {
    parameters: Record<string, { string_value: string }>;
  };
  for (const [key, value] of Object.entries(extra)) config.parameters[key] = { string_value: value };
  await client.loadModel(name, { config, files: { '1/libtriton_sim_llm.so': readFileSync(library) } });
  return name;
}

/** A long request, then 30 ms later a short one: when each is answered, ms after the first send. */
async function longThenShort(model: string): Promise<{ long: number; short: number; shortText: string }> {
  const config = await client.modelConfig(model);
  const t0 = performance.now();
  const ask = (maxTokens: number) =>
    sendPrompt(client, { model, text: 'alpha beta', maxTokens, config }).then((r) => ({
      at: performance.now() - t0,
      text: r.text,
    }));
  const long = ask(60);
  await new Promise((r) => setTimeout(r, 30));
  const [l, s] = await Promise.all([long, ask(1)]);
  return { long: l.at, short: s.at, shortText: s.text };
}

describe('sim-llm scheduling modes', () => {
  it('none: one request at a time, so the short one waits for the long one', async () => {
    const t = await longThenShort(await deploy('none'));
    expect(t.short).toBeGreaterThan(t.long);
    expect(t.shortText).toBe('alpha beta alpha');
  });

  it('static: a batch starts full or after its timeout, and everyone in it is answered at its end', async () => {
    const model = await deploy('static');
    const t = await longThenShort(model);
    // Full at 2 rows: it starts when the short one arrives and both end together.
    expect(Math.abs(t.short - t.long)).toBeLessThan(40);
    // Alone, a request waits for the batch timeout (400 ms) before it starts.
    const alone = await sendPrompt(client, { model, text: 'alpha', maxTokens: 1 });
    expect(alone.latencyMs).toBeGreaterThanOrEqual(400);
  });

  it('dynamic: a batch starts with what is queued, so a request arriving during it waits for its end', async () => {
    const t = await longThenShort(await deploy('dynamic'));
    expect(t.short).toBeGreaterThan(t.long);
  });

  it('inflight: the short request joins the running batch and leaves as soon as it is done', async () => {
    const t = await longThenShort(await deploy('inflight'));
    expect(t.short).toBeLessThan(t.long - 60);
    expect(t.shortText).toBe('alpha beta alpha');
  });

  it('refuses an unknown mode at load, naming the modes', async () => {
    await expect(deploy('inflight', { scheduling: 'continuous' })).rejects.toThrow(
      /scheduling 'continuous' is not one of none, static, dynamic, inflight/,
    );
  });
});

describe('study batching', () => {
  it('runs one seeded workload against every mode and finds in-flight best on latency per token and for short requests', async () => {
    const steps: string[] = [];
    const report = await runBatchingStudy(client, {
      startRate: 8,
      maxSteps: 2,
      stepS: 1.5,
      maxTokens: 50,
      library,
      onProgress: (p) => {
        if (p.step) steps.push(`${p.mode}@${p.rate}`);
      },
    });
    expect(report.modes.map((m) => m.mode)).toEqual(['none', 'static', 'dynamic', 'inflight']);
    for (const mode of report.modes) {
      for (const step of mode.steps) {
        expect(step.metrics.error_request_count!.avg).toBe(0);
        // sim-llm generated exactly what each request asked for.
        for (const r of step.requests) expect(r.outputTokens).toBe(r.requestedTokens);
      }
    }
    // Every mode saw the same requests at its first step.
    const asked = report.modes.map((m) =>
      m.steps[0]!.requests.map((r) => r.requestedTokens).sort((a, b) => a - b),
    );
    for (const a of asked) expect(a).toEqual(asked[0]);
    expect(steps[0]).toBe('none@8');

    const finding = (claim: string) => report.findings.find((f) => f.claim.includes(claim))!;
    expect(finding('latency per output token').holds).toBe(true);
    expect(finding('short requests').holds).toBe(true);
    expect(finding('requests per second').values.inflight).toBeGreaterThan(
      finding('requests per second').values.none!,
    );

    const html = renderStudyHtml(report, { chartJs: '/* chart.js */' });
    expect(html).toContain('<canvas id="by-tokens">');
    expect(html).toContain('in-flight batching is fairest to short requests');
    expect(formatStudyReport(report)).toMatch(/^inflight +8 /m);
  }, 120_000);

  it('stops when cancelled: requests in flight finish, the report says so, the model is unloaded', async () => {
    const controller = new AbortController();
    const report = await runBatchingStudy(client, {
      startRate: 8,
      stepS: 2,
      maxTokens: 20,
      library,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.completed === 3) controller.abort();
      },
    });
    expect(report.cancelled).toBe(true);
    expect(report.modes.map((m) => m.mode)).toEqual(['none']);
    const step = report.modes[0]!.steps[0]!;
    expect(step.requests.length).toBeGreaterThanOrEqual(3);
    expect(step.requests.length).toBeLessThan(16);
    expect(step.metrics.error_request_count!.avg).toBe(0);
    const index = await client.repositoryIndex();
    expect(index.find((m) => m.name === 'ts_study_none')?.state).not.toBe('READY');
  }, 60_000);

  it('is a CLI command with a report file, and refuses a bad mode with a usage error', async () => {
    const bin = join(ROOT, 'bin/triton-studio.js');
    if (!existsSync(join(ROOT, 'out/cli.js')))
      throw new Error('run `node scripts/bundle.mjs` first (CLI tests need the bundle)');
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
        const child = spawn(process.execPath, [bin, ...args], { cwd: ROOT });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.stderr.on('data', (d) => (stderr += d));
        child.on('close', (code) => done({ code, stdout, stderr }));
      });
    const out = join(scratch, 'study.html');
    const ok = await run([
      'study',
      'batching',
      '--url',
      server.grpcUrl,
      '--modes',
      'none,inflight',
      '--start-rate',
      '4',
      '--steps',
      '1',
      '--step-seconds',
      '2',
      '--max-tokens',
      '20',
      '--library',
      library,
      '--html',
      out,
    ]);
    expect(ok.stderr).not.toMatch(/error/i);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^inflight +4 /m);
    expect(readFileSync(out, 'utf8')).toContain('Latency vs requested tokens');
    const bad = await run(['study', 'batching', '--url', server.grpcUrl, '--modes', 'none,continuous']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      "scheduling mode 'continuous' is not one of none, static, dynamic, inflight",
    );
  }, 120_000);
});
