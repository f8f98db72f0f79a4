/** An ensemble input (a wire source) or output (a wire target): its tensor's name, dtype and dims. */
import { Handle, Position, type NodeProps } from '@xyflow/react';
import type { EnsembleNodeView } from '../../host/graphModel.js';
import { dimsText, handleId, nodeSize } from '../geometry.js';
import { hoverText, portLabel, severityOf } from './problemText.js';
import type { GraphNode } from './types.js';

export function EnsembleNode({ data, selected }: NodeProps<GraphNode>) {
  const n = data.view as EnsembleNodeView;
  const { width, height } = nodeSize(n);
  const isInput = n.kind === 'input';
  const sev = severityOf(data.problems);
  return (
    <div
      className={`node ensemble ensemble-${n.kind}${selected ? ' selected' : ''}${sev ? ` ${sev}` : ''}`}
      style={{ width, height }}
      title={data.problems.length ? hoverText(data.problems) : `Ensemble ${n.kind} ${portLabel(n.port)}`}
      data-node={n.id}
    >
      <div className="ensemble-label">{isInput ? 'ensemble input' : 'ensemble output'}</div>
      <div className="node-name">{n.name}</div>
      <div className={`port-type dtype-${n.port.dataType}`}>
        {n.port.dataType} {dimsText(n.port.dims)}
      </div>
      <Handle
        type={isInput ? 'source' : 'target'}
        position={isInput ? Position.Right : Position.Left}
        id={handleId(isInput ? 'out' : 'in', n.port.name)}
        className={`handle dtype-${n.port.dataType}${sev ? ` ${sev}` : ''}`}
        aria-label={`${isInput ? 'ensemble input' : 'ensemble output'} ${portLabel(n.port)}`}
      />
    </div>
  );
}
