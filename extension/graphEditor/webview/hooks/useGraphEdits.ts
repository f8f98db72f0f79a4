/**
 * Gestures on the canvas turned into edit requests to the provider (the text is the source of
 * truth: a removal or a move happens when the new text's graph arrives). The local changes
 * (drag, measure, select) are useSelectionChanges'.
 */
import { type Connection, type Edge, type ReactFlowInstance } from '@xyflow/react';
import { useCallback, type Dispatch, type SetStateAction } from 'react';
import type { GraphModel } from '../../host/graphModel.js';
import type { GraphEdit } from '../../host/textEdits.js';
import type { GraphNode } from '../canvas/types.js';
import { layoutKeyOf, refOf } from '../refs.js';
import type { Notice, Selection } from '../selection.js';
import { post } from '../vscodeApi.js';

export interface GraphEditsContext {
  model: GraphModel | undefined;
  invalid: unknown;
  flow: ReactFlowInstance<GraphNode, Edge>;
  setSelected: Dispatch<SetStateAction<Selection>>;
  setNotice: (n: Notice) => void;
}

export function useGraphEdits({ model, invalid, flow, setSelected, setNotice }: GraphEditsContext) {
  const edit = useCallback(
    (e: GraphEdit) => {
      if (invalid) {
        setNotice({
          kind: 'failed',
          text: 'The text is not a valid pipeline right now; fix it before editing the graph.',
        });
        return;
      }
      post({ type: 'edit', edit: e, sentAt: Date.now() });
      // The renamed node stays selected (its id is its name).
      if (e.op === 'renameStep') setSelected({ nodes: [`step:${e.to}`], wires: [] });
    },
    [invalid],
  );

  const onNodeDragStop = useCallback(
    (_: unknown, _node: GraphNode, dragged: GraphNode[]) => {
      if (!model) return;
      // The first move stores every position, so the rest of the layout stays as it was drawn.
      const positions: Record<string, { x: number; y: number }> = {};
      const movedIds = new Set(dragged.map((n) => n.id));
      const stored = Object.keys(model.layout).length > 0;
      for (const n of flow.getNodes()) {
        if (!stored || movedIds.has(n.id)) positions[layoutKeyOf(n.data.view)] = n.position;
      }
      edit({ op: 'moveNodes', positions });
    },
    [model, flow, edit],
  );

  const onConnect = useCallback((c: Connection) => {
    post({
      type: 'addWire',
      from: refOf(c.source, c.sourceHandle),
      to: refOf(c.target, c.targetHandle),
      sentAt: Date.now(),
    });
  }, []);

  const onBeforeDelete = useCallback(
    async ({ nodes: ns, edges: es }: { nodes: GraphNode[]; edges: Edge[] }) => {
      const steps = ns.filter((n) => n.id.startsWith('step:')).map((n) => n.id.slice(5));
      const ensemble = ns.filter((n) => !n.id.startsWith('step:'));
      if (ensemble.length)
        setNotice({
          kind: 'failed',
          text: 'Ensemble inputs and outputs are removed in the text (the "inputs" / "outputs" lists).',
        });
      if (steps.length) edit({ op: 'removeSteps', names: steps });
      else if (es.length) edit({ op: 'removeWires', indices: es.map((e) => Number(e.id.slice(5))) });
      return false;
    },
    [edit],
  );

  /** A palette item goes in the middle of the view (when the file stores positions at all). */
  const addFromPalette = (id: string) => {
    const el = document.querySelector('.react-flow');
    const r = el?.getBoundingClientRect();
    const position = r
      ? flow.screenToFlowPosition({ x: r.left + r.width / 2 - 150, y: r.top + r.height / 2 - 60 })
      : undefined;
    const stored = model && Object.keys(model.layout).length > 0;
    post({ type: 'addFromPalette', item: id, position: stored ? position : undefined, sentAt: Date.now() });
  };

  return { edit, onNodeDragStop, onConnect, onBeforeDelete, addFromPalette };
}
