/** The shape of a preset: what it fills in for a step, and its port helper. */
import type { Port, Step, StepKind, TritonDataType } from '../pipeline/types.js';

/** What a preset fills in for a step; the step's own fields override it. */
export type StepTemplate = Omit<Step, 'name' | 'preset' | 'kind'>;

export interface Preset {
  /** `system/step`, e.g. `tensorrt-llm/preprocessing`. */
  id: string;
  kind: StepKind;
  /** One line for completion lists and docs. */
  title: string;
  template: StepTemplate;
}

/** A port literal: `port('QUERY', 'STRING', [1], { role: 'text' })`. */
export function port(
  name: string,
  dataType: TritonDataType,
  dims: number[],
  extra: Partial<Port> = {},
): Port {
  return { name, dataType, dims, ...extra };
}
