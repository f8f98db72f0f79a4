/**
 * A description of Triton's `model_config.proto` (package `inference`, as Triton 2.51 reads it):
 * every message, field, number, type and enum. The text-format reader, writer and the JSON
 * conversion are driven by this table, so a field is added here once and works everywhere.
 * Field facts come from the proto's published descriptor.
 */

export type ScalarType = 'string' | 'bool' | 'int32' | 'uint32' | 'int64' | 'uint64' | 'float' | 'double';

export type FieldType = { scalar: ScalarType } | { enum: string } | { message: string };

export interface FieldDescriptor {
  name: string;
  number: number;
  type: FieldType;
  repeated?: boolean;
  /** map<key, value> fields: written as repeated `{ key: … value: … }` entries in text format. */
  map?: { key: ScalarType };
  oneof?: string;
}

export interface MessageDescriptor {
  name: string;
  fields: FieldDescriptor[];
  byName: Map<string, FieldDescriptor>;
}

const s = (scalar: ScalarType): FieldType => ({ scalar });
const e = (name: string): FieldType => ({ enum: name });
const m = (name: string): FieldType => ({ message: name });

type FieldSpec = [
  name: string,
  number: number,
  type: FieldType,
  flags?: 'repeated' | `map<${ScalarType}>` | `oneof:${string}`,
];

export const ENUMS: Record<string, readonly string[]> = {
  DataType: [
    'TYPE_INVALID',
    'TYPE_BOOL',
    'TYPE_UINT8',
    'TYPE_UINT16',
    'TYPE_UINT32',
    'TYPE_UINT64',
    'TYPE_INT8',
    'TYPE_INT16',
    'TYPE_INT32',
    'TYPE_INT64',
    'TYPE_FP16',
    'TYPE_FP32',
    'TYPE_FP64',
    'TYPE_STRING',
    'TYPE_BF16',
  ],
  'ModelInstanceGroup.Kind': ['KIND_AUTO', 'KIND_GPU', 'KIND_CPU', 'KIND_MODEL'],
  'ModelInstanceGroup.SecondaryDevice.SecondaryDeviceKind': ['KIND_NVDLA'],
  'ModelInput.Format': ['FORMAT_NONE', 'FORMAT_NHWC', 'FORMAT_NCHW'],
  'BatchInput.Kind': [
    'BATCH_ELEMENT_COUNT',
    'BATCH_ACCUMULATED_ELEMENT_COUNT',
    'BATCH_ACCUMULATED_ELEMENT_COUNT_WITH_ZERO',
    'BATCH_MAX_ELEMENT_COUNT_AS_SHAPE',
    'BATCH_ITEM_SHAPE',
    'BATCH_ITEM_SHAPE_FLATTEN',
  ],
  'BatchOutput.Kind': ['BATCH_SCATTER_WITH_INPUT_SHAPE'],
  'ModelOptimizationPolicy.ModelPriority': ['PRIORITY_DEFAULT', 'PRIORITY_MAX', 'PRIORITY_MIN'],
  'ModelQueuePolicy.TimeoutAction': ['REJECT', 'DELAY'],
  'ModelSequenceBatching.Control.Kind': [
    'CONTROL_SEQUENCE_START',
    'CONTROL_SEQUENCE_READY',
    'CONTROL_SEQUENCE_END',
    'CONTROL_SEQUENCE_CORRID',
  ],
};

const SPECS: Record<string, FieldSpec[]> = {
  ModelRateLimiter: [
    ['resources', 1, m('ModelRateLimiter.Resource'), 'repeated'],
    ['priority', 2, s('uint32')],
  ],
  'ModelRateLimiter.Resource': [
    ['name', 1, s('string')],
    ['global', 2, s('bool')],
    ['count', 3, s('uint32')],
  ],
  ModelInstanceGroup: [
    ['name', 1, s('string')],
    ['kind', 4, e('ModelInstanceGroup.Kind')],
    ['count', 2, s('int32')],
    ['rate_limiter', 6, m('ModelRateLimiter')],
    ['gpus', 3, s('int32'), 'repeated'],
    ['secondary_devices', 8, m('ModelInstanceGroup.SecondaryDevice'), 'repeated'],
    ['profile', 5, s('string'), 'repeated'],
    ['passive', 7, s('bool')],
    ['host_policy', 9, s('string')],
  ],
  'ModelInstanceGroup.SecondaryDevice': [
    ['kind', 1, e('ModelInstanceGroup.SecondaryDevice.SecondaryDeviceKind')],
    ['device_id', 2, s('int64')],
  ],
  ModelTensorReshape: [['shape', 1, s('int64'), 'repeated']],
  ModelInput: [
    ['name', 1, s('string')],
    ['data_type', 2, e('DataType')],
    ['format', 3, e('ModelInput.Format')],
    ['dims', 4, s('int64'), 'repeated'],
    ['reshape', 5, m('ModelTensorReshape')],
    ['is_shape_tensor', 6, s('bool')],
    ['allow_ragged_batch', 7, s('bool')],
    ['optional', 8, s('bool')],
    ['is_non_linear_format_io', 9, s('bool')],
  ],
  ModelOutput: [
    ['name', 1, s('string')],
    ['data_type', 2, e('DataType')],
    ['dims', 3, s('int64'), 'repeated'],
    ['reshape', 5, m('ModelTensorReshape')],
    ['label_filename', 4, s('string')],
    ['is_shape_tensor', 6, s('bool')],
    ['is_non_linear_format_io', 7, s('bool')],
  ],
  BatchInput: [
    ['kind', 1, e('BatchInput.Kind')],
    ['target_name', 2, s('string'), 'repeated'],
    ['data_type', 3, e('DataType')],
    ['source_input', 4, s('string'), 'repeated'],
  ],
  BatchOutput: [
    ['target_name', 1, s('string'), 'repeated'],
    ['kind', 2, e('BatchOutput.Kind')],
    ['source_input', 3, s('string'), 'repeated'],
  ],
  ModelVersionPolicy: [
    ['latest', 1, m('ModelVersionPolicy.Latest'), 'oneof:policy_choice'],
    ['all', 2, m('ModelVersionPolicy.All'), 'oneof:policy_choice'],
    ['specific', 3, m('ModelVersionPolicy.Specific'), 'oneof:policy_choice'],
  ],
  'ModelVersionPolicy.Latest': [['num_versions', 1, s('uint32')]],
  'ModelVersionPolicy.All': [],
  'ModelVersionPolicy.Specific': [['versions', 1, s('int64'), 'repeated']],
  ModelOptimizationPolicy: [
    ['graph', 1, m('ModelOptimizationPolicy.Graph')],
    ['priority', 2, e('ModelOptimizationPolicy.ModelPriority')],
    ['cuda', 3, m('ModelOptimizationPolicy.Cuda')],
    ['execution_accelerators', 4, m('ModelOptimizationPolicy.ExecutionAccelerators')],
    ['input_pinned_memory', 5, m('ModelOptimizationPolicy.PinnedMemoryBuffer')],
    ['output_pinned_memory', 6, m('ModelOptimizationPolicy.PinnedMemoryBuffer')],
    ['gather_kernel_buffer_threshold', 7, s('uint32')],
    ['eager_batching', 8, s('bool')],
  ],
  'ModelOptimizationPolicy.Graph': [['level', 1, s('int32')]],
  'ModelOptimizationPolicy.Cuda': [
    ['graphs', 1, s('bool')],
    ['busy_wait_events', 2, s('bool')],
    ['graph_spec', 3, m('ModelOptimizationPolicy.Cuda.GraphSpec'), 'repeated'],
    ['output_copy_stream', 4, s('bool')],
  ],
  'ModelOptimizationPolicy.Cuda.GraphSpec': [
    ['batch_size', 1, s('int32')],
    ['input', 2, m('ModelOptimizationPolicy.Cuda.GraphSpec.Shape'), 'map<string>'],
    ['graph_lower_bound', 3, m('ModelOptimizationPolicy.Cuda.GraphSpec.LowerBound')],
  ],
  'ModelOptimizationPolicy.Cuda.GraphSpec.Shape': [['dim', 1, s('int64'), 'repeated']],
  'ModelOptimizationPolicy.Cuda.GraphSpec.LowerBound': [
    ['batch_size', 1, s('int32')],
    ['input', 2, m('ModelOptimizationPolicy.Cuda.GraphSpec.Shape'), 'map<string>'],
  ],
  'ModelOptimizationPolicy.ExecutionAccelerators': [
    [
      'gpu_execution_accelerator',
      1,
      m('ModelOptimizationPolicy.ExecutionAccelerators.Accelerator'),
      'repeated',
    ],
    [
      'cpu_execution_accelerator',
      2,
      m('ModelOptimizationPolicy.ExecutionAccelerators.Accelerator'),
      'repeated',
    ],
  ],
  'ModelOptimizationPolicy.ExecutionAccelerators.Accelerator': [
    ['name', 1, s('string')],
    ['parameters', 2, s('string'), 'map<string>'],
  ],
  'ModelOptimizationPolicy.PinnedMemoryBuffer': [['enable', 1, s('bool')]],
  ModelQueuePolicy: [
    ['timeout_action', 1, e('ModelQueuePolicy.TimeoutAction')],
    ['default_timeout_microseconds', 2, s('uint64')],
    ['allow_timeout_override', 3, s('bool')],
    ['max_queue_size', 4, s('uint32')],
  ],
  ModelDynamicBatching: [
    ['preferred_batch_size', 1, s('int32'), 'repeated'],
    ['max_queue_delay_microseconds', 2, s('uint64')],
    ['preserve_ordering', 3, s('bool')],
    ['priority_levels', 4, s('uint64')],
    ['default_priority_level', 5, s('uint64')],
    ['default_queue_policy', 6, m('ModelQueuePolicy')],
    ['priority_queue_policy', 7, m('ModelQueuePolicy'), 'map<uint64>'],
  ],
  ModelSequenceBatching: [
    ['direct', 3, m('ModelSequenceBatching.StrategyDirect'), 'oneof:strategy_choice'],
    ['oldest', 4, m('ModelSequenceBatching.StrategyOldest'), 'oneof:strategy_choice'],
    ['max_sequence_idle_microseconds', 1, s('uint64')],
    ['control_input', 2, m('ModelSequenceBatching.ControlInput'), 'repeated'],
    ['state', 5, m('ModelSequenceBatching.State'), 'repeated'],
    ['iterative_sequence', 6, s('bool')],
  ],
  'ModelSequenceBatching.Control': [
    ['kind', 1, e('ModelSequenceBatching.Control.Kind')],
    ['int32_false_true', 2, s('int32'), 'repeated'],
    ['fp32_false_true', 3, s('float'), 'repeated'],
    ['bool_false_true', 5, s('bool'), 'repeated'],
    ['data_type', 4, e('DataType')],
  ],
  'ModelSequenceBatching.ControlInput': [
    ['name', 1, s('string')],
    ['control', 2, m('ModelSequenceBatching.Control'), 'repeated'],
  ],
  'ModelSequenceBatching.InitialState': [
    ['data_type', 1, e('DataType')],
    ['dims', 2, s('int64'), 'repeated'],
    ['zero_data', 3, s('bool'), 'oneof:state_data'],
    ['data_file', 4, s('string'), 'oneof:state_data'],
    ['name', 5, s('string')],
  ],
  'ModelSequenceBatching.State': [
    ['input_name', 1, s('string')],
    ['output_name', 2, s('string')],
    ['data_type', 3, e('DataType')],
    ['dims', 4, s('int64'), 'repeated'],
    ['initial_state', 5, m('ModelSequenceBatching.InitialState'), 'repeated'],
    ['use_same_buffer_for_input_output', 6, s('bool')],
    ['use_growable_memory', 7, s('bool')],
  ],
  'ModelSequenceBatching.StrategyDirect': [
    ['max_queue_delay_microseconds', 1, s('uint64')],
    ['minimum_slot_utilization', 2, s('float')],
  ],
  'ModelSequenceBatching.StrategyOldest': [
    ['max_candidate_sequences', 1, s('int32')],
    ['preferred_batch_size', 2, s('int32'), 'repeated'],
    ['max_queue_delay_microseconds', 3, s('uint64')],
    ['preserve_ordering', 4, s('bool')],
  ],
  ModelEnsembling: [
    ['step', 1, m('ModelEnsembling.Step'), 'repeated'],
    ['max_inflight_requests', 2, s('uint32')],
  ],
  'ModelEnsembling.Step': [
    ['model_name', 1, s('string')],
    ['model_version', 2, s('int64')],
    ['input_map', 3, s('string'), 'map<string>'],
    ['output_map', 4, s('string'), 'map<string>'],
    ['model_namespace', 5, s('string')],
  ],
  ModelParameter: [['string_value', 1, s('string')]],
  ModelWarmup: [
    ['name', 1, s('string')],
    ['batch_size', 2, s('uint32')],
    ['inputs', 3, m('ModelWarmup.Input'), 'map<string>'],
    ['count', 4, s('uint32')],
  ],
  'ModelWarmup.Input': [
    ['data_type', 1, e('DataType')],
    ['dims', 2, s('int64'), 'repeated'],
    ['zero_data', 3, s('bool'), 'oneof:input_data_type'],
    ['random_data', 4, s('bool'), 'oneof:input_data_type'],
    ['input_data_file', 5, s('string'), 'oneof:input_data_type'],
  ],
  ModelOperations: [['op_library_filename', 1, s('string'), 'repeated']],
  ModelTransactionPolicy: [['decoupled', 1, s('bool')]],
  ModelRepositoryAgents: [['agents', 1, m('ModelRepositoryAgents.Agent'), 'repeated']],
  'ModelRepositoryAgents.Agent': [
    ['name', 1, s('string')],
    ['parameters', 2, s('string'), 'map<string>'],
  ],
  ModelResponseCache: [['enable', 1, s('bool')]],
  ModelConfig: [
    ['name', 1, s('string')],
    ['platform', 2, s('string')],
    ['backend', 17, s('string')],
    ['runtime', 25, s('string')],
    ['version_policy', 3, m('ModelVersionPolicy')],
    ['max_batch_size', 4, s('int32')],
    ['input', 5, m('ModelInput'), 'repeated'],
    ['output', 6, m('ModelOutput'), 'repeated'],
    ['batch_input', 20, m('BatchInput'), 'repeated'],
    ['batch_output', 21, m('BatchOutput'), 'repeated'],
    ['optimization', 12, m('ModelOptimizationPolicy')],
    ['dynamic_batching', 11, m('ModelDynamicBatching'), 'oneof:scheduling_choice'],
    ['sequence_batching', 13, m('ModelSequenceBatching'), 'oneof:scheduling_choice'],
    ['ensemble_scheduling', 15, m('ModelEnsembling'), 'oneof:scheduling_choice'],
    ['instance_group', 7, m('ModelInstanceGroup'), 'repeated'],
    ['default_model_filename', 8, s('string')],
    ['cc_model_filenames', 9, s('string'), 'map<string>'],
    ['metric_tags', 10, s('string'), 'map<string>'],
    ['parameters', 14, m('ModelParameter'), 'map<string>'],
    ['model_warmup', 16, m('ModelWarmup'), 'repeated'],
    ['model_operations', 18, m('ModelOperations')],
    ['model_transaction_policy', 19, m('ModelTransactionPolicy')],
    ['model_repository_agents', 23, m('ModelRepositoryAgents')],
    ['response_cache', 24, m('ModelResponseCache')],
  ],
};

export const MESSAGES: Record<string, MessageDescriptor> = Object.fromEntries(
  Object.entries(SPECS).map(([name, specs]) => {
    const fields = specs.map(([fname, number, type, flags]): FieldDescriptor => {
      const f: FieldDescriptor = { name: fname, number, type };
      if (flags === 'repeated') f.repeated = true;
      else if (flags?.startsWith('map<')) f.map = { key: flags.slice(4, -1) as ScalarType };
      else if (flags?.startsWith('oneof:')) f.oneof = flags.slice(6);
      return f;
    });
    return [name, { name, fields, byName: new Map(fields.map((f) => [f.name, f])) }];
  }),
);

export function messageDescriptor(name: string): MessageDescriptor {
  const d = MESSAGES[name];
  if (!d) throw new Error(`model_config.proto description has no message ${name}`);
  return d;
}

/** lowerCamelCase JSON name of a proto field (`max_batch_size` → `maxBatchSize`). */
export function jsonName(protoName: string): string {
  return protoName.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}
