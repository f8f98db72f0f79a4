/**
 * TypeScript shapes of the protocol messages the client reads, as @grpc/proto-loader decodes them
 * (snake_case fields, enums as names, 64-bit integers as numbers). See client/proto/ and
 * generator/pbtxt/model_config.proto.
 */

export interface ServerMetadata {
  name: string;
  version: string;
  extensions: string[];
}

export interface TensorMetadata {
  name: string;
  datatype: string;
  shape: number[];
}

export interface ModelMetadata {
  name: string;
  versions: string[];
  platform: string;
  inputs: TensorMetadata[];
  outputs: TensorMetadata[];
}

export interface ModelTensorConfig {
  name: string;
  data_type: string;
  dims: number[];
}

export interface ModelInputConfig extends ModelTensorConfig {
  optional?: boolean;
}

export interface ModelEnsembleStep {
  model_name: string;
  model_version: number;
  input_map: Record<string, string>;
  output_map: Record<string, string>;
}

/**
 * The subset of Triton's ModelConfig the client reads, as proto-loader decodes it; every field is
 * checked against generator/pbtxt/model_config.proto by test/unit/model-config-proto.test.ts.
 */
export interface ModelConfig {
  name: string;
  platform: string;
  backend: string;
  /** The backend library file, when the config names one (deploy sets it to the versioned library). */
  runtime: string;
  max_batch_size: number;
  input: ModelInputConfig[];
  output: ModelTensorConfig[];
  instance_group: { name: string; kind: string; count: number }[];
  dynamic_batching: { preferred_batch_size: number[]; max_queue_delay_microseconds: number } | null;
  ensemble_scheduling: { step: ModelEnsembleStep[] } | null;
  parameters: Record<string, { string_value: string }>;
  model_transaction_policy: { decoupled: boolean } | null;
  scheduling_choice?: 'dynamic_batching' | 'ensemble_scheduling';
}

export interface StatisticDuration {
  count: number;
  ns: number;
}

export interface ModelStatistics {
  name: string;
  version: string;
  last_inference: number;
  inference_count: number;
  execution_count: number;
  inference_stats: {
    success: StatisticDuration;
    fail: StatisticDuration;
    queue: StatisticDuration;
    compute_input: StatisticDuration;
    compute_infer: StatisticDuration;
    compute_output: StatisticDuration;
    cache_hit: StatisticDuration;
    cache_miss: StatisticDuration;
  };
  batch_stats: {
    batch_size: number;
    compute_input: StatisticDuration;
    compute_infer: StatisticDuration;
    compute_output: StatisticDuration;
  }[];
  response_stats: Record<
    string,
    {
      compute_infer: StatisticDuration;
      compute_output: StatisticDuration;
      success: StatisticDuration;
      fail: StatisticDuration;
      empty_response: StatisticDuration;
    }
  >;
}

export interface RepositoryModel {
  name: string;
  version: string;
  /** e.g. READY, UNAVAILABLE, LOADING, UNLOADING; empty when never loaded */
  state: string;
  reason: string;
}

/** One protocol parameter value (request / response / tensor parameters). */
export type InferParameterValue = boolean | number | string;

export interface WireInferParameter {
  bool_param?: boolean;
  int64_param?: number;
  string_param?: string;
  double_param?: number;
  uint64_param?: number;
  parameter_choice?: 'bool_param' | 'int64_param' | 'string_param' | 'double_param' | 'uint64_param';
}

export interface WireOutputTensor {
  name: string;
  datatype: string;
  shape: number[];
  parameters: Record<string, WireInferParameter>;
}

export interface WireInferResponse {
  model_name: string;
  model_version: string;
  id: string;
  parameters: Record<string, WireInferParameter>;
  outputs: WireOutputTensor[];
  raw_output_contents: Buffer[];
}

export interface WireStreamResponse {
  error_message: string;
  infer_response: WireInferResponse | null;
}
