/**
 * Every sample, generated and checked against the real tritonserver. GPU model steps are swapped
 * for sim-llm, a CPU stand-in that presents the same tensor interface: integer ids in and out
 * (FasterTransformer, TensorRT-LLM), text in and out (vLLM), ids + attention mask in, logits out
 * (DistilBERT on ONNX Runtime). So Triton validates every ensemble (dtypes and shapes across every
 * wire), loads it and answers; the answers are deterministic functions of the inputs and are
 * checked against Hugging Face's own tokenizer where a native step tokenizes. The samples' TypeScript
 * hooks and custom step run compiled inside their steps; what they do is checked against the same
 * modules run in Node.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { Tokenizer } from 'tokenizers';
import { afterAll, describe, expect, it } from 'vitest';
import { bytesInput, numericInput, TritonClient } from '../../client/grpc/client.js';
import { sendClassify } from '../../client/encoderPrompt.js';
import { sendPrompt } from '../../client/prompt.js';
import { startLocalServer, type LocalServer } from '../../client/server/localServer.js';
import { buildRepository } from '../../generator/build/index.js';
import { formatDiagnostic, generateRepository, type Pipeline } from '../../generator/index.js';
import { defaultTokenizerSearchDirs, resolveTokenizer } from '../../generator/pipeline/tokenizers.js';
import { loadInNode } from '../tscompile/harness.js';

const SAMPLES = resolve(__dirname, '../../samples');
const work = mkdtempSync(join(tmpdir(), 'ts-gen-samples-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Case {
  sample: string;
  /** The pipeline file in the sample folder, when not `<sample>.pipeline.json`. */
  pipeline?: string;
  /** Model steps replaced by sim-llm, with any settings the stand-in needs changed. */
  standIn?: Record<string, { decoupled?: boolean }>;
  /**
   * What the ensemble answers: text from token ids (LLM), text from text (vLLM), logits
   * (classifier), or text from token ids through FasterTransformer's original ensemble tensors.
   */
  answer: 'tokens' | 'text' | 'logits' | 'ft-tensors';
  tokenizer?: string;
  addSpecialTokens?: boolean;
  /** The sample's TypeScript hook or step, checked in the server against Node. */
  typescript?: 'chat-template' | 'stop-sequence' | 'label-step';
}

const CASES: Case[] = [
  { sample: 'gpt2-sim', answer: 'tokens', tokenizer: 'gpt2', addSpecialTokens: false },
  {
    sample: 'codegen-fastertransformer',
    standIn: { fastertransformer: {} },
    answer: 'tokens',
    tokenizer: 'codegen-350M-mono',
    addSpecialTokens: false,
  },
  // The drop-in for existing FasterTransformer clients: INPUT_0..3 -> OUTPUT_0, sequence_length.
  {
    sample: 'codegen-fastertransformer',
    pipeline: 'codegen-ft-dropin',
    standIn: { fastertransformer: {} },
    answer: 'ft-tensors',
    tokenizer: 'codegen-350M-mono',
    addSpecialTokens: false,
  },
  {
    sample: 'gpt2-tensorrt-llm',
    standIn: { tensorrt_llm: {} },
    answer: 'tokens',
    tokenizer: 'gpt2',
    addSpecialTokens: true,
    typescript: 'stop-sequence',
  },
  // Streams one token per response: SentencePiece word-start spaces must survive the chunking.
  {
    sample: 'llama2-tensorrt-llm',
    standIn: { tensorrt_llm: {} },
    answer: 'tokens',
    tokenizer: 'llama-2',
    addSpecialTokens: true,
    typescript: 'chat-template',
  },
  // sim-llm's text interface: decoupled, max_batch_size 0, text_input/stream/sampling_parameters.
  { sample: 'gpt2-vllm', standIn: { vllm_model: {} }, answer: 'text' },
  // sim-llm's classifier interface: logits computed from the ids the native tokenize step made.
  {
    sample: 'distilbert-onnx',
    standIn: { distilbert: {} },
    answer: 'logits',
    tokenizer: 'bert-base-uncased',
    addSpecialTokens: true,
    typescript: 'label-step',
  },
];

/** A copy of the sample folder whose pipeline has the stand-ins swapped in. */
function prepare(c: Case): string {
  const dir = join(work, caseName(c));
  cpSync(join(SAMPLES, c.sample), dir, { recursive: true });
  const file = join(dir, `${c.pipeline ?? c.sample}.pipeline.json`);
  const pipeline = JSON.parse(readFileSync(file, 'utf8')) as Pipeline;
  for (const step of pipeline.steps) {
    const standIn = c.standIn?.[step.name];
    if (!standIn) continue;
    // The CPU stand-in is one line on any model step, presets with a platform (onnxruntime_onnx) included.
    step.backend = 'sim_llm';
    // A sample that asks for GPU instances (codegen on FasterTransformer) needs a CPU one here.
    if (step.instanceGroups?.some((g) => g.kind === 'GPU')) step.instanceGroups = [{ count: 1, kind: 'CPU' }];
    if (standIn.decoupled !== undefined) step.decoupled = standIn.decoupled;
  }
  writeFileSync(file, JSON.stringify(pipeline, null, 2));
  return file;
}

async function withServer<T>(
  repo: string,
  fn: (client: TritonClient, server: LocalServer) => Promise<T>,
): Promise<T> {
  const server = await startLocalServer({
    modelRepository: repo,
    logFile: join(repo, '..', `${basename(repo)}.log`),
  });
  const client = new TritonClient(server.grpcUrl);
  try {
    return await fn(client, server);
  } finally {
    client.close();
    await server.stop();
  }
}

async function loadError(client: TritonClient, model: string): Promise<string | undefined> {
  try {
    await client.loadModel(model);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

function caseName(c: Case): string {
  return c.pipeline ? `${c.sample}/${c.pipeline}` : c.sample;
}

describe.each(CASES.map((c) => [caseName(c), c] as const))('sample %s', (name, c) => {
  it('generates, builds, loads and answers on the real tritonserver (model step stand-ins where needed)', async () => {
    const pipelineFile = prepare(c);
    const repo = join(work, `${name.replace('/', '-')}-repo`);
    const generated = generateRepository({ pipelinePath: pipelineFile, outDir: repo });
    expect(generated.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).toEqual([]);
    await buildRepository(repo);
    const ensemble = generated.ensembleName!;
    const steps = generated.models.filter((m) => m.kind !== 'ensemble').map((m) => m.name);
    const hf = c.tokenizer
      ? await Tokenizer.fromFile(
          resolveTokenizer(c.tokenizer, pipelineFile, defaultTokenizerSearchDirs()).file!,
        )
      : undefined;

    await withServer(repo, async (client) => {
      for (const step of steps) expect(await loadError(client, step), `${step} should load`).toBeUndefined();
      expect(await loadError(client, ensemble), `ensemble ${ensemble} should load`).toBeUndefined();
      expect(await client.modelReady(ensemble)).toBe(true);
      if (c.answer === 'tokens') await checkTokenAnswer(client, ensemble, hf!, c.addSpecialTokens!, c);
      else if (c.answer === 'ft-tensors') await checkFtTensorsAnswer(client, ensemble, hf!);
      else if (c.answer === 'text') await checkTextAnswer(client, ensemble);
      else await checkLogits(client, ensemble, hf!);
      if (c.typescript === 'chat-template') await checkChatTemplate(client, ensemble, hf!);
      if (c.typescript === 'stop-sequence') await checkStopSequence(client, ensemble, hf!);
      if (c.typescript === 'label-step') await checkLabelStep(client, ensemble);
    });
  });
});

/** sim-llm answers the prompt's own ids, cycled: the expected text comes from HF's tokenizer. */
async function checkTokenAnswer(
  client: TritonClient,
  ensemble: string,
  hf: Tokenizer,
  addSpecialTokens: boolean,
  c: Case,
) {
  // Characters whose bytes span tokens and word-start spaces must come through whole, also
  // where a decoupled model step streams one token per response.
  const prompt = 'naïve café ünïcödé 🙂 def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)';
  // The chat template hook runs before encoding: the model sees the templated prompt.
  const encoded = c.typescript === 'chat-template' ? chatTemplate(prompt, '') : prompt;
  const ids = (await hf.encode(encoded, null, { addSpecialTokens })).getIds();
  const maxTokens = ids.length + 5;
  const expected = await hf.decode(
    Array.from({ length: maxTokens }, (_, i) => ids[i % ids.length]!),
    true,
  );
  const answer = await sendPrompt(client, { model: ensemble, text: prompt, maxTokens, stream: true });
  expect(answer.text).toBe(expected);
  // An ensemble's steps, or the model step a native orchestrator calls (streaming pipelines).
  const config = await client.modelConfig(ensemble);
  const modelStep = config.ensemble_scheduling
    ? config.ensemble_scheduling.step.map((s) => s.model_name)
    : [config.parameters!.orchestrates!.string_value!];
  const configs = await Promise.all(modelStep.map((m) => client.modelConfig(m)));
  if (configs.some((m) => m.model_transaction_policy?.decoupled)) {
    // The ensemble sends one response per token; the orchestrator one per non-empty text delta
    // (a character spread over several byte tokens goes out whole, once).
    expect(answer.responses).toBeGreaterThanOrEqual(config.ensemble_scheduling ? maxTokens : maxTokens / 2);
  }
}

/**
 * FasterTransformer's own ensemble tensors, as existing FT clients send them: INPUT_0 the prompt,
 * INPUT_1 the output length (UINT32), INPUT_2/3 bad and stop words; OUTPUT_0 the text.
 */
async function checkFtTensorsAnswer(client: TritonClient, ensemble: string, hf: Tokenizer) {
  const prompt = 'def hello_world():\n    print("naïve café 🙂")';
  const ids = (await hf.encode(prompt, null, { addSpecialTokens: false })).getIds();
  const outputLen = ids.length + 3;
  const expected = await hf.decode(
    Array.from({ length: outputLen }, (_, i) => ids[i % ids.length]!),
    true,
  );
  const result = await client.infer(ensemble, [
    bytesInput('INPUT_0', [1, 1], [prompt]),
    numericInput('INPUT_1', 'UINT32', [1, 1], [outputLen]),
    bytesInput('INPUT_2', [1, 1], ['']),
    bytesInput('INPUT_3', [1, 1], ['']),
  ]);
  expect(result.strings('OUTPUT_0')).toEqual([expected]);
}

/**
 * vLLM's interface through the ensemble: the answer is the prompt followed by `max_tokens` pieces,
 * the i-th being " " + the prompt's (i mod n)-th word; `sampling_parameters` (JSON) carries
 * max_tokens and `stream` asks for one response per piece.
 */
async function checkTextAnswer(client: TritonClient, ensemble: string) {
  const prompt = 'naïve café 🙂 says hello';
  const words = prompt.split(' ');
  const pieces = (n: number) => Array.from({ length: n }, (_, i) => ` ${words[i % words.length]}`);

  const chunks: string[] = [];
  for await (const result of client.streamInfer(ensemble, [
    bytesInput('text_input', [1], [prompt]),
    numericInput('stream', 'BOOL', [1], [true]),
    bytesInput('sampling_parameters', [1], [JSON.stringify({ max_tokens: 7, temperature: 0 })]),
  ])) {
    if (result.outputs.has('text_output')) chunks.push(result.strings('text_output').join(''));
  }
  expect(chunks).toEqual(pieces(7).map((p, i) => (i === 0 ? prompt + p : p)));

  // Not streamed, no sampling_parameters: one response with vLLM's default of 16 tokens.
  const answer = await sendPrompt(client, { model: ensemble, text: prompt, stream: false });
  expect(answer.chunks).toEqual([prompt + pieces(16).join('')]);

  // A bad sampling_parameters is the model's error, passed back through the ensemble.
  const bad = client.streamInfer(ensemble, [
    bytesInput('text_input', [1], [prompt]),
    bytesInput('sampling_parameters', [1], ['{"max_tokens": "many"}']),
  ]);
  await expect(
    (async () => {
      for await (const _ of bad) void _;
    })(),
  ).rejects.toThrow(/max_tokens must be an integer/);
}

/** sim-llm's classifier: logits[k] = Σ over real tokens j of id_j·(j+1+k), mod 65521. */
function expectedLogits(ids: number[], labels: number): number[] {
  return Array.from({ length: labels }, (_, k) =>
    ids.reduce((sum, id, j) => (sum + (((id % 65521) * (j + 1 + k)) % 65521)) % 65521, 0),
  );
}

/**
 * The classifier ensemble: the logits are a function of the token ids, so they prove that the
 * native tokenize step's real ids and attention mask (padding masked out) reach the model step.
 */
async function checkLogits(client: TritonClient, ensemble: string, hf: Tokenizer) {
  const texts = ['The quick brown fox jumps over the lazy dog', 'Short one.'];
  const labels = (await client.modelConfig(ensemble)).output.find((o) => o.name === 'logits')!.dims[0]!;
  // One request of two rows: the second is padded to the first's length inside the ensemble.
  const result = await client.infer(ensemble, [bytesInput('text', [2, 1], texts)]);
  const want: number[] = [];
  for (const text of texts) want.push(...expectedLogits((await hf.encode(text)).getIds(), labels));
  expect(result.output('logits').shape).toEqual([2, labels]);
  expect(result.numbers('logits')).toEqual(want);
  expect(want[0]).not.toEqual(want[labels]); // different texts, different logits
  // What `triton-studio prompt` prints for a classifier: the label and the logits of one text.
  const classified = await sendClassify(client, { model: ensemble, text: texts[0]! });
  expect(classified.logits).toEqual(want.slice(0, labels));
  expect(classified.label).toBe(classified.logits.indexOf(Math.max(...classified.logits)));
  // The command itself: `triton-studio prompt` recognises the classifier and prints that line.
  const printed = spawnSync(
    process.execPath,
    [
      join(__dirname, '../../bin/triton-studio.js'),
      'prompt',
      '--url',
      client.url,
      '--model',
      ensemble,
      texts[0]!,
    ],
    { encoding: 'utf8' },
  );
  expect(printed.status, printed.stderr).toBe(0);
  expect(printed.stdout).toBe(
    `label ${classified.label} (p ${classified.probabilities[classified.label]!.toFixed(4)}), ` +
      `logits [${classified.logits.map((l) => l.toFixed(4)).join(', ')}]\n`,
  );

  // The tokenize step on its own: ids as HF makes them, mask 1 per real token, 0 per padding.
  const tokenized = await client.infer('tokenize', [bytesInput('TEXT', [2, 1], texts)]);
  const ids = tokenized.numbers('input_ids');
  const mask = tokenized.numbers('attention_mask');
  const width = ids.length / 2;
  for (const [row, text] of texts.entries()) {
    const wantIds = (await hf.encode(text)).getIds();
    expect(ids.slice(row * width, row * width + wantIds.length)).toEqual(wantIds);
    expect(mask.slice(row * width, (row + 1) * width)).toEqual(
      Array.from({ length: width }, (_, i) => (i < wantIds.length ? 1 : 0)),
    );
  }
}

const HOOKS = {
  chat: join(SAMPLES, 'llama2-tensorrt-llm/hooks/llama2-chat.ts'),
  stop: join(SAMPLES, 'gpt2-tensorrt-llm/hooks/stop-sequence.ts'),
  label: join(SAMPLES, 'distilbert-onnx/steps/label.ts'),
};

function chatTemplate(prompt: string, system: string): string {
  return loadInNode(HOOKS.chat).beforeEncode!(prompt, { system_prompt: system }) as string;
}

/** Streams a prompt with extra ensemble inputs; the answer's text. */
async function streamText(client: TritonClient, ensemble: string, inputs: ReturnType<typeof bytesInput>[]) {
  let text = '';
  for await (const r of client.streamInfer(ensemble, inputs)) {
    if (r.outputs.has('text_output')) text += r.strings('text_output').join('');
  }
  return text;
}

/**
 * The Llama-2 chat template (a TypeScript beforeEncode hook with an optional system_prompt input)
 * runs in the tokenize step: sim-llm echoes the ids it was given, so the answer is the template
 * Node makes of the same prompt and system prompt, and changes with the system prompt.
 */
async function checkChatTemplate(client: TritonClient, ensemble: string, hf: Tokenizer) {
  const prompt = '  What is 2 + 2? ';
  for (const system of ['', 'Answer in one word, naïvely 🙂.']) {
    const ids = (await hf.encode(chatTemplate(prompt, system), null, { addSpecialTokens: true })).getIds();
    const inputs = [
      bytesInput('text_input', [1, 1], [prompt]),
      numericInput('max_tokens', 'INT32', [1, 1], [ids.length]),
      numericInput('stream', 'BOOL', [1, 1], [true]),
    ];
    if (system) inputs.push(bytesInput('system_prompt', [1, 1], [system]));
    const answer = await streamText(client, ensemble, inputs);
    expect(answer).toBe(await hf.decode(ids, true));
    expect(answer.includes('<<SYS>>')).toBe(system !== '');
  }
}

/**
 * The stop-sequence hook (startStream/onChunk/endStream) in the streaming detokenize step: one
 * token per response, so the stop sequence arrives split across chunks and is still cut; held-back
 * text is flushed when the answer's tokens end with the end token (an end_id the model never
 * matches makes sim-llm pass GPT-2's <|endoftext|> through as a token).
 */
async function checkStopSequence(client: TritonClient, ensemble: string, hf: Tokenizer) {
  const stop = loadInNode(HOOKS.stop);
  const send = async (prompt: string) => {
    const ids = (await hf.encode(prompt, null, { addSpecialTokens: true })).getIds();
    return streamText(client, ensemble, [
      bytesInput('text_input', [1, 1], [prompt]),
      numericInput('max_tokens', 'INT32', [1, 1], [ids.length]),
      numericInput('stream', 'BOOL', [1, 1], [true]),
      numericInput('end_id', 'INT32', [1, 1], [999_999]),
    ]);
  };
  const cut = 'Question: naïve? Answer: yes 🙂\n\n### Question: more';
  expect(await send(cut)).toBe(stop.afterDecode!(cut));
  expect(await send(cut)).toBe('Question: naïve? Answer: yes 🙂');
  // Ends with the start of the stop sequence: held back chunk by chunk, flushed at the end token.
  expect(await send('one\n\n#<|endoftext|>')).toBe('one\n\n#');
  expect(await send('two\n\n##<|endoftext|>')).toBe('two\n\n##');
}

/**
 * The DistilBERT label step (a TypeScript custom step: softmax, top label and score) after the
 * model step: its label and score are what the module computes in Node from the same logits.
 */
async function checkLabelStep(client: TritonClient, ensemble: string) {
  const texts = ['The quick brown fox jumps over the lazy dog', 'Short one.'];
  const result = await client.infer(ensemble, [bytesInput('text', [2, 1], texts)]);
  const logits = result.numbers('logits');
  const width = logits.length / texts.length;
  const rows = texts.map((_, r) => ({ logits: Float32Array.from(logits.slice(r * width, (r + 1) * width)) }));
  const node = loadInNode(HOOKS.label).execute!(rows, { labels: 'NEGATIVE,POSITIVE' }) as Array<{
    label: string;
    score: number;
  }>;
  expect(result.strings('label')).toEqual(node.map((x) => x.label));
  expect(result.numbers('score')).toEqual(node.map((x) => Math.fround(x.score)));
}
