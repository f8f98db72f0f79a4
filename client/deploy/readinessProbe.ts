/**
 * Readiness by a real request: `ready` from the server only says a model loaded, not that its
 * steps answer (a step can load and fail every request). The probe sends one small request built
 * from the model's own inputs and waits for the final response.
 */
import { performance } from 'node:perf_hooks';
import { bytesInput, numericInput, type InferInput, type TritonClient } from '../grpc/client.js';
import { TritonError } from '../grpc/errors.js';
import type { ModelConfig, ModelTensorConfig } from '../grpc/types.js';
import { TEXT_INPUT } from '../prompt.js';

export const PROBE_TEXT = 'Triton Studio readiness check';

export interface ProbeResult {
  model: string;
  ok: boolean;
  ms: number;
  /** The server's words when the request failed. */
  error?: string;
}

/**
 * One value per required input: text for STRING, 1 for numbers (a length, a token count), false
 * for BOOL. Optional inputs are left out, so the request is the smallest the model accepts, but
 * for the prompt (`text_input`) of a pipeline that takes a prompt or a conversation: a request
 * must carry one of them.
 */
export function probeInputs(config: ModelConfig): InferInput[] {
  const batched = config.max_batch_size > 0;
  const shape = (t: ModelTensorConfig) => [...(batched ? [1] : []), ...t.dims.map((d) => (d < 0 ? 1 : d))];
  return config.input
    .filter((t) => !t.optional || t.name === TEXT_INPUT)
    .map((t) => {
      const dims = shape(t);
      const count = dims.reduce((n, d) => n * d, 1);
      const type = t.data_type.replace(/^TYPE_/, '');
      if (type === 'STRING') return bytesInput(t.name, dims, Array<string>(count).fill(PROBE_TEXT));
      if (type === 'BOOL') return numericInput(t.name, 'BOOL', dims, Array<boolean>(count).fill(false));
      return numericInput(
        t.name,
        type as Parameters<typeof numericInput>[1],
        dims,
        Array<number>(count).fill(1),
      );
    });
}

export async function probeModel(
  client: TritonClient,
  model: string,
  timeoutMs = 30_000,
): Promise<ProbeResult> {
  const start = performance.now();
  try {
    const config = await client.modelConfig(model);
    for await (const _response of client.streamInfer(model, probeInputs(config), { timeoutMs })) {
      // every response is read; an error response throws
    }
    return { model, ok: true, ms: Math.round(performance.now() - start) };
  } catch (error) {
    const message =
      error instanceof TritonError && error.serverMessage
        ? error.serverMessage
        : error instanceof Error
          ? error.message
          : String(error);
    return { model, ok: false, ms: Math.round(performance.now() - start), error: message };
  }
}
