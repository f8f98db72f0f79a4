/** The data React Flow carries for each drawn node and wire. */
import type { Node } from '@xyflow/react';
import type { NodeView, ProblemView } from '../../host/graphModel.js';

export interface NodeData extends Record<string, unknown> {
  view: NodeView;
  /** Problems about the node itself. */
  problems: ProblemView[];
  /** Problems about a port, by handle id (`in:NAME` / `out:NAME`). */
  portProblems: Record<string, ProblemView[]>;
}

export type GraphNode = Node<NodeData>;

export interface WireData extends Record<string, unknown> {
  problems: ProblemView[];
  label: string;
}
