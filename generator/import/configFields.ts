/** Model config fields as pipeline fields: tensors as ports, and a step's scheduling. */
import type { ModelConfig, ModelTensor, PbMessage } from '../pbtxt/types.js';
import type { DynamicBatching, InstanceGroup, Port, Step, TritonDataType } from '../pipeline/types.js';

export function port(t: ModelTensor): Port {
  const p: Port = {
    name: t.name,
    dataType: t.data_type.replace(/^TYPE_/, '') as TritonDataType,
    dims: t.dims.map(Number),
  };
  if (t.optional) p.optional = true;
  if (t.allow_ragged_batch) p.raggedBatch = true;
  const reshape = t.reshape as { shape?: (number | bigint)[] } | undefined;
  if (reshape) p.reshape = (reshape.shape ?? []).map(Number);
  return p;
}

export function copyScheduling(cfg: ModelConfig, step: Step): void {
  const db = cfg.dynamic_batching as PbMessage | undefined;
  if (db) {
    const d: DynamicBatching = {};
    if (Array.isArray(db.preferred_batch_size)) d.preferredBatchSizes = db.preferred_batch_size.map(Number);
    if (db.max_queue_delay_microseconds !== undefined)
      d.maxQueueDelayMicroseconds = Number(db.max_queue_delay_microseconds);
    if (db.preserve_ordering !== undefined) d.preserveOrdering = Boolean(db.preserve_ordering);
    step.dynamicBatching = Object.keys(d).length ? d : true;
  }
  if (cfg.instance_group?.length) {
    step.instanceGroups = cfg.instance_group.map((g) => {
      const ig: InstanceGroup = {};
      if (g.count !== undefined) ig.count = Number(g.count);
      if (typeof g.kind === 'string') ig.kind = g.kind.replace(/^KIND_/, '') as InstanceGroup['kind'];
      if (Array.isArray(g.gpus) && g.gpus.length) ig.gpus = g.gpus.map(Number);
      return ig;
    });
  }
  if (cfg.model_transaction_policy?.decoupled) step.decoupled = true;
}
