/**
 * ModelConfig values as the pbtxt reader produces and the writer consumes them: one JS object
 * per message with proto (snake_case) field names — the same shape as protobuf JSON, so
 * `modelConfigToJson` is a checked copy. Repeated fields are arrays, maps are objects, enums are
 * their names, 64-bit integers are numbers (bigint beyond 2^53).
 */

export type PbScalar = string | number | bigint | boolean;
export type PbValue = PbScalar | PbMessage | PbValue[] | { [key: string]: PbValue };
export interface PbMessage {
  [field: string]: PbValue | undefined;
}

export interface ModelTensor extends PbMessage {
  name: string;
  data_type: string;
  dims: (number | bigint)[];
}

/** The fields the generator writes, typed; anything else in model_config.proto is allowed too. */
export interface ModelConfig extends PbMessage {
  name?: string;
  platform?: string;
  backend?: string;
  max_batch_size?: number;
  input?: ModelTensor[];
  output?: ModelTensor[];
  dynamic_batching?: PbMessage;
  instance_group?: PbMessage[];
  parameters?: { [key: string]: { string_value: string } };
  model_transaction_policy?: { decoupled?: boolean };
  ensemble_scheduling?: {
    step: {
      model_name: string;
      model_version: number;
      input_map: { [modelInput: string]: string };
      output_map: { [modelOutput: string]: string };
    }[];
    max_inflight_requests?: number;
  };
}
