/**
 * Batching and transaction rules Triton enforces at load time: a step batches at least as much as
 * the ensemble, dynamic batching and ragged inputs need a batch dimension, preferred sizes fit
 * maxBatchSize, and native steps answer each request once (not decoupled).
 */
import { generatedKind, isGenerated, type CheckContext } from './context.js';

export function checkBatching(ctx: CheckContext): void {
  const { report, ensembleBatch } = ctx;
  for (const step of ctx.steps) {
    const stepPath = step.path;
    if (ensembleBatch > 0 && step.maxBatchSize < ensembleBatch) {
      report(
        [...stepPath, step.maxBatchSize !== undefined ? 'maxBatchSize' : 'name'],
        'TS-E030',
        `Step "${step.name}" allows batches of ${step.maxBatchSize} but the ensemble allows ${ensembleBatch}; ` +
          `raise the step's maxBatchSize to at least ${ensembleBatch} or lower the pipeline's.`,
      );
    }
    if (step.dynamicBatching && step.maxBatchSize === 0) {
      report(
        [...stepPath, 'dynamicBatching'],
        'TS-E031',
        `Step "${step.name}" has dynamic batching but maxBatchSize 0; set maxBatchSize > 0 or turn dynamicBatching off.`,
      );
    }
    for (const size of step.dynamicBatching?.preferredBatchSizes ?? []) {
      if (step.maxBatchSize > 0 && size > step.maxBatchSize) {
        report(
          [...stepPath, 'dynamicBatching'],
          'TS-E031',
          `Preferred batch size ${size} of step "${step.name}" exceeds its maxBatchSize ${step.maxBatchSize}; lower it.`,
        );
      }
    }
    for (const p of step.inputs) {
      if (p.raggedBatch && step.maxBatchSize === 0) {
        report(
          p.path,
          'TS-E031',
          `Port "${p.name}" allows ragged batches but step "${step.name}" does not batch (maxBatchSize 0).`,
        );
      }
    }
    if (step.decoupled && isGenerated(step)) {
      const kind = generatedKind(step);
      report(
        [...stepPath, 'decoupled'],
        'TS-E032',
        `${kind[0]!.toUpperCase()}${kind.slice(1)} answer each request once; remove "decoupled" from step "${step.name}".`,
      );
    }
  }
}
