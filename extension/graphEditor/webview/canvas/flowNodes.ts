/**
 * React Flow nodes for the model. Sizes and handle places are known from the geometry, so nodes
 * and wires are drawn in the first frame, before xyflow has measured anything. A node a change
 * leaves as it was keeps its object (React Flow then skips it).
 */
import { Position } from '@xyflow/react';
import type { GraphModel, NodeView, ProblemView } from '../../host/graphModel.js';
import { HANDLE_SIZE, handleId, nodeSize, portsOf } from '../geometry.js';
import type { Positions } from '../layout.js';
import { layoutKeyOf } from '../refs.js';
import type { GraphNode } from './types.js';

/** The problems about one node: its own, and each port's by handle id. */
function problemsOf(model: GraphModel, view: NodeView) {
  const portProblems: Record<string, ProblemView[]> = {};
  const own: ProblemView[] = [];
  for (const p of model.problems) {
    if (p.node !== view.id) continue;
    if (p.port) (portProblems[handleId(p.port.side === 'input' ? 'in' : 'out', p.port.name)] ??= []).push(p);
    else if (p.wire === undefined) own.push(p);
  }
  return { own, portProblems };
}

export function nodesOf(
  model: GraphModel,
  auto: Positions | undefined,
  selected: { nodes: string[] },
  prev: GraphNode[],
): GraphNode[] {
  const before = new Map(prev.map((n) => [n.id, n]));
  return model.nodes.map((view): GraphNode => {
    const { own, portProblems } = problemsOf(model, view);
    const old = before.get(view.id);
    const position = model.layout[layoutKeyOf(view)] ?? auto?.[view.id] ?? old?.position ?? { x: 0, y: 0 };
    const isSelected = selected.nodes.includes(view.id);
    const data = { view, problems: own, portProblems };
    if (
      old &&
      old.selected === isSelected &&
      old.position.x === position.x &&
      old.position.y === position.y &&
      JSON.stringify(old.data) === JSON.stringify(data)
    )
      return old;
    const { width, height, portY } = nodeSize(view);
    const { inputs, outputs } = portsOf(view);
    const handle = (side: 'in' | 'out', name: string, row: number) => ({
      id: handleId(side, name),
      type: side === 'in' ? ('target' as const) : ('source' as const),
      position: side === 'in' ? Position.Left : Position.Right,
      x: (side === 'in' ? 0 : width) - HANDLE_SIZE / 2,
      y: portY(row) - HANDLE_SIZE / 2,
      width: HANDLE_SIZE,
      height: HANDLE_SIZE,
    });
    return {
      ...(old ?? {}),
      id: view.id,
      type: view.kind === 'step' ? 'step' : 'ensemble',
      position,
      width,
      height,
      handles: [
        ...inputs.map((p, i) => handle('in', p.name, i)),
        ...outputs.map((p, i) => handle('out', p.name, i)),
      ],
      data,
      selected: isSelected,
      ariaLabel:
        view.kind === 'step'
          ? `Step ${view.name}, ${view.stepKind}${view.preset ? `, preset ${view.preset}` : ''}, ${view.inputs.length} inputs, ${view.outputs.length} outputs${own.length ? `, ${own.length} problem(s)` : ''}`
          : `Ensemble ${view.kind} ${view.name}`,
    };
  });
}
