/** The canvas itself: React Flow with the pipeline's nodes and wires, the controls and the overview. */
import {
  Background,
  Controls,
  MiniMap,
  ReactFlow,
  type Edge,
  type OnConnectEnd,
  type OnConnectStart,
} from '@xyflow/react';
import { edgeTypes, nodeTypes } from './canvas/flowTypes.js';
import type { GraphNode } from './canvas/types.js';
import type { useGraphEdits } from './hooks/useGraphEdits.js';
import type { useSelectionChanges } from './hooks/useSelectionChanges.js';
import { OffscreenHints } from './OffscreenHints.js';

export function GraphCanvas({
  nodes,
  edges,
  edits,
  selection,
  onConnectStart,
  onConnectEnd,
  onInit,
}: {
  nodes: GraphNode[];
  edges: Edge[];
  edits: ReturnType<typeof useGraphEdits>;
  selection: ReturnType<typeof useSelectionChanges>;
  onConnectStart: OnConnectStart;
  onConnectEnd: OnConnectEnd;
  onInit: () => void;
}) {
  return (
    <ReactFlow<GraphNode, Edge>
      nodes={nodes}
      edges={edges}
      nodeTypes={nodeTypes}
      edgeTypes={edgeTypes}
      onNodesChange={selection.onNodesChange}
      onNodeDragStop={edits.onNodeDragStop}
      onConnect={edits.onConnect}
      onConnectStart={onConnectStart}
      onConnectEnd={onConnectEnd}
      onEdgeClick={selection.onEdgeClick}
      onPaneClick={selection.onPaneClick}
      onBeforeDelete={edits.onBeforeDelete}
      deleteKeyCode={['Delete', 'Backspace']}
      nodesFocusable
      edgesFocusable
      minZoom={0.1}
      onInit={onInit}
      proOptions={{ hideAttribution: true }}
    >
      <Background gap={24} />
      <OffscreenHints />
      <Controls showInteractive={false} />
      {/* Small and see-through, in the corner: an overview that does not hide the graph. */}
      <MiniMap
        pannable
        zoomable
        className="minimap"
        style={{ width: 140, height: 90 }}
        ariaLabel="Overview of the pipeline graph"
      />
    </ReactFlow>
  );
}
