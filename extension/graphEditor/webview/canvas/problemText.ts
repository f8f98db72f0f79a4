/** How the validator's problems show on the canvas: the worst severity, and the hover text. */
import type { PortView, ProblemView } from '../../host/graphModel.js';
import { dimsText } from '../geometry.js';

export const severityOf = (ps: ProblemView[]): 'error' | 'warning' | undefined =>
  ps.some((p) => p.severity === 'error')
    ? 'error'
    : ps.some((p) => p.severity === 'warning')
      ? 'warning'
      : undefined;

export const hoverText = (ps: ProblemView[]): string => ps.map((p) => `${p.code}: ${p.message}`).join('\n');

export function portLabel(p: PortView): string {
  return `${p.name} ${p.dataType} ${dimsText(p.dims)}${p.optional ? ' (optional)' : ''}${p.fromModule ? ' (from the TypeScript module)' : ''}`;
}
