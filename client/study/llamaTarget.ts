/**
 * The batching study on a real model: the llama.cpp step (backends/llama-cpp) serving a GGUF on
 * the CPU, under the step's own scheduling modes — `none` (one request at a time), `dynamic` (a
 * batch forms from what is queued when the model is free; nobody joins until it has ended) and
 * `inflight` (a request joins at the next decode step). It has no static batcher. Every request
 * sends the same prompt, encoded once with the native tokenizer, over TensorRT-LLM's tensors and
 * counts the ids it gets back. Model, libraries and step travel with the load request, so the
 * server needs nothing but itself.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  buildBackends,
  checkLlamaCppFetched,
  llamaCacheDir,
  hostArchitecture,
  LLAMA_CPP_BACKEND,
  LLAMA_CPP_TARGET,
  llamaCppLibrary,
  llamaRuntimeLibraries,
  smolLm2Gguf,
} from '../../generator/build/index.js';
import { defaultTokenizerSearchDirs, resolveTokenizer } from '../../generator/pipeline/tokenizers.js';
import { numericInput } from '../grpc/client.js';
import { openNativeTokenizer, type BackendsLocation } from '../tokenizer/repositoryTokenizer.js';
import type { SchedulingMode, StudyTarget } from './batching.js';

/** The tokenizer set-up imports from SmolLM2's GGUF (.cache/tokenizers/<name>). */
const SMOLLM2_TOKENIZER = 'smollm2-135m-instruct';

export const LLAMA_STUDY_MODES: readonly SchedulingMode[] = ['none', 'dynamic', 'inflight'];

/** A counting prompt: a small model goes on counting, so answers run to the tokens asked for. */
export const LLAMA_STUDY_PROMPT = 'Count: 1, 2, 3, 4, 5, 6, 7,';

export interface LlamaStudyOptions {
  /** The GGUF model file; default SmolLM2-135M-Instruct as `npm run setup` fetches it. */
  gguf?: string;
  /** Its tokenizer.json (the prompt is encoded with it once); default SmolLM2's, imported by set-up. */
  tokenizer?: string;
  prompt?: string;
  /** ggml threads (default 0: the step picks one fewer than the server's CPUs). */
  threads?: number;
  /** Requests decoded together in dynamic and in-flight modes (default 4). */
  maxSequences?: number;
  /** KV cells per request: prompt + answer (default 512). */
  contextLength?: number;
  backends?: BackendsLocation;
}

export async function llamaStudyTarget(options: LlamaStudyOptions): Promise<StudyTarget> {
  const built = await buildBackends({ ...options.backends, targets: [LLAMA_CPP_TARGET] });
  const root = dirname(built.sourceDir);
  // The study runs here, on this machine's CPU.
  const arch = hostArchitecture();
  const llamaDir = options.backends?.llamaDir ?? llamaCacheDir(root);
  checkLlamaCppFetched(llamaDir, arch);
  const gguf = options.gguf ?? smolLm2Gguf(root);
  const tokenizerFile =
    options.tokenizer ??
    (options.gguf === undefined
      ? resolveTokenizer(SMOLLM2_TOKENIZER, join(root, 'package.json'), defaultTokenizerSearchDirs()).file
      : undefined);
  if (!existsSync(gguf))
    throw new Error(
      `${gguf} not found: give a GGUF model, or run \`npm run setup\` to fetch SmolLM2-135M-Instruct`,
    );
  if (!tokenizerFile || !existsSync(tokenizerFile)) {
    throw new Error(
      options.gguf === undefined
        ? "SmolLM2's tokenizer is missing: run `npm run setup` (it imports it from the GGUF)"
        : `give the model's tokenizer.json (${tokenizerFile ?? 'none given'}); \`triton-studio import-gguf\` writes one from the GGUF`,
    );
  }
  const files: Record<string, Buffer> = {
    '1/libtriton_llama_cpp.so': readFileSync(llamaCppLibrary(built.buildDir)),
    '1/model.gguf': readFileSync(gguf),
  };
  for (const library of llamaRuntimeLibraries(llamaDir, arch))
    files[`1/${basename(library)}`] = readFileSync(library);
  const tokenizer = await openNativeTokenizer(tokenizerFile, undefined, options.backends);
  const prompt = await tokenizer
    .encode(options.prompt ?? LLAMA_STUDY_PROMPT)
    .finally(() => tokenizer.close());
  const settings = {
    threads: options.threads ?? 0,
    maxSequences: options.maxSequences ?? 4,
    contextLength: options.contextLength ?? 512,
  };
  return {
    engine: 'llama-cpp',
    modes: LLAMA_STUDY_MODES,
    description: { gguf: basename(gguf), promptTokens: prompt.length, ...settings },
    async load(client, name, mode) {
      await client.loadModel(name, { config: llamaStudyConfig(name, mode, settings), files });
    },
    async send(client, name, requestedTokens, timeoutMs) {
      const start = performance.now();
      let outputTokens = 0;
      const inputs = [
        numericInput('input_ids', 'INT32', [1, prompt.length], prompt),
        numericInput('input_lengths', 'INT32', [1, 1], [prompt.length]),
        numericInput('request_output_len', 'INT32', [1, 1], [requestedTokens]),
        numericInput('streaming', 'BOOL', [1, 1], [false]),
      ];
      for await (const response of client.streamInfer(name, inputs, { timeoutMs })) {
        if (response.outputs.has('output_ids')) outputTokens += response.numbers('output_ids').length;
      }
      return { requestedTokens, outputTokens, latencyMs: performance.now() - start };
    },
  };
}

/** The llama.cpp step's config as its preset writes it (generator/presets/llamaCpp.ts), in `mode`. */
export function llamaStudyConfig(
  name: string,
  mode: SchedulingMode,
  settings: { threads: number; maxSequences: number; contextLength: number },
): object {
  const parameter = (value: number | string) => ({ string_value: String(value) });
  const scalar = { dims: [1], reshape: { shape: [] } };
  return {
    name,
    backend: LLAMA_CPP_BACKEND,
    max_batch_size: 8,
    input: [
      { name: 'input_ids', data_type: 'TYPE_INT32', dims: [-1], allow_ragged_batch: true },
      { name: 'input_lengths', data_type: 'TYPE_INT32', ...scalar },
      { name: 'request_output_len', data_type: 'TYPE_INT32', ...scalar },
      { name: 'streaming', data_type: 'TYPE_BOOL', ...scalar, optional: true },
    ],
    output: [
      { name: 'output_ids', data_type: 'TYPE_INT32', dims: [-1, -1] },
      { name: 'sequence_length', data_type: 'TYPE_INT32', dims: [-1] },
    ],
    model_transaction_policy: { decoupled: true },
    dynamic_batching: { max_queue_delay_microseconds: 0 },
    instance_group: [{ count: 1, kind: 'KIND_CPU' }],
    parameters: {
      gguf: parameter('model.gguf'),
      scheduling: parameter(mode),
      n_threads: parameter(settings.threads),
      max_sequences: parameter(settings.maxSequences),
      context_length: parameter(settings.contextLength),
    },
  };
}
