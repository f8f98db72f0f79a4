/**
 * `TritonClient`: Triton's `inference.GRPCInferenceService` (KServe v2 and Triton's extensions:
 * health, metadata, config, statistics, repository load/unload with uploaded files, ModelInfer,
 * ModelStreamInfer) over @grpc/grpc-js, with TLS and per-call headers; every failure a TritonError
 * that says what to do. The latency lab's hot path goes around grpc-js: `inferStreamPool()` and
 * `inferUnary()` send requests encoded once (inferCodec.ts) over the client's own HTTP/2
 * connection (http2Call.ts).
 */
import { randomUUID } from 'node:crypto';
import { Metadata, credentials, type CallOptions, type Client, type ClientDuplexStream } from '@grpc/grpc-js';
import { toTritonError, TritonError, type ChannelSecurity } from './errors.js';
import { inferenceServiceClient } from './protocol.js';
import { Http2Channel } from './http2Call.js';
import { EncodedRequest } from './inferCodec.js';
import { InferResult, type CallTimes, type OutputTensor } from './inferResult.js';
import { InferStreamPool } from './streamPool.js';
import { sendUnary } from './unaryCall.js';
import type { TlsOptions } from './tls.js';
import { checkInput, isTensorDataType, type InferInput } from './tensors.js';
import type {
  InferParameterValue,
  ModelConfig,
  ModelMetadata,
  ModelStatistics,
  RepositoryModel,
  ServerMetadata,
  WireInferParameter,
  WireInferResponse,
  WireStreamResponse,
} from './types.js';

// Their homes are inferResult.ts, inferCodec.ts and tensors.ts; the client is where callers look.
export { InferResult, type CallTimes, type OutputTensor } from './inferResult.js';
export { encodeStreamRequest } from './inferCodec.js';
export { bytesInput, numericInput, type InferInput } from './tensors.js';

export interface TritonClientOptions {
  /** Extra metadata on every call, e.g. the header a restricted endpoint expects. */
  headers?: Record<string, string>;
  /** Deadline for control calls (health, metadata, config, index, unload); default 30 s. */
  timeoutMs?: number;
  /** Deadline for model loads; default 10 min (loading can compile or download). */
  loadTimeoutMs?: number;
  /** TLS (PEM contents, see `readTlsFiles`); without it the channel is plaintext. */
  tls?: TlsOptions;
}

export interface InferOptions {
  /** Output names to return; default: every output of the model. */
  outputs?: string[];
  /**
   * Request id; default: a fresh UUID. Streaming detokenize steps key their per-request decoder
   * on it (an ensemble passes it to every step), so it must be unique among requests in flight.
   */
  id?: string;
  version?: string;
  parameters?: Record<string, InferParameterValue>;
  /** Deadline for this request; default none. */
  timeoutMs?: number;
  /** Cancels the request. */
  signal?: AbortSignal;
}

/** Model-repository files to upload with a load, keyed by path inside the model folder (`1/libx.so`). */
export type ModelFiles = Record<string, Uint8Array>;

export interface LoadOptions {
  /** Model configuration as protobuf JSON (object or string); overrides the repository's config.pbtxt. */
  config?: string | object;
  /** Files of the model folder, e.g. `{ '1/libtriton_pre.so': bytes }`; needs `config`. */
  files?: ModelFiles;
}

type UnaryMethod = (
  request: object,
  metadata: Metadata,
  options: CallOptions,
  callback: (error: Error | null, response: unknown) => void,
) => void;

/**
 * A typed client of Triton's `inference.GRPCInferenceService` (KServe v2 + Triton extensions).
 * `url` is `host:port`, as tritonserver's `--grpc-port` serves it.
 */
export class TritonClient {
  readonly url: string;
  private readonly client: Client;
  private readonly headers: Metadata;
  private readonly timeoutMs: number;
  private readonly loadTimeoutMs: number;
  private readonly tls: TritonClientOptions['tls'];
  /** The stream pools' own HTTP/2 connection (see Http2Channel), opened on first use. */
  private http2: Http2Channel | undefined;
  /** How the channel is secured, so a failed handshake can be explained. */
  private readonly security: ChannelSecurity;

  constructor(url: string, options: TritonClientOptions = {}) {
    this.url = normalizeUrl(url);
    const Service = inferenceServiceClient();
    // Model uploads carry whole shared libraries: lift gRPC's 4 MiB receive default both ways.
    const tls = options.tls;
    this.tls = tls;
    const channelCredentials = tls
      ? credentials.createSsl(
          tls.rootCertificate ?? null,
          tls.clientKey ?? null,
          tls.clientCertificate ?? null,
        )
      : credentials.createInsecure();
    this.client = new Service(this.url, channelCredentials, {
      'grpc.max_receive_message_length': -1,
      'grpc.max_send_message_length': -1,
      // The certificate names a host other than the address dialled (an IP, a tunnel, a proxy).
      ...(tls?.serverName
        ? { 'grpc.ssl_target_name_override': tls.serverName, 'grpc.default_authority': tls.serverName }
        : {}),
    });
    this.security = { tls: tls !== undefined, clientCertificate: tls?.clientCertificate !== undefined };
    this.headers = headerMetadata(options.headers ?? {});
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.loadTimeoutMs = options.loadTimeoutMs ?? 600_000;
  }

  close(): void {
    this.client.close();
    this.http2?.close();
  }

  async serverLive(): Promise<boolean> {
    return (await this.unary<{ live: boolean }>('ServerLive', {})).live;
  }

  async serverReady(): Promise<boolean> {
    return (await this.unary<{ ready: boolean }>('ServerReady', {})).ready;
  }

  serverMetadata(): Promise<ServerMetadata> {
    return this.unary<ServerMetadata>('ServerMetadata', {});
  }

  async modelReady(name: string, version = ''): Promise<boolean> {
    return (await this.unary<{ ready: boolean }>('ModelReady', { name, version })).ready;
  }

  modelMetadata(name: string, version = ''): Promise<ModelMetadata> {
    return this.unary<ModelMetadata>('ModelMetadata', { name, version });
  }

  async modelConfig(name: string, version = ''): Promise<ModelConfig> {
    return (await this.unary<{ config: ModelConfig }>('ModelConfig', { name, version })).config;
  }

  /** Cumulative statistics of one model, or of every loaded model when `name` is empty. */
  async modelStatistics(name = '', version = ''): Promise<ModelStatistics[]> {
    return (await this.unary<{ model_stats: ModelStatistics[] }>('ModelStatistics', { name, version }))
      .model_stats;
  }

  async repositoryIndex(options: { readyOnly?: boolean } = {}): Promise<RepositoryModel[]> {
    const response = await this.unary<{ models: RepositoryModel[] }>('RepositoryIndex', {
      repository_name: '',
      ready: options.readyOnly ?? false,
    });
    return response.models;
  }

  /**
   * Loads (or reloads) a model. With `config` and `files` the model need not exist in the
   * server's repository: Triton writes the files to a temporary model folder.
   */
  async loadModel(name: string, options: LoadOptions = {}): Promise<void> {
    const parameters: Record<string, { string_param?: string; bytes_param?: Uint8Array }> = {};
    if (options.config !== undefined) {
      parameters.config = {
        string_param: typeof options.config === 'string' ? options.config : JSON.stringify(options.config),
      };
    }
    for (const [path, bytes] of Object.entries(options.files ?? {})) {
      if (options.config === undefined) {
        throw new TritonError(
          `loading '${name}' with files needs its config too (Triton requires both)`,
          undefined,
          'RepositoryModelLoad',
        );
      }
      parameters[`file:${path}`] = { bytes_param: bytes };
    }
    await this.unary(
      'RepositoryModelLoad',
      { repository_name: '', model_name: name, parameters },
      this.loadTimeoutMs,
    );
  }

  async unloadModel(name: string, options: { unloadDependents?: boolean } = {}): Promise<void> {
    const parameters = options.unloadDependents ? { unload_dependents: { bool_param: true } } : {};
    await this.unary('RepositoryModelUnload', { repository_name: '', model_name: name, parameters });
  }

  /** One request, one response (`ModelInfer`). Decoupled models need `streamInfer`. */
  async infer(model: string, inputs: InferInput[], options: InferOptions = {}): Promise<InferResult> {
    const request = buildRequest(model, inputs, options);
    const response = await this.unary<WireInferResponse>(
      'ModelInfer',
      request,
      options.timeoutMs,
      options.signal,
    );
    return toResult(response);
  }

  /**
   * One request over `ModelStreamInfer`, yielding every response until the final one. Works for
   * decoupled models (any number of responses) and ordinary ones (exactly one). Breaking out of
   * the loop cancels the request.
   */
  async *streamInfer(
    model: string,
    inputs: InferInput[],
    options: InferOptions = {},
  ): AsyncGenerator<InferResult> {
    const request = buildRequest(model, inputs, {
      ...options,
      // Ask Triton to mark the last response, so the end of a decoupled request is known.
      parameters: { ...options.parameters, triton_enable_empty_final_response: true },
    });
    const method = 'ModelStreamInfer';
    const call = (
      this.client as unknown as Record<
        string,
        (m: Metadata, o: CallOptions) => ClientDuplexStream<object, WireStreamResponse>
      >
    )[method]!.call(this.client, this.metadata(), this.callOptions(options.timeoutMs));

    const queue: (InferResult | Error | null)[] = [];
    let wake: (() => void) | undefined;
    const push = (item: InferResult | Error | null) => {
      queue.push(item);
      wake?.();
    };
    call.on('data', (message: WireStreamResponse) => {
      if (message.error_message) {
        push(
          new TritonError(
            `${method} failed: ${message.error_message}`,
            undefined,
            method,
            message.error_message,
          ),
        );
      } else if (message.infer_response) {
        push(toResult(message.infer_response));
      }
    });
    call.on('error', (error) =>
      push(toTritonError(error, this.url, method, options.timeoutMs, this.security)),
    );
    call.on('end', () => push(null));
    const onAbort = () => call.cancel();
    options.signal?.addEventListener('abort', onAbort, { once: true });

    let finished = false;
    try {
      call.write(request);
      for (;;) {
        while (queue.length === 0) await new Promise<void>((r) => (wake = r));
        const item = queue.shift()!;
        if (item === null) {
          finished = true;
          return;
        }
        if (item instanceof Error) {
          finished = true;
          if (options.signal?.aborted) throw new TritonError(`${method} was cancelled`, undefined, method);
          throw item;
        }
        // An empty final response only marks the end; don't hand it out as a result.
        if (!(item.final && item.outputs.size === 0)) yield item;
        if (item.final) {
          finished = true;
          return;
        }
      }
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      if (finished) call.end();
      else call.cancel();
    }
  }

  /**
   * How this client reaches Triton, for a load driver in another process (perf's native engine) to
   * reach the same server the same way.
   */
  channelSettings(): { url: string; headers: Record<string, string>; tls: boolean } {
    return {
      url: this.url,
      headers: this.headers.getMap() as Record<string, string>,
      tls: this.tls !== undefined,
    };
  }

  /**
   * Long-lived ModelStreamInfer calls that carry many requests (see InferStreamPool): what the
   * latency lab sends through, so the client's own cost per request stays small.
   */
  inferStreamPool(maxStreams?: number): InferStreamPool {
    const channel = this.http2Channel();
    const open = () => channel.open('/inference.GRPCInferenceService/ModelStreamInfer');
    return new InferStreamPool(open, this.url, maxStreams);
  }

  /**
   * One ModelInfer call of a request encoded once, over the stream pools' connection and timed
   * at the wire (see sendUnary): the latency lab's grpc-infer endpoint.
   */
  inferUnary(request: EncodedRequest, timeoutMs?: number): Promise<{ result: InferResult } & CallTimes> {
    const channel = this.http2Channel();
    return sendUnary(
      () => channel.open('/inference.GRPCInferenceService/ModelInfer'),
      request,
      this.url,
      timeoutMs,
    );
  }

  private http2Channel(): Http2Channel {
    this.http2 ??= new Http2Channel(this.url, this.headers.getMap() as Record<string, string>, this.tls);
    return this.http2;
  }

  private metadata(): Metadata {
    return this.headers.clone();
  }

  private callOptions(timeoutMs: number | undefined): CallOptions {
    return timeoutMs === undefined ? {} : { deadline: Date.now() + timeoutMs };
  }

  private unary<T>(
    method: string,
    request: object,
    timeoutMs = this.timeoutMs,
    signal?: AbortSignal,
  ): Promise<T> {
    const fn = (this.client as unknown as Record<string, UnaryMethod>)[method]!;
    return new Promise<T>((resolve, reject) => {
      const call = fn.call(
        this.client,
        request,
        this.metadata(),
        this.callOptions(timeoutMs),
        (error, response) => {
          signal?.removeEventListener('abort', onAbort);
          if (error) reject(toTritonError(error, this.url, method, timeoutMs, this.security));
          else resolve(response as T);
        },
      ) as unknown as { cancel(): void };
      const onAbort = () => call.cancel();
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/**
 * The headers as gRPC metadata, checked once. Values are often secrets (a restricted endpoint's
 * key), so a refused value is named by its key only; grpc-js's own error would quote it.
 */
function headerMetadata(headers: Record<string, string>): Metadata {
  const metadata = new Metadata();
  for (const [key, value] of Object.entries(headers)) {
    const name = key.trim().toLowerCase();
    if (!/^[0-9a-z_.-]+$/.test(name) || name.endsWith('-bin')) {
      throw new TritonError(
        `header name '${key}' is not a gRPC metadata key: use lower-case letters, digits, '-', '_' and '.'`,
        undefined,
        'connect',
      );
    }
    if (!/^[\x20-\x7e]*$/.test(value)) {
      throw new TritonError(
        `the value of header '${name}' has characters gRPC metadata cannot carry (printable ASCII only); the value is not shown`,
        undefined,
        'connect',
      );
    }
    metadata.set(name, value);
  }
  return metadata;
}

/** Accepts `host:port`, or a `grpc://` / `http://` prefixed form people paste. */
export function normalizeUrl(url: string): string {
  const bare = url
    .trim()
    .replace(/^(grpc|https?):\/\//, '')
    .replace(/\/+$/, '');
  if (!/^[^\s/:]+:\d+$/.test(bare) && !/^\[[0-9a-fA-F:]+\]:\d+$/.test(bare)) {
    throw new TritonError(
      `'${url}' is not a Triton gRPC address: use HOST:PORT, e.g. 127.0.0.1:8001`,
      undefined,
      'connect',
    );
  }
  return bare;
}

function buildRequest(model: string, inputs: InferInput[], options: InferOptions): object {
  for (const input of inputs) checkInput(model, input);
  return {
    model_name: model,
    model_version: options.version ?? '',
    id: options.id ?? randomUUID(),
    parameters: toWireParameters(options.parameters ?? {}),
    inputs: inputs.map((i) => ({ name: i.name, datatype: i.datatype, shape: i.shape, parameters: {} })),
    outputs: (options.outputs ?? []).map((name) => ({ name, parameters: {} })),
    raw_input_contents: inputs.map((i) => i.raw),
  };
}

function toWireParameters(
  parameters: Record<string, InferParameterValue>,
): Record<string, WireInferParameter> {
  const wire: Record<string, WireInferParameter> = {};
  for (const [key, value] of Object.entries(parameters)) {
    if (typeof value === 'boolean') wire[key] = { bool_param: value };
    else if (typeof value === 'string') wire[key] = { string_param: value };
    else if (Number.isInteger(value)) wire[key] = { int64_param: value };
    else wire[key] = { double_param: value };
  }
  return wire;
}

function fromWireParameters(wire: Record<string, WireInferParameter>): Record<string, InferParameterValue> {
  const plain: Record<string, InferParameterValue> = {};
  for (const [key, value] of Object.entries(wire)) {
    const choice = value.parameter_choice;
    if (choice && value[choice] !== undefined) plain[key] = value[choice] as InferParameterValue;
  }
  return plain;
}

function toResult(response: WireInferResponse): InferResult {
  const outputs = new Map<string, OutputTensor>();
  response.outputs.forEach((tensor, index) => {
    const datatype = tensor.datatype;
    if (!isTensorDataType(datatype)) {
      throw new TritonError(
        `output '${tensor.name}' has unknown data type '${datatype}'`,
        undefined,
        'ModelInfer',
      );
    }
    outputs.set(tensor.name, {
      name: tensor.name,
      datatype,
      shape: tensor.shape,
      raw: response.raw_output_contents[index] ?? Buffer.alloc(0),
    });
  });
  return new InferResult(
    response.model_name,
    response.model_version,
    response.id,
    fromWireParameters(response.parameters),
    outputs,
  );
}
