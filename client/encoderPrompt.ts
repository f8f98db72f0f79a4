/**
 * Requests to encoder pipelines, which answer numbers rather than text: a classifier (one text →
 * `logits`), a cross-encoder reranker (a query and passages, one row each → one `logits` score per
 * row) and an embedding model (texts → `sentence_embedding`, one vector per row). Which one a
 * deployed ensemble is comes from its config alone (`encoderKind`), so `triton-studio prompt`
 * needs no flag to tell them apart. Every request goes over ModelStreamInfer, as `sendPrompt`'s do.
 */
import { performance } from 'node:perf_hooks';
import { bytesInput, type InferInput, type TritonClient } from './grpc/client.js';
import type { ModelConfig, ModelTensorConfig } from './grpc/types.js';
import { TEXT_OUTPUT } from './prompt.js';

export const LOGITS = 'logits';
/** The output name sentence-transformers' ONNX export gives the pooled vector (and the embedding preset keeps). */
export const SENTENCE_EMBEDDING = 'sentence_embedding';

export type EncoderKind = 'classifier' | 'reranker' | 'embedding';

/** What a config's tensors make it, or undefined for an LLM (text_output) or anything else. */
export function encoderKind(config: ModelConfig): EncoderKind | undefined {
  if (config.output.some((o) => o.name === TEXT_OUTPUT)) return undefined;
  const texts = textInputs(config);
  if (texts.length !== config.input.filter((i) => !i.optional).length) return undefined;
  const has = (name: string) => config.output.some((o) => o.name === name);
  if (has(SENTENCE_EMBEDDING) && texts.length === 1) return 'embedding';
  if (has(LOGITS) && texts.length === 1) return 'classifier';
  if (has(LOGITS) && texts.length === 2) return 'reranker';
  return undefined;
}

/** An encoder (classifier) pipeline: one STRING input and a `logits` output, no `text_output`. */
export function isClassifier(config: ModelConfig): boolean {
  return encoderKind(config) === 'classifier';
}

export interface ClassifyResult {
  /** Index of the largest logit: the predicted class. */
  label: number;
  logits: number[];
  /** softmax(logits). */
  probabilities: number[];
  latencyMs: number;
}

/** Sends the text to a classifier ensemble and reads its logits (one row). */
export async function sendClassify(
  client: TritonClient,
  options: { model: string; text: string; config?: ModelConfig; timeoutMs?: number },
): Promise<ClassifyResult> {
  const config = await expectKind(client, options.model, options.config, 'classifier');
  const { values: logits, latencyMs } = await sendRows(client, config, LOGITS, [[options.text]], options);
  const max = Math.max(...logits);
  const exp = logits.map((l) => Math.exp(l - max));
  const sum = exp.reduce((a, b) => a + b, 0);
  return { label: logits.indexOf(max), logits, probabilities: exp.map((e) => e / sum), latencyMs };
}

export interface RerankResult {
  /** One score (the model's logit) per passage, in the order given. */
  scores: number[];
  /** Passage indices from the highest score to the lowest. */
  ranking: number[];
  latencyMs: number;
}

/** Scores each passage against the query in one batched request to a cross-encoder ensemble. */
export async function sendRerank(
  client: TritonClient,
  options: { model: string; query: string; passages: string[]; config?: ModelConfig; timeoutMs?: number },
): Promise<RerankResult> {
  if (options.passages.length === 0) throw new Error('a reranker needs at least one passage to score');
  const config = await expectKind(client, options.model, options.config, 'reranker');
  const rows = options.passages.map((p) => [options.query, p]);
  const { values: scores, latencyMs } = await sendRows(client, config, LOGITS, rows, options);
  if (scores.length !== rows.length) {
    throw new Error(
      `model '${config.name}' answered ${scores.length} scores for ${rows.length} passages: a reranker's '${LOGITS}' holds one per row`,
    );
  }
  const ranking = scores.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b);
  return { scores, ranking, latencyMs };
}

export interface EmbedResult {
  /** One vector per text, as the model answered it (no normalisation added). */
  embeddings: number[][];
  latencyMs: number;
}

/** Embeds the texts in one batched request to an embedding ensemble. */
export async function sendEmbed(
  client: TritonClient,
  options: { model: string; texts: string[]; config?: ModelConfig; timeoutMs?: number },
): Promise<EmbedResult> {
  if (options.texts.length === 0) throw new Error('nothing to embed: give at least one text');
  const config = await expectKind(client, options.model, options.config, 'embedding');
  const rows = options.texts.map((t) => [t]);
  const { values, latencyMs } = await sendRows(client, config, SENTENCE_EMBEDDING, rows, options);
  const width = values.length / rows.length;
  if (!Number.isInteger(width) || width === 0) {
    throw new Error(`model '${config.name}' answered ${values.length} numbers for ${rows.length} texts`);
  }
  return { embeddings: rows.map((_, r) => values.slice(r * width, (r + 1) * width)), latencyMs };
}

const KIND_SHAPE: Record<EncoderKind, string> = {
  classifier: `one STRING input and a '${LOGITS}' output`,
  reranker: `two STRING inputs (query, passage) and a '${LOGITS}' output`,
  embedding: `one STRING input and a '${SENTENCE_EMBEDDING}' output`,
};

async function expectKind(
  client: TritonClient,
  model: string,
  known: ModelConfig | undefined,
  kind: EncoderKind,
): Promise<ModelConfig> {
  const config = known ?? (await client.modelConfig(model));
  if (encoderKind(config) !== kind) {
    throw new Error(
      `model '${config.name}' is not a ${kind} pipeline (${KIND_SHAPE[kind]}, no '${TEXT_OUTPUT}')`,
    );
  }
  return config;
}

/** The config's required STRING inputs, in the order it declares them. */
function textInputs(config: ModelConfig): ModelTensorConfig[] {
  return config.input.filter((i) => !i.optional && i.data_type === 'TYPE_STRING');
}

/**
 * One request whose k-th STRING input holds column k of `rows`, batched when the model batches
 * (one row per request otherwise); returns `output` flattened over the rows.
 */
async function sendRows(
  client: TritonClient,
  config: ModelConfig,
  output: string,
  rows: string[][],
  options: { model: string; timeoutMs?: number },
): Promise<{ values: number[]; latencyMs: number }> {
  const batched = config.max_batch_size > 0;
  if (!batched && rows.length > 1) {
    throw new Error(`model '${config.name}' does not batch (max_batch_size 0): send one row at a time`);
  }
  if (batched && rows.length > config.max_batch_size) {
    throw new Error(
      `${rows.length} rows exceed model '${config.name}''s max_batch_size ${config.max_batch_size}: send fewer per request`,
    );
  }
  const inputs: InferInput[] = textInputs(config).map((tensor, column) => {
    const dims = tensor.dims.map((d) => (d < 0 ? 1 : d));
    const shape = batched ? [rows.length, ...dims] : dims;
    return bytesInput(
      tensor.name,
      shape,
      rows.map((r) => r[column]!),
    );
  });
  const start = performance.now();
  let values: number[] = [];
  // Every output: Triton 2.51's ensemble reports a deadlock when a request names only some of its
  // outputs while a step also consumes one of them (a classifier's label step after the logits).
  for await (const result of client.streamInfer(options.model, inputs, { timeoutMs: options.timeoutMs })) {
    if (result.outputs.has(output)) values = result.numbers(output);
  }
  const latencyMs = performance.now() - start;
  if (values.length === 0) throw new Error(`model '${config.name}' answered without '${output}'`);
  return { values, latencyMs };
}
