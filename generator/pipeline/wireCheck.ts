/**
 * Whether a new wire may join a pipeline, by the validator's own rules: the graph editor refuses a
 * wire exactly when `validate` would report it (dtype, shape, a port already fed, direction, a
 * cycle, two decoupled origins…), so the two can never disagree.
 */
import type { Diagnostic } from '../model/diagnostics.js';
import type { Pipeline, Wire } from './types.js';
import { validatePipeline } from './validatePipeline.js';

/**
 * The errors that appending `wire` to `pipeline` would add (empty: the wire is fine). The wire is
 * appended last, so errors about pairs of wires ("already wired by wires[N]") land on it, and the
 * messages of errors that were already there do not change.
 */
export function newWireErrors(pipeline: Pipeline, wire: Wire, file: string): Diagnostic[] {
  // Wires are about the text alone: the pure checks (no tokenizer or file lookups) decide.
  const errorsOf = (p: Pipeline) =>
    validatePipeline(JSON.stringify(p, null, 1), file, { environment: false }).diagnostics.filter(
      (d) => d.severity === 'error',
    );
  const before = new Set(errorsOf(pipeline).map((d) => `${d.code} ${d.message}`));
  return errorsOf({ ...pipeline, wires: [...pipeline.wires, wire] }).filter(
    (d) => !before.has(`${d.code} ${d.message}`),
  );
}
