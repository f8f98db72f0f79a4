/** A wire: a curve, red when the validator has a problem with it (the message on hover). */
import { BaseEdge, getBezierPath, type EdgeProps } from '@xyflow/react';
import { hoverText, severityOf } from './problemText.js';
import type { WireData } from './types.js';

export function WireEdge(props: EdgeProps & { data?: WireData }) {
  const [path] = getBezierPath(props);
  const problems = props.data?.problems ?? [];
  const sev = severityOf(problems);
  return (
    <g className={`wire${sev ? ` ${sev}` : ''}${props.selected ? ' selected' : ''}`} data-wire={props.id}>
      <title>{problems.length ? hoverText(problems) : props.data?.label}</title>
      <BaseEdge id={props.id} path={path} markerEnd={props.markerEnd} interactionWidth={16} />
    </g>
  );
}
