/**
 * Automatic layout with ELK's layered algorithm, which places ports: inputs on a node's left in
 * the order the node lists them, outputs on its right, wires flowing left to right. Used for the
 * nodes the file stores no position for.
 */
import ELK from 'elkjs/lib/elk.bundled.js';
import type { GraphModel, NodeView } from '../../graphEditor/graphModel.js';
import { handleId, nodeSize, portsOf } from './geometry.js';

const elk = new ELK();

export type Positions = Record<string, { x: number; y: number }>;

/** Layout input that changes only when the drawing's structure does (not with positions). */
export function structureKey(model: GraphModel): string {
  const nodes = model.nodes.map((n) => {
    const { inputs, outputs } = portsOf(n);
    return `${n.id}(${inputs.map((p) => p.name).join(',')}|${outputs.map((p) => p.name).join(',')})`;
  });
  const wires = model.wires.map((w) => `${w.source}.${w.sourcePort}>${w.target}.${w.targetPort}`);
  return `${nodes.join(';')}#${wires.join(';')}`;
}

export async function autoLayout(model: GraphModel): Promise<Positions> {
  const portId = (n: NodeView, side: 'in' | 'out', name: string) => `${n.id}|${handleId(side, name)}`;
  const graph = {
    id: 'root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
      'elk.layered.spacing.nodeNodeBetweenLayers': '80',
      'elk.spacing.nodeNode': '32',
      'elk.layered.nodePlacement.strategy': 'BRANDES_KOEPF',
    },
    children: model.nodes.map((n) => {
      const { width, height, portY } = nodeSize(n);
      const { inputs, outputs } = portsOf(n);
      return {
        id: n.id,
        width,
        height,
        layoutOptions: { 'elk.portConstraints': 'FIXED_POS' },
        ports: [
          ...inputs.map((p, i) => ({ id: portId(n, 'in', p.name), x: 0, y: portY(i), width: 1, height: 1 })),
          ...outputs.map((p, i) => ({
            id: portId(n, 'out', p.name),
            x: width,
            y: portY(i),
            width: 1,
            height: 1,
          })),
        ],
      };
    }),
    edges: model.wires.map((w) => ({
      id: w.id,
      sources: [`${w.source}|${handleId('out', w.sourcePort)}`],
      targets: [`${w.target}|${handleId('in', w.targetPort)}`],
    })),
  };
  const laid = await elk.layout(graph);
  const out: Positions = {};
  for (const c of laid.children ?? []) out[c.id] = { x: c.x ?? 0, y: c.y ?? 0 };
  return out;
}
