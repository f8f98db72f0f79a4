/**
 * The node and edge components React Flow draws with. Memoized: xyflow re-renders a node's wrapper
 * when it measures it or moves another node; the drawing itself changes only with its own props.
 */
import { memo } from 'react';
import { EnsembleNode } from './EnsembleNode.js';
import { StepNode } from './StepNode.js';
import { WireEdge } from './WireEdge.js';

export const nodeTypes = { step: memo(StepNode), ensemble: memo(EnsembleNode) };
export const edgeTypes = { wire: memo(WireEdge) };
