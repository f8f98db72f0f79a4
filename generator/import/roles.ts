/**
 * Recognising the Python tokenizer steps of known templates (TensorRT-LLM inflight_batcher_llm,
 * FasterTransformer, BERT-style encoders) by their tensor names, so they can become native steps.
 */
import { roleByTensorName, type NativeStepKind, type PortRole } from '../model/portRoles.js';
import { hasDataTypeClass } from '../model/dataTypes.js';

/** Tensor name → role on each side of a step kind: the names the port-role table lists. */
export function roleTables(kind: NativeStepKind): {
  inputs: Map<string, PortRole>;
  outputs: Map<string, PortRole>;
} {
  return { inputs: roleByTensorName(kind, 'inputs'), outputs: roleByTensorName(kind, 'outputs') };
}

/** tokenize: text in, integer ids out; detokenize: integer ids in, text out. */
export function tokenizerStepKind(
  inputs: { dataType: string }[],
  outputs: { dataType: string }[],
): NativeStepKind | undefined {
  const isInt = (t: string) => hasDataTypeClass(t, 'integer');
  const textIn = inputs.some((p) => p.dataType === 'STRING');
  const idsOut = outputs.some((p) => isInt(p.dataType));
  const idsIn = inputs.some((p) => isInt(p.dataType));
  const textOut = outputs.some((p) => p.dataType === 'STRING');
  if (textIn && idsOut && !textOut) return 'tokenize';
  if (idsIn && textOut && !idsOut) return 'detokenize';
  return undefined;
}
