/**
 * What a request brings back, whichever path sent it: the decoded `InferResult` (grpc-js's
 * ModelInfer and ModelStreamInfer, the stream pool, the unary call) and when its bytes left and
 * arrived (`CallTimes`). Its own module so the client and the pooled paths share it without
 * importing each other.
 */
import { TritonError } from './errors.js';
import type { DecodedInferResponse } from './inferCodec.js';
import { decodeBytesTensor, decodeNumericTensor, isTensorDataType, type TensorDataType } from './tensors.js';
import type { InferParameterValue } from './types.js';

export interface OutputTensor {
  name: string;
  datatype: TensorDataType;
  shape: number[];
  raw: Buffer;
}

/** A response: outputs by name, decoded on demand. */
export class InferResult {
  constructor(
    readonly modelName: string,
    readonly modelVersion: string,
    readonly id: string,
    readonly parameters: Record<string, InferParameterValue>,
    readonly outputs: ReadonlyMap<string, OutputTensor>,
  ) {}

  /** True on the last response of a streamed request (Triton's `triton_final_response`). */
  get final(): boolean {
    return this.parameters.triton_final_response === true;
  }

  output(name: string): OutputTensor {
    const tensor = this.outputs.get(name);
    if (!tensor) {
      const have = [...this.outputs.keys()];
      throw new Error(
        `model '${this.modelName}' returned no output '${name}' (it returned: ${have.length ? have.join(', ') : 'none'})`,
      );
    }
    return tensor;
  }

  /** BYTES output as UTF-8 strings. */
  strings(name: string): string[] {
    return this.bytes(name).map((b) => b.toString('utf8'));
  }

  bytes(name: string): Buffer[] {
    const tensor = this.output(name);
    if (tensor.datatype !== 'BYTES') throw new Error(`output '${name}' is ${tensor.datatype}, not BYTES`);
    return decodeBytesTensor(tensor.raw);
  }

  numbers(name: string): number[] {
    const tensor = this.output(name);
    return decodeNumericTensor(tensor.datatype, tensor.raw);
  }
}

/**
 * When a request's bytes were handed to the connection and when its final response's bytes
 * arrived (performance.now() ms): timestamps taken at the wire, as perf_analyzer takes its own,
 * so the client's encoding, decoding and promise hops are not counted as server latency.
 */
export interface CallTimes {
  sentMs: number;
  endMs: number;
}

/** An InferResult from a response decoded by inferCodec (a stream's, or ModelInfer's). */
export function decodedResult(response: DecodedInferResponse, method = 'ModelStreamInfer'): InferResult {
  const outputs = new Map<string, OutputTensor>();
  response.outputs.forEach((tensor, index) => {
    if (!isTensorDataType(tensor.datatype)) {
      throw new TritonError(
        `output '${tensor.name}' has unknown data type '${tensor.datatype}'`,
        undefined,
        method,
      );
    }
    const raw = response.raw_output_contents[index];
    outputs.set(tensor.name, {
      name: tensor.name,
      datatype: tensor.datatype,
      shape: tensor.shape.map(toNumber),
      raw: raw ? Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength) : Buffer.alloc(0),
    });
  });
  const parameters: Record<string, InferParameterValue> = {};
  for (const [key, value] of Object.entries(response.parameters)) {
    const choice = value.parameter_choice as keyof typeof value | undefined;
    const v = choice ? value[choice] : undefined;
    if (v !== undefined)
      parameters[key] = (typeof v === 'object' && v !== null ? toNumber(v) : v) as InferParameterValue;
  }
  return new InferResult(response.model_name, response.model_version, response.id, parameters, outputs);
}

/** protobufjs decodes 64-bit integers as Long objects (the `long` package is installed). */
function toNumber(value: unknown): number {
  return typeof value === 'number' ? value : (value as { toNumber(): number }).toNumber();
}
