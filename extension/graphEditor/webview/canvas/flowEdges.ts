/** React Flow edges for the model's wires; an edge a change leaves as it was keeps its object. */
import type { Edge } from '@xyflow/react';
import type { GraphModel } from '../../host/graphModel.js';
import { handleId } from '../geometry.js';
import type { WireData } from './types.js';

export function edgesOf(model: GraphModel, selectedWires: string[], previous: Map<string, Edge>): Edge[] {
  return model.wires.map((w) => {
    const edge: Edge = {
      id: w.id,
      type: 'wire',
      source: w.source,
      sourceHandle: handleId('out', w.sourcePort),
      target: w.target,
      targetHandle: handleId('in', w.targetPort),
      selected: selectedWires.includes(w.id),
      ariaLabel: `Wire from ${w.from} to ${w.to}`,
      data: {
        problems: model.problems.filter((p) => p.wire === w.index),
        label: `${w.from} → ${w.to}${w.tensor ? ` (tensor ${w.tensor})` : ''}`,
      } satisfies WireData,
    };
    const old = previous.get(w.id);
    return old && JSON.stringify(old) === JSON.stringify(edge) ? old : edge;
  });
}
