/**
 * Automatic layout for the nodes the file stores no position for. Two passes:
 * - `quickLayout`: an instant layered layout (columns by longest path, rows ordered by the
 *   neighbours' positions), so a 50-step graph is drawn and usable at once;
 * - `elkLayout`: ELK's layered algorithm, which places ports (inputs on a node's left in the
 *   order the node lists them, outputs on its right) and untangles wires better, but takes about
 *   a second on a 50-step graph, so it runs in a Web Worker (loaded on first use) and its result
 *   replaces the quick one when it arrives.
 */
import ELK from 'elkjs/lib/elk-api.js';
import type { GraphModel, NodeView } from '../host/graphModel.js';
import { handleId, nodeSize, portsOf } from './geometry.js';

export type Positions = Record<string, { x: number; y: number }>;

const LAYER_GAP = 80;
const NODE_GAP = 32;

/** Layout input that changes only when the drawing's structure does (not with positions). */
export function structureKey(model: GraphModel, options: { wires?: boolean } = {}): string {
  const nodes = model.nodes.map((n) => {
    const { inputs, outputs } = portsOf(n);
    return `${n.id}(${inputs.map((p) => p.name).join(',')}|${outputs.map((p) => p.name).join(',')})`;
  });
  const wires = model.wires.map((w) => `${w.source}.${w.sourcePort}>${w.target}.${w.targetPort}`);
  return options.wires === false ? nodes.join(';') : `${nodes.join(';')}#${wires.join(';')}`;
}

export function quickLayout(model: GraphModel): Positions {
  const ids = model.nodes.map((n) => n.id);
  const preds = new Map(ids.map((id) => [id, [] as string[]]));
  const succs = new Map(ids.map((id) => [id, [] as string[]]));
  for (const w of model.wires) {
    preds.get(w.target)?.push(w.source);
    succs.get(w.source)?.push(w.target);
  }
  // Longest-path layers in Kahn order; nodes on a cycle (an invalid pipeline) go last.
  const layer = new Map<string, number>();
  const indegree = new Map(ids.map((id) => [id, preds.get(id)!.length]));
  const ready = ids.filter((id) => indegree.get(id) === 0);
  while (ready.length) {
    const id = ready.shift()!;
    layer.set(id, Math.max(0, ...preds.get(id)!.map((p) => (layer.get(p) ?? -1) + 1)));
    for (const s of succs.get(id)!) {
      indegree.set(s, indegree.get(s)! - 1);
      if (indegree.get(s) === 0) ready.push(s);
    }
  }
  const deepest = Math.max(0, ...layer.values());
  for (const id of ids) if (!layer.has(id)) layer.set(id, deepest + 1);
  // Ensemble outputs in the last column, where a reader looks for them.
  const last = Math.max(0, ...layer.values());
  for (const n of model.nodes) if (n.kind === 'output') layer.set(n.id, last);

  const byId = new Map(model.nodes.map((n) => [n.id, n]));
  const columns: NodeView[][] = [];
  for (const n of model.nodes) (columns[layer.get(n.id)!] ??= []).push(n);
  const out: Positions = {};
  let x = 0;
  for (const column of columns) {
    if (!column) continue;
    // Order and place by where the producers are (their centres), keeping nodes apart.
    const wanted = (n: NodeView) => {
      const ys = preds.get(n.id)!.flatMap((p) => {
        const at = out[p];
        return at ? [at.y + nodeSize(byId.get(p)!).height / 2] : [];
      });
      return ys.length ? ys.reduce((a, b) => a + b, 0) / ys.length - nodeSize(n).height / 2 : undefined;
    };
    const placed = column.map((n, i) => ({ n, want: wanted(n), i }));
    placed.sort((a, b) => (a.want ?? a.i * 1e6) - (b.want ?? b.i * 1e6) || a.i - b.i);
    let bottom = -Infinity;
    let width = 0;
    for (const { n, want } of placed) {
      const size = nodeSize(n);
      const y = Math.max(want ?? bottom + NODE_GAP, bottom + NODE_GAP);
      out[n.id] = { x, y: Number.isFinite(y) ? y : 0 };
      bottom = out[n.id]!.y + size.height;
      width = Math.max(width, size.width);
    }
    x += width + LAYER_GAP;
  }
  return out;
}

export type Elk = InstanceType<typeof ELK>;

/**
 * ELK in a worker. The worker script ships beside the bundle (out/webview), on the webview's
 * resource origin, where a Worker cannot start from its URL: it is fetched and started from a Blob.
 */
export async function startElk(): Promise<Elk> {
  const url = document.getElementById('root')?.dataset.elkWorker;
  if (!url) throw new Error('no ELK worker URL');
  const source = await (await fetch(url)).blob();
  const blobUrl = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  return new ELK({ workerFactory: () => new Worker(blobUrl) });
}

export async function elkLayout(elk: Promise<Elk>, model: GraphModel): Promise<Positions> {
  const portId = (n: NodeView, side: 'in' | 'out', name: string) => `${n.id}|${handleId(side, name)}`;
  const graph = {
    id: 'root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
      'elk.layered.spacing.nodeNodeBetweenLayers': String(LAYER_GAP),
      'elk.spacing.nodeNode': String(NODE_GAP),
      // The webview draws its own curves: ELK's orthogonal routing would be wasted time.
      'elk.edgeRouting': 'POLYLINE',
      'elk.layered.thoroughness': '3',
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
  const laid = await (await elk).layout(graph);
  const out: Positions = {};
  for (const c of laid.children ?? []) out[c.id] = { x: c.x ?? 0, y: c.y ?? 0 };
  return out;
}
