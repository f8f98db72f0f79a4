/** Triton's gRPC endpoints: ModelStreamInfer (any model, streamed or not) and ModelInfer (one response). */
import type { TritonClient } from '../grpc/client.js';
import type { ModelStatistics } from '../grpc/types.js';
import { PromptEncoder, PromptSender, promptInputs, sendPrompt, TEXT_OUTPUT } from '../prompt.js';
import { withDecoupledHint } from './errors.js';
import { whole } from './result.js';
import type { PromptSession, PromptTransport, SessionOptions } from './types.js';

export class GrpcTransport implements PromptTransport {
  readonly url: string;

  constructor(
    readonly client: TritonClient,
    readonly endpoint: 'grpc-stream' | 'grpc-infer' = 'grpc-stream',
    /** Close the client with the transport (false when the caller lent it). */
    private readonly owned = false,
  ) {
    this.url = client.url;
  }

  async prepare(model: string, options: SessionOptions): Promise<PromptSession> {
    const config = await this.client.modelConfig(model);
    const { stream, timeoutMs } = options;
    if (this.endpoint === 'grpc-stream') {
      // Load goes through the pool of open streams; a prompt shown as it arrives, through its own call.
      let pooled: PromptSender | undefined;
      return {
        send: (request) =>
          request.onText
            ? sendPrompt(this.client, { model, config, stream, timeoutMs, ...request })
            : (pooled ??= new PromptSender(this.client, { model, config, stream, timeoutMs })).send(
                request.text,
                request.maxTokens,
              ),
        close: () => pooled?.close(),
      };
    }
    if (stream) {
      throw new Error(
        'gRPC ModelInfer answers in one response: leave out --stream, or use --endpoint grpc-stream',
      );
    }
    promptInputs(config, { text: '', maxTokens: 1 });
    const encoder = new PromptEncoder({ model, config, unary: true });
    return {
      send: async (request) => {
        const { result, sentMs, endMs } = await this.client
          .inferUnary(encoder.encode(request.text, request.maxTokens), timeoutMs)
          .catch((error: Error) => Promise.reject(withDecoupledHint(error)));
        return whole(result.strings(TEXT_OUTPUT).join(''), endMs - sentMs, request);
      },
      close: () => undefined,
    };
  }

  async statistics(): Promise<ModelStatistics[] | undefined> {
    try {
      return await this.client.modelStatistics();
    } catch {
      return undefined;
    }
  }

  close(): void {
    if (this.owned) this.client.close();
  }
}
