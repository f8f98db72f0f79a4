/**
 * A step: name, kind, preset or backend, badges, its typed ports, and the validator's problems as
 * red marks whose messages show on hover and to screen readers.
 */
import type { NodeProps } from '@xyflow/react';
import type { StepNodeView } from '../../host/graphModel.js';
import { handleId, nodeSize } from '../geometry.js';
import { badges } from './badges.js';
import { Port } from './Port.js';
import { hoverText, severityOf } from './problemText.js';
import type { GraphNode } from './types.js';

export function StepNode({ data, selected }: NodeProps<GraphNode>) {
  const s = data.view as StepNodeView;
  const { width, height, portY } = nodeSize(s);
  const sev = severityOf([...data.problems, ...Object.values(data.portProblems).flat()]);
  return (
    <div
      className={`node step kind-${s.stepKind}${selected ? ' selected' : ''}${sev ? ` ${sev}` : ''}`}
      style={{ width, height }}
      title={data.problems.length ? hoverText(data.problems) : s.description}
      data-node={s.id}
    >
      <div className="node-header">
        <span className="node-name">{s.name}</span>
        <span className={`kind-badge kind-${s.stepKind}`}>{s.stepKind}</span>
        {data.problems.length ? (
          <span className={`problem-mark ${severityOf(data.problems)}`} aria-label={hoverText(data.problems)}>
            {data.problems.length}
          </span>
        ) : null}
      </div>
      <div className="node-sub" title={s.preset ?? s.backend ?? s.platform}>
        {s.preset ?? s.backend ?? s.platform ?? ''}
      </div>
      <div className="badges">
        {badges(s).map((b) => (
          <span key={b.text} className={`badge ${b.className}`} title={b.title}>
            {b.text}
          </span>
        ))}
      </div>
      {s.inputs.map((p, i) => (
        <Port
          key={`in-${p.name}`}
          port={p}
          side="in"
          top={portY(i)}
          handleType="target"
          problems={data.portProblems[handleId('in', p.name)] ?? []}
        />
      ))}
      {s.outputs.map((p, i) => (
        <Port
          key={`out-${p.name}`}
          port={p}
          side="out"
          top={portY(i)}
          handleType="source"
          problems={data.portProblems[handleId('out', p.name)] ?? []}
        />
      ))}
    </div>
  );
}
