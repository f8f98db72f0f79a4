/**
 * Node sizes and handle ids, shared by the layout and the node components so ELK places ports
 * where the drawn node has them.
 */
import type { NodeView, PortView } from '../host/graphModel.js';

export const STEP_WIDTH = 300;
export const ENSEMBLE_WIDTH = 200;
/** Header (name, kind, badges) above the first port row. */
export const HEADER_HEIGHT = 62;
export const ROW_HEIGHT = 22;
export const ENSEMBLE_HEIGHT = 54;
/** A port's handle (graph.css `.react-flow .handle`). */
export const HANDLE_SIZE = 10;

export const handleId = (side: 'in' | 'out', port: string) => `${side}:${port}`;
export const portOfHandle = (handle: string | null | undefined) => (handle ?? '').replace(/^(in|out):/, '');

/** Ports drawn on the node's left (inputs) and right (outputs); an ensemble input is a source. */
export function portsOf(n: NodeView): { inputs: PortView[]; outputs: PortView[] } {
  if (n.kind === 'step') return { inputs: n.inputs, outputs: n.outputs };
  return n.kind === 'input' ? { inputs: [], outputs: [n.port] } : { inputs: [n.port], outputs: [] };
}

export function nodeSize(n: NodeView): { width: number; height: number; portY: (row: number) => number } {
  if (n.kind !== 'step') {
    return { width: ENSEMBLE_WIDTH, height: ENSEMBLE_HEIGHT, portY: () => ENSEMBLE_HEIGHT / 2 };
  }
  // Inputs and outputs share rows: inputs on the left half, outputs on the right.
  const rows = Math.max(n.inputs.length, n.outputs.length, 1);
  return {
    width: STEP_WIDTH,
    height: HEADER_HEIGHT + rows * ROW_HEIGHT + 6,
    portY: (row) => HEADER_HEIGHT + row * ROW_HEIGHT + ROW_HEIGHT / 2,
  };
}

export function dimsText(dims: number[]): string {
  return `[${dims.map((d) => (d === -1 ? '-1' : String(d))).join(', ')}]`;
}
