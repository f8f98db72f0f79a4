/**
 * What React Flow changes locally, at once: node drags, measurements and selection, wire clicks,
 * a click on the empty canvas. (Removal goes through the text: useGraphEdits' onBeforeDelete.)
 */
import { applyNodeChanges, type Edge, type NodeChange } from '@xyflow/react';
import { useCallback, type Dispatch, type SetStateAction } from 'react';
import type { GraphNode } from '../canvas/types.js';
import type { Selection } from '../selection.js';

export function useSelectionChanges(
  setNodes: Dispatch<SetStateAction<GraphNode[]>>,
  setSelected: Dispatch<SetStateAction<Selection>>,
) {
  const onNodesChange = useCallback((changes: NodeChange<GraphNode>[]) => {
    setNodes((ns) =>
      applyNodeChanges(
        changes.filter((c) => c.type !== 'remove'),
        ns,
      ),
    );
    const sel = changes.filter((c) => c.type === 'select');
    if (sel.length) {
      setSelected((s) => {
        const set = new Set(s.nodes);
        for (const c of sel) {
          if (c.type !== 'select') continue;
          if (c.selected) set.add(c.id);
          else set.delete(c.id);
        }
        return { nodes: [...set], wires: sel.some((c) => c.type === 'select' && c.selected) ? [] : s.wires };
      });
    }
  }, []);
  const onEdgeClick = useCallback((_: unknown, e: Edge) => setSelected({ nodes: [], wires: [e.id] }), []);
  const onPaneClick = useCallback(() => setSelected({ nodes: [], wires: [] }), []);
  return { onNodesChange, onEdgeClick, onPaneClick };
}
