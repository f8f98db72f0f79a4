/**
 * React Flow's nodes and edges for the model. Nodes follow the model, keeping xyflow's
 * measurements (nothing flickers); local changes (drag, measure, select) apply to them directly.
 */
import type { Edge } from '@xyflow/react';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { GraphModel } from '../../host/graphModel.js';
import { edgesOf } from '../canvas/flowEdges.js';
import { nodesOf } from '../canvas/flowNodes.js';
import type { GraphNode } from '../canvas/types.js';
import type { Positions } from '../layout.js';
import type { Selection } from '../selection.js';

export function useFlowElements(
  model: GraphModel | undefined,
  auto: Positions | undefined,
  selected: Selection,
) {
  const [nodes, setNodes] = useState<GraphNode[]>(() => (model ? nodesOf(model, auto, selected, []) : []));
  const nodesFrom = useRef({ model, auto, selected });
  useEffect(() => {
    const from = nodesFrom.current;
    if (!model || (from.model === model && from.auto === auto && from.selected === selected)) return;
    nodesFrom.current = { model, auto, selected };
    setNodes((prev) => nodesOf(model, auto, selected, prev));
  }, [model, auto, selected]);

  const edgeCache = useRef(new Map<string, Edge>());
  const edges = useMemo<Edge[]>(() => {
    if (!model) return [];
    const out = edgesOf(model, selected.wires, edgeCache.current);
    edgeCache.current = new Map(out.map((e) => [e.id, e]));
    return out;
  }, [model, selected]);

  /** Whether the nodes were made from this model (they follow it one effect later). */
  const drawnFrom = (m: GraphModel | undefined) => nodesFrom.current.model === m;
  return { nodes, setNodes, edges, drawnFrom };
}
