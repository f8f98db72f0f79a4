/** Picking a problem in the list: its wire or node is selected (the node centred) and its range shown in the text. */
import type { Edge, ReactFlowInstance } from '@xyflow/react';
import type { Dispatch, SetStateAction } from 'react';
import type { ProblemView } from '../../host/graphModel.js';
import type { GraphNode } from '../canvas/types.js';
import type { Selection } from '../selection.js';
import { post } from '../vscodeApi.js';

export function useProblemPicker(
  flow: ReactFlowInstance<GraphNode, Edge>,
  setSelected: Dispatch<SetStateAction<Selection>>,
) {
  return (p: ProblemView) => {
    if (p.wire !== undefined) setSelected({ nodes: [], wires: [`wire:${p.wire}`] });
    else if (p.node) {
      setSelected({ nodes: [p.node], wires: [] });
      const n = flow.getNode(p.node);
      if (n)
        void flow.setCenter(n.position.x + 150, n.position.y + 60, {
          zoom: Math.max(flow.getZoom(), 0.9),
          duration: 200,
        });
    }
    post({ type: 'reveal', range: p.range });
  };
}
