/**
 * Prompts to an ensemble with Triton's LLM interface (text_input, max_tokens → text_output):
 * `sendPrompt` for one answer (always ModelStreamInfer, so decoupled and ordinary ensembles alike),
 * and for the latency lab `PromptEncoder` (each distinct prompt encoded once) and `PromptSender`
 * (requests over the pooled streams, timed at the wire).
 */
import { performance } from 'node:perf_hooks';
import {
  bytesInput,
  encodeStreamRequest,
  numericInput,
  type InferInput,
  type TritonClient,
} from './grpc/client.js';
import type { EncodedRequest } from './grpc/inferCodec.js';
import type { InferStreamPool } from './grpc/streamPool.js';
import { protocolDataType } from './grpc/tensors.js';
import type { ModelConfig, ModelTensorConfig } from './grpc/types.js';

/** Ensemble tensor names every Triton Studio LLM ensemble keeps (see docs/decisions/contracts.md, "Ensemble tensor names"). */
export const TEXT_INPUT = 'text_input';
export const MAX_TOKENS = 'max_tokens';
export const STREAM = 'stream';
export const TEXT_OUTPUT = 'text_output';
/** A pipeline whose tokenize step renders the model's chat template takes these (docs/PIPELINE.md). */
export const MESSAGES = 'messages';
export const TOOLS = 'tools';
export const CHAT_TEMPLATE_KWARGS = 'chat_template_kwargs';

/** A conversation for a pipeline's `messages` / `tools` / `chat_template_kwargs` inputs. */
export interface ChatPromptInputs {
  messages: unknown[];
  tools?: unknown[];
  chatTemplateKwargs?: Record<string, unknown>;
}

/** Model inputs by name (TensorRT-LLM's: temperature, top_p, stop_words…): numbers or word lists. */
export type NamedInputs = Readonly<Record<string, number | readonly string[] | undefined>>;

export interface PromptOptions {
  model: string;
  /** The prompt; with `chat`, what a model without a `messages` input gets instead. */
  text: string;
  /** A conversation, sent to the model's `messages` input when it has one. */
  chat?: ChatPromptInputs;
  /** Further inputs by name, each sent only when the model has an input of that name. */
  extra?: NamedInputs;
  /** Sent as `max_tokens` when the model has that input. */
  maxTokens?: number;
  /** Ask for incremental responses (`stream` input = true) and report each through `onText`. */
  stream?: boolean;
  onText?: (chunk: string) => void;
  /** The model's config when the caller has it already (a latency test sends many prompts). */
  config?: ModelConfig;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface PromptResult {
  /** The whole answer: every `text_output` chunk, concatenated. */
  text: string;
  /** Each non-empty `text_output` chunk as it arrived. */
  chunks: string[];
  /** When each chunk arrived, ms after the request was sent (set by `sendPrompt`). */
  chunkMs?: number[];
  /** Responses received (a streaming step sends about one per token). */
  responses: number;
  /** Time to the first non-empty `text_output`, ms. */
  ttftMs: number;
  /** Time to the final response, ms. */
  latencyMs: number;
  /** Token counts the server reported (OpenAI's `usage`), when it did. */
  usage?: { promptTokens?: number; completionTokens?: number };
}

/**
 * Sends one prompt to an ensemble with the `text_input` / `max_tokens` / `text_output`
 * interface. Always goes through ModelStreamInfer: it serves ordinary and decoupled models
 * alike (ModelInfer rejects decoupled ones), so one path measures both the same way.
 */
export async function sendPrompt(client: TritonClient, options: PromptOptions): Promise<PromptResult> {
  const config = options.config ?? (await client.modelConfig(options.model));
  const inputs = promptInputs(config, options);
  const chunks: string[] = [];
  const chunkMs: number[] = [];
  let responses = 0;
  const start = performance.now();
  for await (const result of client.streamInfer(options.model, inputs, {
    outputs: [TEXT_OUTPUT],
    timeoutMs: options.timeoutMs,
    signal: options.signal,
  })) {
    responses++;
    if (!result.outputs.has(TEXT_OUTPUT)) continue;
    const chunk = result.strings(TEXT_OUTPUT).join('');
    if (chunk === '') continue;
    chunkMs.push(performance.now() - start);
    chunks.push(chunk);
    options.onText?.(chunk);
  }
  const latencyMs = performance.now() - start;
  return { text: chunks.join(''), chunks, chunkMs, responses, ttftMs: chunkMs[0] ?? latencyMs, latencyMs };
}

/**
 * Sends many prompts to one ensemble, as a latency test does: each distinct prompt is encoded
 * once, and requests go over a pool of long-lived ModelStreamInfer calls rather than a new call
 * each (see InferStreamPool). Times are taken where the bytes leave and arrive (`CallTimes`), so
 * the client's own encoding and decoding are not counted as latency.
 */
export class PromptSender {
  private readonly pool: InferStreamPool;
  private readonly encoder: PromptEncoder;

  constructor(
    client: TritonClient,
    private readonly options: {
      model: string;
      config: ModelConfig;
      stream?: boolean;
      timeoutMs?: number;
    },
  ) {
    this.pool = client.inferStreamPool();
    this.encoder = new PromptEncoder(options);
  }

  async send(text: string, maxTokens?: number): Promise<PromptResult> {
    const request = this.encoder.encode(text, maxTokens);
    const chunks: string[] = [];
    const arrivals: number[] = [];
    let responses = 0;
    const { sentMs, endMs } = await this.pool.send(
      request,
      (result, arrivedMs) => {
        responses++;
        if (!result.outputs.has(TEXT_OUTPUT)) return;
        const chunk = result.strings(TEXT_OUTPUT).join('');
        if (chunk === '') return;
        arrivals.push(arrivedMs);
        chunks.push(chunk);
      },
      this.options.timeoutMs,
    );
    const chunkMs = arrivals.map((at) => at - sentMs);
    const latencyMs = endMs - sentMs;
    return { text: chunks.join(''), chunks, chunkMs, responses, ttftMs: chunkMs[0] ?? latencyMs, latencyMs };
  }

  close(): void {
    this.pool.close();
  }
}

/**
 * Each distinct prompt of a latency test encoded once: for the stream pool (which adds an id per
 * send and asks for the empty final response), or for ModelInfer (`unary`: one response, no id).
 */
export class PromptEncoder {
  private readonly encoded = new Map<string, EncodedRequest>();

  constructor(
    private readonly options: { model: string; config: ModelConfig; stream?: boolean; unary?: boolean },
  ) {}

  encode(text: string, maxTokens: number | undefined): EncodedRequest {
    const key = `${maxTokens ?? ''}\u0000${text}`;
    let request = this.encoded.get(key);
    if (!request) {
      const { model, config, stream, unary } = this.options;
      request = encodeStreamRequest(model, promptInputs(config, { text, maxTokens, stream }), {
        outputs: [TEXT_OUTPUT],
        emptyFinalResponse: !unary,
      });
      this.encoded.set(key, request);
    }
    return request;
  }
}

/** Builds the request tensors from the model's own config: names it has, dtypes and shapes it declares. */
export function promptInputs(
  config: ModelConfig,
  options: Pick<PromptOptions, 'text' | 'maxTokens' | 'stream' | 'chat' | 'extra'>,
): InferInput[] {
  const byName = new Map(config.input.map((i) => [i.name, i]));
  const textInput = byName.get(TEXT_INPUT);
  if (!textInput) {
    const names = config.input.map((i) => i.name).join(', ') || 'none';
    throw new Error(
      `model '${config.name}' has no '${TEXT_INPUT}' input (its inputs: ${names}): prompts need an ensemble with the ` +
        `${TEXT_INPUT} / ${MAX_TOKENS} / ${TEXT_OUTPUT} interface`,
    );
  }
  if (!config.output.some((o) => o.name === TEXT_OUTPUT)) {
    throw new Error(`model '${config.name}' has no '${TEXT_OUTPUT}' output to read the answer from`);
  }
  const conversation = options.chat && byName.has(MESSAGES) ? options.chat : undefined;
  const sent = new Set([TEXT_INPUT, MAX_TOKENS, STREAM, ...Object.keys(options.extra ?? {})]);
  if (conversation) sent.add(MESSAGES).add(TOOLS).add(CHAT_TEMPLATE_KWARGS);
  const unknownRequired = config.input.filter((i) => !i.optional && !sent.has(i.name));
  if (unknownRequired.length > 0) {
    throw new Error(
      `model '${config.name}' also requires ${unknownRequired.map((i) => `'${i.name}'`).join(', ')}, which a prompt ` +
        'does not provide: mark those ensemble inputs optional in the pipeline',
    );
  }
  const batched = config.max_batch_size > 0;
  const shapeOf = (tensor: ModelTensorConfig) => [
    ...(batched ? [1] : []),
    ...tensor.dims.map((d) => (d < 0 ? 1 : d)),
  ];
  const inputs: InferInput[] = [];
  // A conversation goes to the pipeline's chat template; the prompt only where the model needs it.
  if (!conversation || !textInput.optional)
    inputs.push(bytesInput(TEXT_INPUT, shapeOf(textInput), [options.text]));
  if (conversation) {
    const json = (name: string, value: unknown) => {
      const tensor = byName.get(name);
      if (tensor && value !== undefined)
        inputs.push(bytesInput(name, shapeOf(tensor), [JSON.stringify(value)]));
    };
    json(MESSAGES, conversation.messages);
    json(TOOLS, conversation.tools);
    json(CHAT_TEMPLATE_KWARGS, conversation.chatTemplateKwargs);
  }
  for (const [name, value] of Object.entries(options.extra ?? {})) {
    const tensor = byName.get(name);
    if (!tensor || value === undefined) continue;
    inputs.push(namedInput(config.name, tensor, value, batched));
  }

  const maxTokens = byName.get(MAX_TOKENS);
  if (maxTokens && options.maxTokens !== undefined) {
    inputs.push(
      numericInput(MAX_TOKENS, integerType(config.name, maxTokens), shapeOf(maxTokens), [options.maxTokens]),
    );
  } else if (maxTokens && !maxTokens.optional) {
    throw new Error(`model '${config.name}' requires '${MAX_TOKENS}': pass a maximum number of tokens`);
  }
  const stream = byName.get(STREAM);
  if (stream) inputs.push(numericInput(STREAM, 'BOOL', shapeOf(stream), [options.stream ?? false]));
  return inputs;
}

/** A number in the input's own data type, or a word list ([1, n] when the model batches). */
function namedInput(
  model: string,
  tensor: ModelTensorConfig,
  value: number | readonly string[],
  batched: boolean,
): InferInput {
  const type = protocolDataType(tensor.data_type);
  const shape = (n: number) => [
    ...(batched ? [1] : []),
    ...(tensor.dims.length > 0 ? tensor.dims.map((d) => (d < 0 ? n : d)) : []),
  ];
  if (typeof value !== 'number') {
    if (type !== 'BYTES')
      throw new Error(
        `model '${model}' declares '${tensor.name}' as ${tensor.data_type}; expected TYPE_STRING`,
      );
    return bytesInput(tensor.name, shape(value.length), value);
  }
  if (type === 'BYTES' || type === 'FP16' || type === 'BF16')
    throw new Error(
      `model '${model}' declares '${tensor.name}' as ${tensor.data_type}; expected a number type`,
    );
  if (type === 'BOOL') return numericInput(tensor.name, type, shape(1), [value !== 0]);
  const whole = type.startsWith('INT') || type.startsWith('UINT');
  if (whole && !Number.isInteger(value))
    throw new Error(
      `'${tensor.name}' takes whole numbers (model '${model}' declares ${tensor.data_type}), got ${value}`,
    );
  return numericInput(tensor.name, type, shape(1), [type.endsWith('64') && whole ? BigInt(value) : value]);
}

function integerType(model: string, tensor: ModelTensorConfig): 'INT32' | 'INT64' | 'UINT32' | 'UINT64' {
  const type = protocolDataType(tensor.data_type);
  if (type === 'INT32' || type === 'INT64' || type === 'UINT32' || type === 'UINT64') return type;
  throw new Error(
    `model '${model}' declares '${tensor.name}' as ${tensor.data_type}; expected an integer type`,
  );
}
