/** How the webview names what the text names: layout keys and wire ends. */
import type { NodeView } from '../host/graphModel.js';
import { portOfHandle } from './geometry.js';

/** The key of a node's position in the file's "layout": a step's name, an ensemble node's id. */
export const layoutKeyOf = (n: NodeView): string => (n.kind === 'step' ? n.name : n.id);

/** `step.PORT` or an ensemble tensor's name, as wires spell their ends. */
export function refOf(nodeId: string, handle: string | null | undefined): string {
  return nodeId.startsWith('step:')
    ? `${nodeId.slice(5)}.${portOfHandle(handle)}`
    : nodeId.slice(nodeId.indexOf(':') + 1);
}
