/**
 * DistilBERT classifier postprocessing as a custom step: logits → softmax → the top label and
 * its score. Label names come from the step's `labels` parameter (comma-separated). The ports
 * are the fields of Row (inputs) and Label (outputs). Compiled to C++ (docs/HOOKS.md).
 */

/** One batch row of the inputs. */
export interface Row {
  /** @dims 2 */
  logits: Float32Array;
}

/** One batch row of the outputs. */
export interface Label {
  label: string;
  score: number;
}

/** Model config parameters the step reads. */
export interface Parameters {
  labels: string;
}

export function execute(rows: Row[], params: Parameters): Label[] {
  const names = params.labels.split(',');
  return rows.map((row) => top(row.logits, names));
}

function top(logits: Float32Array, names: string[]): Label {
  if (logits.length === 0) throw new Error('logits are empty');
  let max = -Infinity;
  for (const x of logits) max = Math.max(max, x);
  let sum = 0;
  let best = 0;
  let bestExp = 0;
  for (let i = 0; i < logits.length; i++) {
    const e = Math.exp(logits[i]! - max);
    sum += e;
    if (e > bestExp) {
      bestExp = e;
      best = i;
    }
  }
  const label = best < names.length ? names[best]!.trim() : `LABEL_${best}`;
  return { label, score: bestExp / sum };
}
