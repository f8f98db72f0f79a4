/**
 * The OpenAI front (`openai-serve`, run as the CLI runs it: its own process) against hostile and
 * careless clients, in front of the real tritonserver serving a GPT-2 streaming pipeline through
 * the native orchestrator (decoupled sim-llm, one instance). Whatever a request holds, the front
 * answers it with a well-formed HTTP response (an OpenAI error object for every refusal), the
 * process stays up, its memory stays bounded, and the next good request gets the exact answer
 * (computed with Hugging Face's `tokenizers` from sim-llm's documented behaviour: the i-th
 * generated token is the i-th prompt token, cyclically).
 * This file: the server-version warning, text that is not Unicode, client errors and the API
 * key; sizes, concurrency, hang-ups and the fuzz are in openai-front-limits.test.ts, the set-up in
 * openai-front-fixture.ts.
 */
import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { type LocalServer } from '../../client/server/localServer.js';
import { NativeTokenizer } from '../../client/tokenizer/nativeTokenizer.js';
import {
  answersExactly,
  BIN,
  call,
  GPT2,
  KEY,
  MODEL,
  openAiError,
  ROOT,
  useOpenAiFront,
} from './openai-front-fixture.js';

const env = useOpenAiFront();
let server: LocalServer;
let tokenizerBinary: string;
let frontWarnings: string[];
let deployWarnings: string[];
beforeAll(() => void ({ server, tokenizerBinary, frontWarnings, deployWarnings } = env));

describe("Triton 2.51's burst-cancellation fault", () => {
  it('deploy, status and openai-serve warn about the server version, naming the fixed release', async () => {
    const warning =
      /Triton 2\.51\.0 has the burst-cancellation fault.*Triton 2\.53\.0 or newer \(container 24\.12\+/;
    expect(deployWarnings).toEqual([expect.stringMatching(warning)]);
    expect(frontWarnings).toEqual([expect.stringMatching(warning)]);
    const status = spawnSync(process.execPath, [BIN, 'status', '--url', server.grpcUrl], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(status.status, status.stderr).toBe(0);
    expect(status.stdout).toContain('(Triton 2.51.0)');
    expect(status.stderr).toMatch(warning);
  });
});

describe('text that is not Unicode', () => {
  it('a lone surrogate is a 400 naming it, unary and streamed, and the front keeps serving', async () => {
    const unary = await call(
      'POST',
      '/completions',
      `{"model":"${MODEL}","prompt":"ab\\ud800cd","max_tokens":4}`,
    );
    expect(unary.status).toBe(400);
    const e1 = openAiError(unary);
    expect(e1).toMatchObject({ type: 'invalid_request_error', param: 'prompt' });
    expect(e1.message).toMatch(/lone UTF-16 surrogate \(\\ud800 at offset 2\)/);

    const chat = await call(
      'POST',
      '/chat/completions',
      `{"model":"${MODEL}","messages":[{"role":"user","content":"\\udfff"}],"max_tokens":4,"stream":true}`,
    );
    expect(chat.status).toBe(400);
    expect(openAiError(chat)).toMatchObject({ param: 'messages' });
    // A pair is one character, and fine.
    const pair = await call(
      'POST',
      '/completions',
      `{"model":"${MODEL}","prompt":"ab\\ud83d\\ude00","max_tokens":2}`,
    );
    expect(pair.status, pair.text).toBe(200);
    await answersExactly();
  });

  it('the native tokenizer refuses a lone surrogate for that caller only, and answers the next', async () => {
    const tokenizer = new NativeTokenizer(tokenizerBinary, GPT2);
    try {
      await expect(tokenizer.count('ab\ud800cd')).rejects.toThrow(/lone UTF-16 surrogate/);
      expect(await tokenizer.encode('Hello world')).toEqual([15496, 995]);
      // A process that dies (killed, out of memory) fails what it held and is started again.
      const child = (
        tokenizer as unknown as {
          child: { kill(signal: string): void; once(e: string, f: () => void): void };
        }
      ).child;
      const gone = new Promise<void>((done) => child.once('close', done));
      child.kill('SIGKILL');
      await gone;
      expect(await tokenizer.encode('Hello world')).toEqual([15496, 995]);
    } finally {
      tokenizer.close();
    }
  });
});

describe('client errors are 4xx with OpenAI error objects, never 5xx', () => {
  const cases: [string, string, string, object | string, number, string | null][] = [
    [
      'max_tokens = 2^31',
      'POST',
      '/completions',
      { model: MODEL, prompt: 'x', max_tokens: 2 ** 31 },
      400,
      'max_tokens',
    ],
    [
      'max_tokens = 2^53',
      'POST',
      '/completions',
      { model: MODEL, prompt: 'x', max_tokens: 2 ** 53 },
      400,
      'max_tokens',
    ],
    [
      'max_tokens a string',
      'POST',
      '/completions',
      { model: MODEL, prompt: 'x', max_tokens: '4' },
      400,
      'max_tokens',
    ],
    ['an empty prompt', 'POST', '/completions', { model: MODEL, prompt: '', max_tokens: 4 }, 400, 'prompt'],
    [
      'an empty chat message',
      'POST',
      '/chat/completions',
      { model: MODEL, messages: [{ role: 'user', content: '' }] },
      400,
      'messages',
    ],
    ['a prompt object', 'POST', '/completions', { model: MODEL, prompt: { a: 1 } }, 400, 'prompt'],
    ['messages a string', 'POST', '/chat/completions', { model: MODEL, messages: 'hi' }, 400, 'messages'],
    ['model a number', 'POST', '/completions', { model: 5, prompt: 'x' }, 400, 'model'],
    ['stream a string', 'POST', '/completions', { model: MODEL, prompt: 'x', stream: 'yes' }, 400, 'stream'],
    [
      'a model that is not a text ensemble',
      'POST',
      '/completions',
      { model: 'sim_llm', prompt: 'x' },
      400,
      'model',
    ],
    ['an unknown model', 'POST', '/completions', { model: 'nope', prompt: 'x' }, 404, 'model'],
    ['a body that is not JSON', 'POST', '/completions', '{"model":', 400, null],
    ['a body of invalid UTF-8', 'POST', '/completions', '\u00ff\u00fe', 400, null],
    ['a JSON array', 'POST', '/chat/completions', [], 400, null],
    ['GET on a POST route', 'GET', '/completions', '', 405, null],
    ['an unknown route', 'POST', '/embeddings', {}, 404, null],
  ];
  it.each(cases)('%s', async (_name, method, path, body, status, param) => {
    const answer = await call(method, path, typeof body === 'string' ? body : JSON.stringify(body));
    expect(answer.status, answer.text).toBe(status);
    expect(openAiError(answer).param).toBe(param);
  });

  it('the front is still up and exact after them', () => answersExactly());
});

describe('--api-key', () => {
  it('refuses a missing or wrong key with 401 on every route, and serves the right one', async () => {
    for (const auth of [null, 'Bearer wrong', `Bearer ${KEY}x`, KEY, 'Basic dGVzdA==']) {
      for (const [method, path] of [
        ['GET', '/models'],
        ['POST', '/completions'],
      ] as const) {
        const answer = await call(method, path, JSON.stringify({ model: MODEL, prompt: 'x' }), { auth });
        expect(answer.status).toBe(401);
        expect(answer.headers['www-authenticate']).toBe('Bearer');
        expect(openAiError(answer)).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
      }
    }
    const models = await call('GET', '/models');
    expect(models.status).toBe(200);
    expect((JSON.parse(models.text) as { data: { id: string }[] }).data.map((m) => m.id)).toContain(MODEL);
  });
});
