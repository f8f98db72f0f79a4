/**
 * The OpenAI front under load and hostile sizes: body and prompt limits, bounded concurrency,
 * huge prompts refused by the orchestrator, clients that hang up, and seeded random requests
 * over every route (the set-up: openai-front-fixture.ts). Whatever a request holds, the front
 * answers it well-formed, stays up with bounded memory, and the next good request is exact.
 *
 * Triton 2.51 (the pinned server) crashes under bursts of concurrent gRPC stream cancellations
 * (docs/PIPELINE.md): the disconnect test hangs up one stream at a time.
 */
import { type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { TritonClient } from '../../client/grpc/client.js';
import { startOpenAiServer } from '../../client/openai/server.js';
import { sendPrompt } from '../../client/prompt.js';
import { type LocalServer } from '../../client/server/localServer.js';
import { NativeTokenizer } from '../../client/tokenizer/nativeTokenizer.js';
import {
  answersExactly,
  call,
  expected,
  GPT2,
  KEY,
  MODEL,
  openAiError,
  random,
  rssKb,
  sseText,
  useOpenAiFront,
} from './openai-front-fixture.js';

const env = useOpenAiFront();
let server: LocalServer;
let grpc: TritonClient;
let tokenizerBinary: string;
let front: ChildProcessWithoutNullStreams;
let frontUrl: URL;
beforeAll(() => void ({ server, grpc, tokenizerBinary, front, frontUrl } = env));

describe('size limits and bounded concurrency', () => {
  it('30 parallel 15 MB bodies are refused with 413 and the front stays small', async () => {
    const before = rssKb(front.pid!, 'VmRSS');
    const big = Buffer.from(JSON.stringify({ model: MODEL, prompt: 'a'.repeat(15 * 1024 * 1024) }));
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        // Half declare their length (refused before reading), half are chunked (refused at the limit).
        call('POST', '/completions', big, { chunked: i % 2 === 1 }).catch((e: Error) => e),
      ),
    );
    for (const answer of answers) {
      // A client still writing when the front closes may see the reset instead of the answer.
      if (answer instanceof Error) expect(answer.message).toMatch(/EPIPE|ECONNRESET/);
      else {
        expect(answer.status).toBe(413);
        expect(openAiError(answer).message).toMatch(/--max-body-bytes/);
      }
    }
    expect(answers.filter((a) => !(a instanceof Error)).length).toBeGreaterThan(0);
    // Today's front read every body whole (3.9 GB for this burst).
    expect(rssKb(front.pid!, 'VmHWM') - before).toBeLessThan(400 * 1024);
    await answersExactly();
  });

  it('a prompt over --max-prompt-bytes / --max-prompt-tokens is refused before it reaches Triton', async () => {
    const tokenizer = new NativeTokenizer(tokenizerBinary, GPT2);
    const small = await startOpenAiServer({
      triton: grpc,
      tokenizer,
      maxPromptBytes: 1000,
      maxPromptTokens: 50,
    });
    try {
      const base = new URL(small.url);
      const bytes = await call(
        'POST',
        '/completions',
        JSON.stringify({ model: MODEL, prompt: 'é'.repeat(501) }),
        {
          base,
          auth: null,
        },
      );
      expect(bytes.status).toBe(400);
      expect(openAiError(bytes)).toMatchObject({ code: 'context_length_exceeded', param: 'prompt' });
      expect(openAiError(bytes).message).toMatch(/1002 bytes .* limit of 1000/);
      const tokens = await call(
        'POST',
        '/completions',
        JSON.stringify({ model: MODEL, prompt: ' a'.repeat(51) }),
        {
          base,
          auth: null,
        },
      );
      expect(tokens.status).toBe(400);
      expect(openAiError(tokens).message).toMatch(/51 tokens, over .* limit of 50/);
      const fits = await call(
        'POST',
        '/completions',
        JSON.stringify({ model: MODEL, prompt: ' a'.repeat(50), max_tokens: 2 }),
        {
          base,
          auth: null,
        },
      );
      expect(fits.status, fits.text).toBe(200);
    } finally {
      await small.close();
      tokenizer.close();
    }
  });

  it('beyond --max-concurrent requests wait; beyond --max-queued they get 429', async () => {
    const tokenizer = new NativeTokenizer(tokenizerBinary, GPT2);
    const small = await startOpenAiServer({ triton: grpc, tokenizer, maxConcurrent: 1, maxQueued: 1 });
    try {
      const base = new URL(small.url);
      const ask = () =>
        call(
          'POST',
          '/completions',
          JSON.stringify({ model: MODEL, prompt: 'The quick brown fox', max_tokens: 40 }),
          {
            base,
            auth: null,
          },
        );
      const first = ask();
      await new Promise((r) => setTimeout(r, 50));
      const second = ask();
      await new Promise((r) => setTimeout(r, 50));
      const third = await ask();
      expect(third.status).toBe(429);
      expect(third.headers['retry-after']).toBe('1');
      expect(openAiError(third)).toMatchObject({ type: 'rate_limit_error' });
      const want = await expected('The quick brown fox', 40);
      for (const answer of await Promise.all([first, second])) {
        expect(answer.status).toBe(200);
        expect((JSON.parse(answer.text) as { choices: { text: string }[] }).choices[0]!.text).toBe(want);
      }
    } finally {
      await small.close();
      tokenizer.close();
    }
  });
});

describe('huge prompts are refused by the orchestrator at once', () => {
  it("over the tokenize step's max_input_bytes: before tokenizing, and the next answer is exact", async () => {
    const started = Date.now();
    await expect(
      sendPrompt(grpc, { model: MODEL, text: 'a '.repeat(512 * 1024), maxTokens: 4 }),
    ).rejects.toThrow(/over this step's limit of 4096 per prompt \(parameter max_input_bytes\)/);
    // Today: tokenized whole (0.5 s for this 1 MiB; 31.7 s and 2.5 GB for 64 MB) before anything said no.
    expect(Date.now() - started).toBeLessThan(400);
    await answersExactly();
  });

  it("the probe's 64 MB prompt: refused at once, and tritonserver's memory comes back", async () => {
    const status = () => readFileSync(`/proc/${server.pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status())![1]);
    const [rssBefore, peakBefore] = [kb('VmRSS'), kb('VmHWM')];
    const started = Date.now();
    await expect(
      sendPrompt(grpc, {
        model: MODEL,
        text: 'a '.repeat(32 * 1024 * 1024),
        maxTokens: 4,
        timeoutMs: 60_000,
      }),
    ).rejects.toThrow(/parameter max_input_bytes/);
    const ms = Date.now() - started;
    const grewMb = (kb('VmHWM') - peakBefore) / 1024;
    // Measured (issue 25): was 31.7 s at 2.5 GB. Now only gRPC's and Triton's copies of the bytes.
    console.log(`64 MB prompt: refused in ${ms} ms, server peak +${grewMb.toFixed(0)} MB`);
    // Sending 64 MB over gRPC takes seconds on a loaded CI box; tokenizing it took half a minute.
    expect(ms).toBeLessThan(15_000);
    expect(grewMb).toBeLessThan(400);
    await answersExactly();
    expect((kb('VmRSS') - rssBefore) / 1024).toBeLessThan(200);
  }, 120_000);

  it("over the model step's max_input_len, taken as the token limit", async () => {
    await expect(sendPrompt(grpc, { model: MODEL, text: ' a'.repeat(65), maxTokens: 4 })).rejects.toThrow(
      /the prompt is 65 tokens, over this step's limit of 64 \(parameter max_input_tokens\)/,
    );
    const fits = await sendPrompt(grpc, { model: MODEL, text: ' a'.repeat(64), maxTokens: 3 });
    expect(fits.text).toBe(await expected(' a'.repeat(64), 3));
    // Through the front: the step's refusal is the client's error, a 400.
    const front400 = await call(
      'POST',
      '/completions',
      JSON.stringify({ model: MODEL, prompt: ' a'.repeat(65) }),
    );
    expect(front400.status).toBe(400);
    expect(openAiError(front400).message).toMatch(/max_input_tokens/);
  });
});

describe('a client that hangs up', () => {
  it('has its stream cancelled at Triton: the next request is answered at once', async () => {
    // Each abandoned answer would hold sim-llm's one instance for 4000 × 5 ms = 20 s.
    for (let i = 0; i < 5; i++) {
      const controller = new AbortController();
      const res = await fetch(`${frontUrl.href}/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
        body: JSON.stringify({ model: MODEL, prompt: 'The quick brown fox', max_tokens: 4000, stream: true }),
        signal: controller.signal,
      });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      await reader.read();
      controller.abort();
      await reader.read().catch(() => undefined);
      // One cancellation at a time (see the file's comment on Triton 2.51).
      await new Promise((r) => setTimeout(r, 100));
    }
    const started = Date.now();
    await answersExactly();
    expect(Date.now() - started).toBeLessThan(5000);
  }, 60_000);
});

describe('fuzz: seeded random requests over every route', () => {
  it('every answer is a well-formed HTTP response below 500, and the front stays up and exact', async () => {
    const r = random(20261126);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(r() * items.length)]!;
    const scalars = [
      null,
      true,
      false,
      0,
      -1,
      1,
      3,
      1.5,
      2 ** 31,
      -(2 ** 31),
      2 ** 53,
      1e308,
      -0,
      '',
      'x',
      '\ud800',
      '\udfff',
      'a\u0000b',
      '😀',
      'ab\ud83d',
      'The quick brown fox',
      'é'.repeat(300),
      MODEL,
      'sim_llm',
      '../etc',
      'user',
      'assistant',
      'system',
      'text',
    ];
    const value = (depth: number): unknown => {
      const roll = r();
      if (depth > 2 || roll < 0.6) return pick(scalars);
      if (roll < 0.8) return Array.from({ length: Math.floor(r() * 3) }, () => value(depth + 1));
      return Object.fromEntries(
        Array.from({ length: Math.floor(r() * 3) }, () => [pick(fields), value(depth + 1)]),
      );
    };
    const fields = [
      'model',
      'prompt',
      'messages',
      'max_tokens',
      'max_completion_tokens',
      'stream',
      'stream_options',
      'include_usage',
      'n',
      'echo',
      'temperature',
      'role',
      'content',
      'type',
      'text',
      'stop',
      '__proto__',
    ];
    const routes = [
      ['POST', '/completions'],
      ['POST', '/chat/completions'],
      ['GET', '/models'],
      ['POST', '/models'],
      ['PUT', '/completions'],
      ['DELETE', '/chat/completions'],
      ['POST', '/completions/'],
      ['POST', '/nowhere'],
      ['POST', '/completions?x=1'],
      ['GET', '/models?'],
    ] as const;
    const requestBody = (path: string): string | Buffer => {
      const chat = path.startsWith('/chat');
      const body: Record<string, unknown> = chat
        ? { model: MODEL, messages: [{ role: 'user', content: 'The quick brown fox' }], max_tokens: 3 }
        : { model: MODEL, prompt: 'The quick brown fox', max_tokens: 3 };
      if (r() < 0.5) body.stream = true;
      for (let m = Math.floor(r() * 3); m > 0; m--) {
        const roll = r();
        if (roll < 0.5) body[pick(fields)] = value(0);
        else if (roll < 0.7) delete body[pick(Object.keys(body).concat('model'))];
        else if (chat) body.messages = [{ role: pick(scalars), content: value(1) }];
        else body.prompt = value(1);
      }
      const text = r() < 0.05 ? JSON.stringify(value(0)) : JSON.stringify(body);
      const damage = r();
      if (damage < 0.05) return text.slice(0, Math.floor(r() * text.length));
      if (damage < 0.08) return Buffer.concat([Buffer.from(text), Buffer.from([0xff, 0xc3])]);
      return text;
    };
    const seen = new Map<number, number>();
    const one = async (): Promise<void> => {
      const [method, path] = pick(routes);
      const auth = r() < 0.05 ? pick([null, 'Bearer x']) : undefined;
      const answer = await call(method, path, method === 'GET' && r() < 0.5 ? undefined : requestBody(path), {
        auth,
        timeoutMs: 20_000,
      });
      seen.set(answer.status, (seen.get(answer.status) ?? 0) + 1);
      expect(answer.status, answer.text).toBeLessThan(500);
      if (answer.status >= 400) openAiError(answer);
      else if (answer.headers['content-type'] === 'text/event-stream') sseText(answer.text);
      else expect(() => JSON.parse(answer.text) as unknown).not.toThrow();
    };
    for (let round = 0; round < 50; round++) await Promise.all(Array.from({ length: 8 }, one));
    // The fuzz reached both sides: answers and refusals.
    expect(seen.get(200) ?? 0).toBeGreaterThan(20);
    expect(seen.get(400) ?? 0).toBeGreaterThan(20);
    await answersExactly();
  }, 300_000);
});
