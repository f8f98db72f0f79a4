/**
 * ModelInfer/ModelStreamInfer messages encoded and decoded with protobufjs directly (the hot
 * path).
 */
import protobuf from 'protobufjs';
import { join } from 'node:path';
import { modelConfigProtoDirectory, protoDirectory } from './protocol.js';
import { checkInput, type InferInput } from './tensors.js';

/**
 * ModelStreamInfer's and ModelInfer's messages encoded and decoded with protobufjs's generated
 * coders directly, for the latency lab's hot path: proto-loader's default serializers convert
 * every message to and from plain objects (fromObject / toObject with defaults), which profiling
 * showed as a large share of the client's CPU per request. Same .proto files as the rest of the
 * client.
 */
interface Coders {
  request: protobuf.Type;
  streamResponse: protobuf.Type;
  response: protobuf.Type;
}

let coders: Coders | undefined;

function load(): Coders {
  if (coders) return coders;
  const root = new protobuf.Root();
  const dirs = [protoDirectory(), modelConfigProtoDirectory()];
  // grpc_service.proto imports model_config.proto, which lives beside the pbtxt reader.
  root.resolvePath = (_origin, target) =>
    target.startsWith('/') ? target : join(target === 'model_config.proto' ? dirs[1]! : dirs[0]!, target);
  root.loadSync('grpc_service.proto', { keepCase: true });
  root.resolveAll();
  coders = {
    request: root.lookupType('inference.ModelInferRequest'),
    streamResponse: root.lookupType('inference.ModelStreamInferResponse'),
    response: root.lookupType('inference.ModelInferResponse'),
  };
  return coders;
}

/** A ModelInferRequest as protobufjs encodes it (snake_case, bytes as Uint8Array). */
export interface WireRequestFields {
  model_name: string;
  model_version: string;
  parameters: Record<
    string,
    { bool_param?: boolean; int64_param?: number; string_param?: string; double_param?: number }
  >;
  inputs: { name: string; datatype: string; shape: number[] }[];
  outputs: { name: string }[];
  raw_input_contents: Uint8Array[];
}

/**
 * A request encoded once without its id. Protobuf merges repeated encodings of a message, so the
 * id field appended per send (`withId`) makes each request complete: the inputs are not encoded
 * again for every request of a latency test.
 */
export class EncodedRequest {
  private readonly body: Buffer;

  constructor(fields: WireRequestFields) {
    const { request } = load();
    this.body = Buffer.from(request.encode(fields as unknown as protobuf.Message).finish());
  }

  /** The request without an id (perf's native engine sets its own per send). */
  bytes(): Buffer {
    return this.body;
  }

  /** The whole request with `id` (field 3, a string) appended. */
  withId(id: string): Buffer {
    const idBytes = Buffer.byteLength(id);
    if (idBytes > 127) throw new Error(`request id longer than 127 bytes: '${id}'`);
    const out = Buffer.allocUnsafe(this.body.length + 2 + idBytes);
    this.body.copy(out, 0);
    out[this.body.length] = (3 << 3) | 2; // field 3, length-delimited
    out[this.body.length + 1] = idBytes;
    out.write(id, this.body.length + 2, 'utf8');
    return out;
  }
}

/** What the client reads of a decoded ModelStreamInferResponse. */
export interface DecodedStreamResponse {
  error_message: string;
  infer_response?: {
    model_name: string;
    model_version: string;
    id: string;
    parameters: Record<
      string,
      {
        bool_param?: boolean;
        int64_param?: unknown;
        string_param?: string;
        double_param?: number;
        parameter_choice?: string;
      }
    >;
    outputs: { name: string; datatype: string; shape: unknown[] }[];
    raw_output_contents: Uint8Array[];
  } | null;
}

export function decodeStreamResponse(buffer: Buffer): DecodedStreamResponse {
  return load().streamResponse.decode(buffer) as unknown as DecodedStreamResponse;
}

/** A decoded ModelInferResponse: ModelInfer's answer, and what a stream response wraps. */
export type DecodedInferResponse = NonNullable<DecodedStreamResponse['infer_response']>;

export function decodeInferResponse(buffer: Buffer): DecodedInferResponse {
  return load().response.decode(buffer) as unknown as DecodedInferResponse;
}

/**
 * A ModelStreamInfer request encoded once, to be sent many times through an InferStreamPool (each
 * send adds its own id). Asks Triton to mark the last response, as `streamInfer` does.
 */
export function encodeStreamRequest(
  model: string,
  inputs: InferInput[],
  options: {
    /** Output names to return; default: every output of the model. */
    outputs?: string[];
    version?: string;
    /** Ask for the empty final response that ends a streamed request (ModelStreamInfer only; default true). */
    emptyFinalResponse?: boolean;
  } = {},
): EncodedRequest {
  for (const input of inputs) checkInput(model, input);
  return new EncodedRequest({
    model_name: model,
    model_version: options.version ?? '',
    parameters:
      options.emptyFinalResponse === false
        ? {}
        : { triton_enable_empty_final_response: { bool_param: true } },
    inputs: inputs.map((i) => ({ name: i.name, datatype: i.datatype, shape: i.shape })),
    outputs: (options.outputs ?? []).map((name) => ({ name })),
    raw_input_contents: inputs.map((i) => i.raw),
  });
}
