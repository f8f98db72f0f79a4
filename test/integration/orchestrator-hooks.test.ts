/**
 * The samples' TypeScript hooks inside the native orchestrator, on the real tritonserver. The two
 * hooked samples (GPT-2 with the stop-sequence hook on its streaming detokenize step; Llama-2 with
 * the chat template before encoding and its afterDecode) are generated twice from the same pipeline
 * file — served by the orchestrator (the default) and as a Triton ensemble — with sim-llm standing
 * in for TensorRT-LLM (it answers the prompt's own ids, cyclically, so every answer is known).
 *
 * Expected text comes from Node running the same hook modules over Hugging Face's decode of the
 * same ids, never from the code under test. Over gRPC ModelStreamInfer and HTTP generate /
 * generate_stream, streamed and not, with no request id: the orchestrator answers what Node
 * computes, and what the ensemble answers where an ensemble can be exact (a unique id per request,
 * an end token that tells its detokenize step the stream ended). Requests sharing an id at once,
 * a cancelled stream, and a stop sequence of the request end each answer's hook state on its own.
 *
 * The pinned server (Triton 2.51) crashes under many concurrent gRPC stream cancellations
 * (docs/PIPELINE.md): one stream is cancelled at a time (over gRPC, and over HTTP by closing the
 * generate_stream connection).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Tokenizer } from 'tokenizers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesInput, numericInput, TritonClient, type InferInput } from '../../client/grpc/client.js';
import { startLocalServer, type LocalServer } from '../../client/server/localServer.js';
import { buildRepository } from '../../generator/build/index.js';
import { formatDiagnostic, generateRepository, MANIFEST_FILE, type Pipeline } from '../../generator/index.js';
import { defaultTokenizerSearchDirs, resolveTokenizer } from '../../generator/pipeline/tokenizers.js';
import { loadInNode } from '../tscompile/harness.js';
import { abandonGenerateStream } from './sse.js';

const ROOT = resolve(__dirname, '../..');
const SAMPLES = join(ROOT, 'samples');
const stopHooks = loadInNode(join(SAMPLES, 'gpt2-tensorrt-llm/hooks/stop-sequence.ts'));
const chatHooks = loadInNode(join(SAMPLES, 'llama2-tensorrt-llm/hooks/llama2-chat.ts'));

interface Variant {
  /** The model clients call. */
  model: string;
  serving: 'orchestrator' | 'ensemble';
  sample: 'gpt2' | 'llama2';
  /** Steps (and so models) renamed with this prefix: four variants share one server. */
  prefix: string;
}

const VARIANTS: Variant[] = [
  { model: 'gpt2_orch', serving: 'orchestrator', sample: 'gpt2', prefix: 'go_' },
  { model: 'gpt2_ens', serving: 'ensemble', sample: 'gpt2', prefix: 'ge_' },
  { model: 'llama2_orch', serving: 'orchestrator', sample: 'llama2', prefix: 'lo_' },
  { model: 'llama2_ens', serving: 'ensemble', sample: 'llama2', prefix: 'le_' },
];
const SAMPLE_DIR = { gpt2: 'gpt2-tensorrt-llm', llama2: 'llama2-tensorrt-llm' } as const;

const work = mkdtempSync(join(tmpdir(), 'ts-orchestrator-hooks-'));
let server: LocalServer;
let client: TritonClient;
const hf: Record<Variant['sample'], Tokenizer> = {} as never;

/** The sample's pipeline file as it is, but for sim-llm in place of TensorRT-LLM and the names. */
function prepare(v: Variant): string {
  const dir = join(work, v.model);
  cpSync(join(SAMPLES, SAMPLE_DIR[v.sample]), dir, { recursive: true });
  const file = join(dir, `${SAMPLE_DIR[v.sample]}.pipeline.json`);
  const p = JSON.parse(readFileSync(file, 'utf8')) as Pipeline;
  p.name = v.model;
  const rename = new Map(p.steps.map((s) => [s.name, v.prefix + s.name]));
  for (const s of p.steps) {
    if (s.kind === 'model') {
      s.backend = 'sim_llm';
      // 1 ms per generated token: a long answer is still running when it is cancelled.
      s.parameters = { prefill_us_per_token: 0, decode_us_per_step: 1000 };
    }
    s.name = rename.get(s.name)!;
  }
  const end = (e: string) => {
    const dot = e.indexOf('.');
    return dot > 0 && rename.has(e.slice(0, dot)) ? rename.get(e.slice(0, dot))! + e.slice(dot) : e;
  };
  p.wires = p.wires.map((w) => ({ ...w, from: end(w.from), to: end(w.to) }));
  if (v.serving === 'ensemble') p.serving = 'ensemble';
  writeFileSync(file, JSON.stringify(p, null, 2));
  return file;
}

beforeAll(async () => {
  const served = join(work, 'served');
  const models: string[] = [];
  for (const v of VARIANTS) {
    const repo = join(work, `${v.model}-repo`);
    const generated = generateRepository({ pipelinePath: prepare(v), outDir: repo });
    expect(generated.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).toEqual([]);
    expect(generated.serving).toBe(v.serving);
    await buildRepository(repo);
    cpSync(repo, served, { recursive: true, filter: (src) => !src.endsWith(MANIFEST_FILE) });
    models.push(...generated.models.map((m) => m.name));
  }
  server = await startLocalServer({
    modelRepository: served,
    loadModels: models,
    logFile: join(work, 'server.log'),
  });
  client = new TritonClient(server.grpcUrl);
  for (const s of ['gpt2', 'llama2'] as const) {
    hf[s] = await Tokenizer.fromFile(
      resolveTokenizer(s === 'gpt2' ? 'gpt2' : 'llama-2', ROOT, defaultTokenizerSearchDirs()).file!,
    );
  }
}, 900_000);

afterAll(async () => {
  client?.close();
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

interface Ask {
  prompt: string;
  maxTokens: number;
  stream: boolean;
  system?: string;
  stop?: string[];
  /** The request id; '' (the default) sends none. */
  id?: string;
  /** GPT-2's end token is passed through as a token (sim-llm stops at the end id otherwise). */
  passEndToken?: boolean;
  signal?: AbortSignal;
  onChunk?: (text: string) => void;
}

function inputs(a: Ask): InferInput[] {
  const list = [
    bytesInput('text_input', [1, 1], [a.prompt]),
    numericInput('max_tokens', 'INT32', [1, 1], [a.maxTokens]),
    numericInput('stream', 'BOOL', [1, 1], [a.stream]),
  ];
  if (a.system !== undefined) list.push(bytesInput('system_prompt', [1, 1], [a.system]));
  if (a.stop) list.push(bytesInput('stop_words', [1, a.stop.length], a.stop));
  if (a.passEndToken) list.push(numericInput('end_id', 'INT32', [1, 1], [999_999]));
  return list;
}

/** gRPC ModelStreamInfer: the text of every response. */
async function grpc(model: string, a: Ask): Promise<string[]> {
  const chunks: string[] = [];
  for await (const r of client.streamInfer(model, inputs(a), { id: a.id ?? '', signal: a.signal })) {
    if (!r.outputs.has('text_output')) continue;
    const text = r.strings('text_output').join('');
    chunks.push(text);
    a.onChunk?.(text);
  }
  return chunks;
}

function httpBody(a: Ask): string {
  return JSON.stringify({
    ...(a.id && { id: a.id }),
    text_input: a.prompt,
    max_tokens: a.maxTokens,
    stream: a.stream,
    ...(a.system !== undefined && { system_prompt: a.system }),
    ...(a.stop && { stop_words: a.stop }),
    ...(a.passEndToken && { end_id: 999_999 }),
  });
}

/** HTTP generate (one answer) or generate_stream (server-sent events), by `a.stream`. */
async function http(model: string, a: Ask): Promise<string[]> {
  const res = await fetch(
    `${server.httpUrl}/v2/models/${model}/${a.stream ? 'generate_stream' : 'generate'}`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: httpBody(a),
    },
  );
  const body = await res.text();
  expect(res.status, body).toBe(200);
  if (!a.stream) return [(JSON.parse(body) as { text_output: string }).text_output];
  const chunks: string[] = [];
  for (const line of body.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const event = JSON.parse(line.slice(5)) as { text_output?: string; error?: string };
    expect(event.error).toBeUndefined();
    if (event.text_output !== undefined) chunks.push(event.text_output);
  }
  return chunks;
}

// --- what Node says (Hugging Face decodes the ids sim-llm sends; the hook modules run in Node) ---

/** The model's whole answer, decoded at once: sim-llm sends the prompt's ids, cyclically. */
async function decoded(sample: Variant['sample'], a: Ask): Promise<string> {
  const prompt =
    sample === 'llama2'
      ? (chatHooks.beforeEncode!(a.prompt, { system_prompt: a.system ?? '' }) as string)
      : a.prompt;
  const ids = (await hf[sample].encode(prompt, null, { addSpecialTokens: true })).getIds();
  // Without a passed-through end id, sim-llm ends the answer at GPT-2's end token.
  const eos = a.passEndToken || sample === 'llama2' ? -1 : 50256;
  const out: number[] = [];
  for (let i = 0; i < a.maxTokens; i++) {
    const id = ids[i % ids.length]!;
    if (id === eos) break;
    out.push(id);
  }
  const text = await hf[sample].decode(out, true);
  const at = a.stop ? Math.min(...a.stop.map((s) => (text.indexOf(s) < 0 ? Infinity : text.indexOf(s)))) : -1;
  return Number.isFinite(at) && at >= 0 ? text.slice(0, at) : text;
}

/** GPT-2's streaming hooks over `text` in pieces of one code point (the hook's result does not
 * depend on the cuts: test/integration/ts-hooks.test.ts checks that against afterDecode). */
function streamedThroughStopHook(text: string): string {
  const state = stopHooks.startStream!();
  let out = '';
  for (const piece of Array.from(text)) out += stopHooks.onChunk!(state, piece) as string;
  return out + (stopHooks.endStream!(state) as string);
}

/** What the client must get: the hooks of the sample's detokenize step over the decoded answer. */
async function node(sample: Variant['sample'], a: Ask): Promise<string> {
  const text = await decoded(sample, a);
  if (sample === 'gpt2')
    return a.stream ? streamedThroughStopHook(text) : (stopHooks.afterDecode!(text) as string);
  // Llama-2: afterDecode on a whole answer; no streaming hooks.
  return a.stream ? text : (chatHooks.afterDecode!(text) as string);
}

// --- the prompts -------------------------------------------------------------------------------

/** Every path of the stop hook: cut, split across tokens, held back at the end, absent. */
const GPT2_PROMPTS = [
  'Question: naïve café? Answer: yes 🙂\n\n### Question: more',
  'Ends with the start of the stop sequence\n\n#',
  'Almost\n\n## but not 😀 quite',
  'No stop here, ünïcödé and spaces  kept.',
];
const LLAMA_PROMPTS: { prompt: string; system?: string }[] = [
  { prompt: '  What is 2 + 2? ' },
  { prompt: 'Tiny 😀 café, naïve señor', system: 'Answer in one word, naïvely 🙂.' },
  { prompt: 'Say [/INST] twice [/INST]' },
];

/** Requests for both samples: streamed or not, long enough to wrap around (and repeat [/INST]). */
async function asks(sample: Variant['sample'], stream: boolean): Promise<Ask[]> {
  if (sample === 'gpt2') {
    return Promise.all(
      GPT2_PROMPTS.map(async (prompt) => {
        const n = (await hf.gpt2.encode(prompt, null, { addSpecialTokens: true })).getIds().length;
        return { prompt, maxTokens: n, stream };
      }),
    );
  }
  return LLAMA_PROMPTS.map((p) => ({ ...p, maxTokens: 70, stream }));
}

const model = (sample: Variant['sample'], serving: Variant['serving']) =>
  VARIANTS.find((v) => v.sample === sample && v.serving === serving)!.model;

describe.each(['gpt2', 'llama2'] as const)('the %s sample served by the orchestrator', (sample) => {
  const orch = model(sample, 'orchestrator');

  it('answers as Node runs its hooks, streamed and not, over gRPC and HTTP, with no request id', async () => {
    const mismatches: string[] = [];
    for (const stream of [true, false]) {
      for (const a of await asks(sample, stream)) {
        const want = await node(sample, a);
        for (const [endpoint, chunks] of [
          ['grpc', await grpc(orch, a)],
          ['http', await http(orch, a)],
        ] as const) {
          if (chunks.join('') !== want)
            mismatches.push(JSON.stringify({ endpoint, ...a, want, got: chunks }));
          // One response for an answer not streamed; several for a streamed one.
          if (!stream && chunks.length !== 1) mismatches.push(`${endpoint}: ${chunks.length} responses`);
        }
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('answers what the ensemble answers where the ensemble is exact (a unique id, an end token)', async () => {
    const ens = model(sample, 'ensemble');
    const mismatches: string[] = [];
    for (const stream of [true, false]) {
      for (const base of await asks(sample, stream)) {
        // The ensemble's detokenize step learns that a stream ended only from the end token.
        const a: Ask =
          sample === 'gpt2'
            ? {
                ...base,
                prompt: `${base.prompt}<|endoftext|>`,
                maxTokens: base.maxTokens + 1,
                passEndToken: true,
              }
            : base;
        const fromEnsemble = (await grpc(ens, { ...a, id: `unique-${Math.random()}` })).join('');
        const fromOrchestrator = (await grpc(orch, a)).join('');
        const want = await node(sample, a);
        expect(fromOrchestrator).toBe(want);
        // In an ensemble a streaming detokenize step cannot tell a whole answer from a chunk, so
        // afterDecode never runs there (TS-W010): Llama-2's answers that are not streamed differ.
        const ensembleRunsIt = sample === 'gpt2' || stream;
        const ensembleWant = ensembleRunsIt ? want : await decoded(sample, a);
        if (fromEnsemble !== ensembleWant)
          mismatches.push(JSON.stringify({ ...a, fromEnsemble, ensembleWant }));
        if (ensembleRunsIt && fromEnsemble !== fromOrchestrator)
          mismatches.push(JSON.stringify({ ...a, fromEnsemble, fromOrchestrator }));
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('keeps concurrent requests with one id apart, over gRPC and HTTP', async () => {
    const batch = (await asks(sample, true)).map((a) => ({ ...a, id: 'same' }));
    const answers = await Promise.all([
      ...batch.map((a) => grpc(orch, a)),
      ...batch.map((a) => http(orch, a)),
      ...batch.map((a) => grpc(orch, { ...a, stream: false })),
    ]);
    const want = await Promise.all([
      ...batch.map((a) => node(sample, a)),
      ...batch.map((a) => node(sample, a)),
      ...batch.map((a) => node(sample, { ...a, stream: false })),
    ]);
    expect(answers.map((chunks) => chunks.join(''))).toEqual(want);
  });
});

describe('the end of a stream, whatever ends it, ends only its own hook state', () => {
  const orch = model('gpt2', 'orchestrator');

  it('a stream cancelled while its hook holds text back leaves nothing to the next request with its id', async () => {
    // Every few tokens end with the start of the stop sequence, which the hook holds back.
    const prompt = 'held\n\n#'.repeat(80);
    const controller = new AbortController();
    const seen: string[] = [];
    await expect(
      grpc(orch, {
        prompt,
        maxTokens: 2000,
        stream: true,
        id: 'reused',
        signal: controller.signal,
        onChunk: (c) => {
          seen.push(c);
          if (seen.length === 3) controller.abort();
        },
      }),
    ).rejects.toThrow(/cancelled/);
    for (const a of await asks('gpt2', true)) {
      expect((await grpc(orch, { ...a, id: 'reused' })).join('')).toBe(await node('gpt2', a));
    }
  });

  it('an HTTP generate_stream closed while its hook holds text back leaves nothing to the next request, same id or none', async () => {
    const prompt = 'held\n\n#'.repeat(80);
    const seen = await abandonGenerateStream(
      `${server.httpUrl}/v2/models/${orch}/generate_stream`,
      httpBody({ prompt, maxTokens: 2000, stream: true, id: 'reused-http' }),
      3,
    );
    expect(seen.length).toBe(3);
    for (const a of await asks('gpt2', true)) {
      const want = await node('gpt2', a);
      expect((await http(orch, { ...a, id: 'reused-http' })).join('')).toBe(want);
      expect((await http(orch, a)).join('')).toBe(want);
    }
  });

  it('a stop sequence of the request ends the stream: endStream flushes what the hook held', async () => {
    // The request's stop word comes right after text the hook holds back ("\n\n#").
    const prompt = 'keep this\n\n#HALT and not this';
    const n = (await hf.gpt2.encode(prompt, null, { addSpecialTokens: true })).getIds().length;
    for (const stream of [true, false]) {
      const a: Ask = { prompt, maxTokens: n, stream, stop: ['HALT'] };
      const want = await node('gpt2', a);
      expect(want).toBe('keep this\n\n#');
      expect((await grpc(orch, a)).join('')).toBe(want);
      expect((await http(orch, a)).join('')).toBe(want);
    }
  });

  it('an answer cut by max_tokens inside the stop sequence is flushed (the ensemble loses it without an end token)', async () => {
    const prompt = 'flushed at the end\n\n#';
    const n = (await hf.gpt2.encode(prompt, null, { addSpecialTokens: true })).getIds().length;
    const a: Ask = { prompt, maxTokens: n, stream: true };
    expect((await grpc(orch, a)).join('')).toBe(prompt);
    expect((await grpc(model('gpt2', 'ensemble'), { ...a, id: 'unique-flush' })).join('')).toBe(
      'flushed at the end',
    );
  });
});
