/** The badges under a step's name: decoupled mode, batching, instance groups. */
import type { StepNodeView } from '../../host/graphModel.js';

export interface Badge {
  text: string;
  title: string;
  className: string;
}

export function badges(s: StepNodeView): Badge[] {
  const out: Badge[] = [];
  if (s.decoupled)
    out.push({
      text: '⇶ decoupled',
      title: 'Decoupled: streams any number of responses per request',
      className: 'decoupled',
    });
  if (s.maxBatchSize > 0) {
    const dyn = s.dynamicBatching;
    const preferred = dyn?.preferredBatchSizes?.length ? ` pref ${dyn.preferredBatchSizes.join('/')}` : '';
    out.push({
      text: dyn ? `batch ≤${s.maxBatchSize} · dynamic${preferred}` : `batch ≤${s.maxBatchSize}`,
      title: dyn
        ? `Dynamic batching, max batch ${s.maxBatchSize}${dyn.maxQueueDelayMicroseconds !== undefined ? `, max queue delay ${dyn.maxQueueDelayMicroseconds} µs` : ''}`
        : `Max batch size ${s.maxBatchSize}, no dynamic batching`,
      className: dyn ? 'batching dynamic' : 'batching',
    });
  } else out.push({ text: 'no batching', title: 'maxBatchSize 0', className: 'batching off' });
  for (const g of s.instances) {
    out.push({
      text: `${g.count}× ${g.kind}`,
      title: `Instance group: ${g.count} instance(s) of kind ${g.kind}`,
      className: 'instances',
    });
  }
  return out;
}
