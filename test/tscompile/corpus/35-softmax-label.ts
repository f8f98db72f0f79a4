// Classifier postprocessing: softmax over logits, top label and score.
export interface Label {
  label: string;
  score: number;
}
export function run(logits: Float32Array, names: string): Label {
  const labels = names.split(',');
  let max = -Infinity;
  for (const x of logits) max = Math.max(max, x);
  const exps: number[] = [];
  let sum = 0;
  for (const x of logits) {
    const e = Math.exp(x - max);
    exps.push(e);
    sum += e;
  }
  let best = 0;
  for (let i = 1; i < exps.length; i++) if (exps[i] > exps[best]) best = i;
  const label = best < labels.length ? labels[best] : `LABEL_${best}`;
  return { label, score: exps.length > 0 ? exps[best] / sum : 0 };
}
