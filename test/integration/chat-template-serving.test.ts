/**
 * The model's own chat template, end to end on the real tritonserver: the Llama-3.1 and Qwen3
 * TensorRT-LLM samples, their model step swapped for sim-llm (same INT32 tensor interface), served
 * by the native orchestrator. sim-llm's `record_requests` writes down every input its request
 * carried, so the test sees exactly what the model step received.
 *
 * - `openai-serve`'s /v1/chat/completions sends the conversation (tools, chat_template_kwargs) to the
 *   pipeline's `messages` inputs; the ids the model step receives equal transformers'
 *   apply_chat_template(tokenize=True, add_generation_prompt=True) ids, which
 *   bench/chat-template/chat_ids_fixture.py wrote into test/fixtures/chat-template-ids.json.
 * - Generation stops at every end token of the model (tokenizer_config.json's eos_token and the
 *   model's generation_config.json eos_token_id list): sim-llm echoes the prompt, so a prompt holding
 *   an end token ends the answer there.
 * - A request shaped exactly like Triton's own OpenAI frontend's (server repo,
 *   python/openai/openai_frontend/engine/utils/triton.py, `_create_trtllm_generate_request`) is
 *   served, and its sampling inputs reach the model step under TensorRT-LLM's names.
 * - A template the pipeline names: its raise_exception is that request's error (over gRPC and as
 *   openai-serve's 400); a template that cannot be parsed fails the model load at its line and column.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Tokenizer } from 'tokenizers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatRenderer } from '../../client/chat/chatRenderer.js';
import { renderChatTool } from '../../client/chat/renderChat.js';
import { deployRepository } from '../../client/deploy/index.js';
import { bytesInput, numericInput, TritonClient } from '../../client/grpc/client.js';
import { startOpenAiServer, type OpenAiServer } from '../../client/openai/server.js';
import { startLocalServer, type LocalServer } from '../../client/server/localServer.js';
import { NativeTokenizer } from '../../client/tokenizer/nativeTokenizer.js';
import { buildBackends, buildRepository } from '../../generator/build/index.js';
import { generateRepository, validatePipeline, type Pipeline } from '../../generator/index.js';

const ROOT = resolve(__dirname, '../..');
const TOKENIZERS = join(ROOT, '.cache/tokenizers');

interface FixtureCase {
  name: string;
  messages: unknown[];
  tools?: unknown[];
  chat_template_kwargs?: Record<string, unknown>;
  text: string;
  ids: number[];
}
const fixture = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/chat-template-ids.json'), 'utf8')) as {
  models: Record<string, FixtureCase[]>;
};

interface Recorded {
  model: string;
  inputs: Record<string, { datatype: string; shape: number[]; data: unknown[] }>;
}

const MODELS = [
  { tokenizer: 'llama-3.1', sample: 'llama3.1-tensorrt-llm', model: 'llama3_1' },
  { tokenizer: 'qwen3', sample: 'qwen3-tensorrt-llm', model: 'qwen3' },
] as const;

const scratch = mkdtempSync(join(tmpdir(), 'ts-chat-serving-'));
let tsTokenize: string;

beforeAll(async () => {
  tsTokenize = join((await buildBackends({ targets: ['ts-tokenize'] })).buildDir, 'tools/ts-tokenize');
}, 600_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The sample with sim-llm standing in for TensorRT-LLM, recording each request's inputs. */
function prepare(sample: string, record: string, change?: (p: Pipeline, dir: string) => void): string {
  const dir = join(scratch, `${sample}-${Math.random().toString(36).slice(2, 8)}`);
  cpSync(join(ROOT, 'samples', sample), dir, { recursive: true });
  const file = join(dir, `${sample}.pipeline.json`);
  const pipeline = JSON.parse(readFileSync(file, 'utf8')) as Pipeline;
  const model = pipeline.steps.find((s) => s.name === 'tensorrt_llm')!;
  model.backend = 'sim_llm';
  model.parameters = {
    ...model.parameters,
    prefill_us_per_token: 1,
    decode_us_per_step: 100,
    record_requests: record,
  };
  change?.(pipeline, dir);
  writeFileSync(file, JSON.stringify(pipeline, null, 2));
  return file;
}

async function serve(
  file: string,
  serving: 'orchestrator' | 'ensemble' = 'orchestrator',
): Promise<{ server: LocalServer; client: TritonClient; repo: string }> {
  const repo = join(file, '..', 'repo');
  const generated = generateRepository({ pipelinePath: file, outDir: repo });
  expect(generated.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  expect(generated.serving).toBe(serving);
  await buildRepository(repo);
  const server = await startLocalServer({ modelRepository: repo, logFile: `${repo}.log` });
  const client = new TritonClient(server.grpcUrl);
  return { server, client, repo };
}

function lastRecord(file: string): Recorded {
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  return JSON.parse(lines.at(-1)!) as Recorded;
}

/** Each row's stop words as TensorRT-LLM lays them out: [ids…, offsets…] → the words' ids. */
function stopWords(r: Recorded): number[][] {
  const list = r.inputs.stop_words_list!;
  const width = list.shape.at(-1)!;
  const values = list.data as number[];
  const ids = values.slice(0, width);
  const offsets = values.slice(width, 2 * width).filter((o) => o >= 0);
  return offsets.map((end, i) => ids.slice(i === 0 ? 0 : offsets[i - 1], end));
}

/** Every end token the model's files declare, read here from the files themselves. */
function endIds(tokenizer: string, sample: string): number[] {
  const config = JSON.parse(readFileSync(join(TOKENIZERS, tokenizer, 'tokenizer_config.json'), 'utf8')) as {
    eos_token: string;
    added_tokens_decoder: Record<string, { content: string }>;
  };
  const eos = Number(
    Object.entries(config.added_tokens_decoder).find(([, t]) => t.content === config.eos_token)![0],
  );
  const generation = JSON.parse(
    readFileSync(join(ROOT, 'samples', sample, 'generation_config.json'), 'utf8'),
  ) as {
    eos_token_id: number[];
  };
  return [...new Set([eos, ...generation.eos_token_id])];
}

async function chat(
  front: OpenAiServer,
  body: object,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${front.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

function answerOf(json: Record<string, unknown>): { content: string; finish: string } {
  const choice = (json.choices as { message: { content: string }; finish_reason: string }[])[0]!;
  return { content: choice.message.content, finish: choice.finish_reason };
}

describe.each(MODELS)('$sample behind openai-serve', ({ tokenizer, sample, model }) => {
  const record = join(scratch, `${model}.requests.jsonl`);
  const hf = Tokenizer.fromFile(join(TOKENIZERS, tokenizer, 'tokenizer.json'));
  let served: Awaited<ReturnType<typeof serve>>;
  let native: NativeTokenizer;
  let renderer: ChatRenderer;
  let front: OpenAiServer;

  beforeAll(async () => {
    served = await serve(prepare(sample, record));
    const deployed = await deployRepository(served.client, { repository: served.repo, mode: 'local' });
    expect(deployed.ok, JSON.stringify(deployed)).toBe(true);
    native = new NativeTokenizer(tsTokenize, join(TOKENIZERS, tokenizer, 'tokenizer.json'));
    renderer = new ChatRenderer(await renderChatTool(), {
      tokenizerConfig: join(TOKENIZERS, tokenizer, 'tokenizer_config.json'),
    });
    front = await startOpenAiServer({
      triton: served.client,
      tokenizer: native,
      chatRenderer: renderer,
    });
  }, 900_000);

  afterAll(async () => {
    await front?.close();
    native?.close();
    renderer?.close();
    served?.client.close();
    await served?.server.stop();
  });

  it.each(fixture.models[tokenizer]!.map((c) => [c.name, c] as const))(
    'the model step receives apply_chat_template ids: %s',
    async (_name, c) => {
      const { status, json } = await chat(front, {
        model,
        messages: c.messages,
        ...(c.tools && { tools: c.tools }),
        ...(c.chat_template_kwargs && { chat_template_kwargs: c.chat_template_kwargs }),
        max_tokens: 1,
      });
      expect(status, JSON.stringify(json)).toBe(200);
      const received = lastRecord(record);
      expect(received.model).toBe('tensorrt_llm');
      expect(received.inputs.input_ids!.data).toEqual(c.ids);
      expect(received.inputs.input_lengths!.data).toEqual([c.ids.length]);
      // usage counts the ids the model step received, not the conversation's flattened text.
      expect((json.usage as { prompt_tokens: number }).prompt_tokens).toBe(c.ids.length);
    },
  );

  it('adds every end token of the model to the stop words, and generation stops at each', async () => {
    const ends = endIds(tokenizer, sample);
    expect(ends.length).toBeGreaterThanOrEqual(2);
    for (const end of ends) {
      const token = hf.idToToken(end)!;
      // Special tokens inside a message are special tokens of the rendered text too (as in
      // transformers), so sim-llm, echoing the prompt, reaches this end token and stops.
      const messages = [{ role: 'user', content: `Stop here${token} not here` }];
      const { status, json } = await chat(front, { model, messages, max_tokens: 500, stop: ['never'] });
      expect(status, JSON.stringify(json)).toBe(200);
      const received = lastRecord(record);
      expect(stopWords(received)).toEqual([...(await encodeWords(hf, ['never'])), ...ends.map((id) => [id])]);
      const ids = received.inputs.input_ids!.data as number[];
      const at = ids.indexOf(end);
      expect(at, `${token} in the prompt ids`).toBeGreaterThan(0);
      // Every earlier id is no end token, so the answer is the echo up to this one, specials skipped.
      expect(ids.slice(0, at).some((id) => ends.includes(id))).toBe(false);
      const answer = answerOf(json);
      expect(answer.content).toBe(await hf.decode(ids.slice(0, at + 1), true));
      expect(answer.content.endsWith('Stop here')).toBe(true);
      expect(answer.finish).toBe('stop');
    }
  });

  it("serves a request shaped exactly like Triton's OpenAI frontend's, passing the sampling inputs on", async () => {
    const c = fixture.models[tokenizer]![0]!;
    // _create_trtllm_generate_request: every tensor [1, 1] but stop_words [1, n].
    const inputs = [
      bytesInput('text_input', [1, 1], [c.text]),
      numericInput('stream', 'BOOL', [1, 1], [true]),
      numericInput('max_tokens', 'INT32', [1, 1], [8]),
      bytesInput('stop_words', [1, 2], ['never', 'nowhere']),
      numericInput('top_p', 'FP32', [1, 1], [0.5]),
      numericInput('frequency_penalty', 'FP32', [1, 1], [0.25]),
      numericInput('presence_penalty', 'FP32', [1, 1], [0.75]),
      numericInput('seed', 'UINT64', [1, 1], [42n]),
      numericInput('temperature', 'FP32', [1, 1], [0.125]),
      numericInput('exclude_input_in_output', 'BOOL', [1, 1], [true]),
      numericInput('return_num_input_tokens', 'BOOL', [1, 1], [true]),
      numericInput('return_num_output_tokens', 'BOOL', [1, 1], [true]),
    ];
    const chunks: string[] = [];
    for await (const r of served.client.streamInfer(model, inputs, { id: '' })) {
      chunks.push(r.strings('text_output').join(''));
    }
    const received = lastRecord(record);
    const value = (name: string) => received.inputs[name]?.data;
    expect(value('temperature')).toEqual([0.125]);
    expect(value('runtime_top_p')).toEqual([0.5]);
    expect(value('frequency_penalty')).toEqual([0.25]);
    expect(value('presence_penalty')).toEqual([0.75]);
    expect(value('random_seed')).toEqual([42]);
    expect(value('streaming')).toEqual([true]);
    expect(value('exclude_input_in_output')).toEqual([true]);
    expect(value('return_num_input_tokens')).toEqual([true]);
    expect(value('request_output_len')).toEqual([8]);
    // The frontend sends the template already rendered, its BOS included (Llama-3.x): the step
    // adds no second one, so the model gets apply_chat_template(tokenize=True)'s ids.
    expect(value('input_ids')).toEqual(c.ids);
    expect(chunks.filter((t) => t !== '').length).toBeGreaterThan(1);
    expect(chunks.join('')).toBe(await hf.decode(c.ids.slice(0, 8), true));
    // A plain prompt still gets the tokenizer's special tokens (add_special_tokens, the preset's default).
    const plain = 'The capital of France is';
    for await (const r of served.client.streamInfer(
      model,
      [
        bytesInput('text_input', [1, 1], [plain]),
        numericInput('max_tokens', 'INT32', [1, 1], [1]),
        numericInput('stream', 'BOOL', [1, 1], [true]),
      ],
      { id: '' },
    ))
      void r;
    const withSpecials = (await hf.encode(plain, null, { addSpecialTokens: true })).getIds();
    expect(lastRecord(record).inputs.input_ids!.data).toEqual(withSpecials);
  });
});

describe('a chat template of its own', () => {
  it('renders a pipeline-named Jinja template and raises its exception; a broken one fails the load at its line and column', async () => {
    const record = join(scratch, 'own.requests.jsonl');
    const template = [
      "{%- for m in messages %}{%- if m['role'] == 'tool' %}{{ raise_exception('tools are not for this model') }}{%- endif %}",
      "[{{ m['role'] }}]{{ m['content'] }}{%- endfor %}{%- if add_generation_prompt %}[assistant]{%- endif %}",
    ].join('\n');
    const file = prepare('llama3.1-tensorrt-llm', record, (p, dir) => {
      writeFileSync(join(dir, 'chat.jinja'), template);
      writeFileSync(join(dir, 'broken.jinja'), 'line one\n{% if messages %}\n{{ messages[0] }\n');
      p.steps.find((s) => s.kind === 'tokenize')!.chatTemplate = 'chat.jinja';
    });
    const { server, client, repo } = await serve(file);
    try {
      const deployed = await deployRepository(client, { repository: repo, mode: 'local' });
      expect(deployed.ok, JSON.stringify(deployed)).toBe(true);
      const ask = async (messages: unknown[]) => {
        const out: string[] = [];
        for await (const r of client.streamInfer('llama3_1', [
          bytesInput('messages', [1, 1], [JSON.stringify(messages)]),
          numericInput('max_tokens', 'INT32', [1, 1], [1]),
        ]))
          out.push(r.strings('text_output').join(''));
        return out.join('');
      };
      await ask([{ role: 'user', content: 'hi' }]);
      const hf = Tokenizer.fromFile(join(TOKENIZERS, 'llama-3.1/tokenizer.json'));
      const expected = (await hf.encode('[user]hi[assistant]', null, { addSpecialTokens: false })).getIds();
      expect(lastRecord(record).inputs.input_ids!.data).toEqual(expected);
      await expect(ask([{ role: 'tool', content: '{}' }])).rejects.toThrow('tools are not for this model');
      // Through openai-serve: the template's words, as OpenAI's invalid-request error.
      const native = new NativeTokenizer(tsTokenize, join(TOKENIZERS, 'llama-3.1/tokenizer.json'));
      const front = await startOpenAiServer({ triton: client, tokenizer: native });
      try {
        const { status, json } = await chat(front, {
          model: 'llama3_1',
          messages: [{ role: 'tool', content: '{}' }],
          max_tokens: 1,
        });
        expect(status).toBe(400);
        expect((json.error as { message: string }).message).toContain('tools are not for this model');
      } finally {
        await front.close();
        native.close();
      }
      expect(existsSync(join(repo, 'llama3_1/1/chat_template.jinja'))).toBe(true);

      // The broken template, as an edited repository would carry it: the load fails, saying where.
      cpSync(join(file, '..', 'broken.jinja'), join(repo, 'llama3_1/1/chat_template.jinja'));
      await client.unloadModel('llama3_1').catch(() => undefined);
      const failure = await client.loadModel('llama3_1').then(
        () => 'loaded',
        (e: Error) => e.message,
      );
      expect(failure).toMatch(/chat template .*chat_template\.jinja.*line 3, column \d+/);
    } finally {
      client.close();
      await server.stop();
    }
  }, 900_000);
});

describe('served as a Triton ensemble', () => {
  it('the tokenize step renders the conversation too (the prompt input left out)', async () => {
    const record = join(scratch, 'ensemble.requests.jsonl');
    const file = prepare('llama3.1-tensorrt-llm', record, (p) => {
      p.serving = 'ensemble';
    });
    const { server, client, repo } = await serve(file, 'ensemble');
    try {
      const deployed = await deployRepository(client, { repository: repo, mode: 'local' });
      expect(deployed.ok, JSON.stringify(deployed)).toBe(true);
      const c = fixture.models['llama-3.1']![1]!;
      for await (const _ of client.streamInfer(
        'llama3_1',
        [
          bytesInput('messages', [1, 1], [JSON.stringify(c.messages)]),
          numericInput('max_tokens', 'INT32', [1, 1], [1]),
        ],
        { id: 'ensemble-chat-1' },
      )) {
        // the answer itself is the orchestrator tests' business
      }
      expect(lastRecord(record).inputs.input_ids!.data).toEqual(c.ids);
    } finally {
      client.close();
      await server.stop();
    }
  }, 900_000);
});

describe('validation', () => {
  it('reports a template that cannot be parsed as TS-E058, at its line and column, before any model load', async () => {
    await buildBackends({ targets: ['ts-render-chat'] });
    const file = prepare('qwen3-tensorrt-llm', join(scratch, 'unused.jsonl'), (p, dir) => {
      writeFileSync(join(dir, 'broken.jinja'), 'line one\n{% if messages %}\n{{ messages[0] }\n');
      p.steps.find((s) => s.kind === 'tokenize')!.chatTemplate = 'broken.jinja';
    });
    const found = validatePipeline(readFileSync(file, 'utf8'), file).diagnostics.filter(
      (d) => d.severity === 'error',
    );
    expect(found.map((d) => d.code)).toEqual(['TS-E058']);
    expect(found[0]!.message).toMatch(/broken\.jinja cannot be parsed: line 3, column 16: unexpected '}'/);
    // The same template, fixed, is fine.
    writeFileSync(
      join(file, '..', 'broken.jinja'),
      'line one\n{% if messages %}\n{{ messages[0] }}{% endif %}\n',
    );
    expect(
      validatePipeline(readFileSync(file, 'utf8'), file).diagnostics.filter((d) => d.severity === 'error'),
    ).toEqual([]);
  }, 600_000);
});

async function encodeWords(hf: Tokenizer, words: string[]): Promise<number[][]> {
  return Promise.all(
    words.map(async (w) => (await hf.encode(w, null, { addSpecialTokens: false })).getIds()),
  );
}
