/**
 * The graph editor's webview app. It only draws what the provider sends (the text document is the
 * source of truth) and turns gestures into edit requests; the provider answers with the new text's
 * graph, or with the reason it refused. Keyboard: Tab moves between nodes, Enter/Space selects,
 * arrows move the selection, Delete removes steps and wires, A opens the palette.
 */
import { Background, Controls, MiniMap, ReactFlow, useReactFlow, type Edge } from '@xyflow/react';
import { useEffect, useRef, useState } from 'react';
import type { ProblemView } from '../host/graphModel.js';
import { edgeTypes, nodeTypes } from './canvas/flowTypes.js';
import type { GraphNode } from './canvas/types.js';
import { DragFeedback } from './DragFeedback.js';
import { useAutoLayout } from './hooks/useAutoLayout.js';
import { useDragFeedback } from './hooks/useDragFeedback.js';
import { useFlowElements } from './hooks/useFlowElements.js';
import { useGraphEdits } from './hooks/useGraphEdits.js';
import { useHostDocument } from './hooks/useHostDocument.js';
import { useLegibleFit } from './hooks/useLegibleFit.js';
import { useNotice } from './hooks/useNotice.js';
import { useRenderMarks } from './hooks/useRenderMarks.js';
import { SCRIPT_START, type InitialPage } from './initialPage.js';
import { InvalidBanner } from './InvalidBanner.js';
import { NoticeBar } from './NoticeBar.js';
import { Palette } from './Palette.js';
import { ProblemList } from './ProblemList.js';
import { RenderMarks } from './renderMarks.js';
import type { Selection } from './selection.js';
import { StepForm } from './stepForm/StepForm.js';
import { Toolbar } from './Toolbar.js';
import { post } from './vscodeApi.js';
import { WireInfo } from './WireInfo.js';

export function App({ initial }: { initial: InitialPage | null }) {
  const [marks] = useState(() => new RenderMarks(SCRIPT_START));
  const [selected, setSelected] = useState<Selection>({ nodes: [], wires: [] });
  const [notice, setNotice] = useNotice();
  const [paletteOpen, setPaletteOpen] = useState(false);
  const [problemsOpen, setProblemsOpen] = useState(false);
  const [onScreen, setOnScreen] = useState(false);
  const flow = useReactFlow<GraphNode, Edge>();
  const canvas = useRef<HTMLDivElement>(null);
  const init = initial?.init;

  const { model, version, invalid } = useHostDocument(initial, marks, setNotice, setSelected);
  const selectedStep = model?.nodes.find(
    (n) => n.kind === 'step' && selected.nodes.length === 1 && n.id === selected.nodes[0],
  );
  const view = useLegibleFit(flow, canvas, selectedStep?.id);
  const layout = useAutoLayout(model, onScreen, () => view.fit(150));
  const { nodes, setNodes, edges, drawnFrom } = useFlowElements(model, layout.auto, selected);
  useRenderMarks(
    marks,
    {
      version,
      ready: invalid !== undefined || (!!model && drawnFrom(model)),
      nodes: nodes.length,
      edges: edges.length,
      banner: invalid !== undefined,
    },
    () => setOnScreen(true),
    [nodes, edges, version, invalid, model],
  );
  const gestures = useGraphEdits({ model, invalid, flow, setNodes, setSelected, setNotice });
  const drag = useDragFeedback(model);

  // A opens the palette wherever the focus is in the page (the empty canvas included), except in a field.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const inField = (e.target as HTMLElement | null)?.closest?.('input, select, textarea');
      if (!inField && (e.key === 'a' || e.key === 'A') && !e.ctrlKey && !e.metaKey && !e.altKey) {
        e.preventDefault();
        setPaletteOpen(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const pickProblem = (p: ProblemView) => {
    if (p.wire !== undefined) setSelected({ nodes: [], wires: [`wire:${p.wire}`] });
    else if (p.node) {
      setSelected({ nodes: [p.node], wires: [] });
      const n = flow.getNode(p.node);
      if (n)
        void flow.setCenter(n.position.x + 150, n.position.y + 60, {
          zoom: Math.max(flow.getZoom(), 0.9),
          duration: 200,
        });
    }
    post({ type: 'reveal', range: p.range });
  };

  const selectedWire = model?.wires.find((w) => selected.wires.length === 1 && w.id === selected.wires[0]);

  return (
    <div className="app" data-layout={layout.state}>
      <Toolbar
        model={model}
        canAdd={!!init}
        paletteOpen={paletteOpen}
        problemsOpen={problemsOpen}
        onTogglePalette={() => setPaletteOpen((o) => !o)}
        onAutoLayout={() => gestures.edit({ op: 'clearLayout' })}
        onFit={() => view.fit(200)}
        onToggleProblems={() => setProblemsOpen((o) => !o)}
      />
      {invalid ? <InvalidBanner problems={invalid} /> : null}
      {notice ? <NoticeBar notice={notice} onDismiss={() => setNotice(undefined)} /> : null}
      <div className="main">
        <div className="canvas" ref={canvas}>
          {drag.dragging ? <DragFeedback dragging={drag.dragging} /> : null}
          {paletteOpen && init ? (
            <Palette
              items={init.palette}
              onAdd={(id) => {
                setPaletteOpen(false);
                gestures.addFromPalette(id);
              }}
              onClose={() => setPaletteOpen(false)}
            />
          ) : null}
          {problemsOpen && model ? <ProblemList problems={model.problems} onPick={pickProblem} /> : null}
          <ReactFlow<GraphNode, Edge>
            nodes={nodes}
            edges={edges}
            nodeTypes={nodeTypes}
            edgeTypes={edgeTypes}
            onNodesChange={gestures.onNodesChange}
            onNodeDragStop={gestures.onNodeDragStop}
            onConnect={gestures.onConnect}
            onConnectStart={drag.onConnectStart}
            onConnectEnd={drag.onConnectEnd}
            onEdgeClick={gestures.onEdgeClick}
            onPaneClick={() => setSelected({ nodes: [], wires: [] })}
            onBeforeDelete={gestures.onBeforeDelete}
            deleteKeyCode={['Delete', 'Backspace']}
            nodesFocusable
            edgesFocusable
            minZoom={0.1}
            onInit={() => view.fit()}
            proOptions={{ hideAttribution: true }}
          >
            <Background gap={24} />
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
        </div>
        {selectedStep?.kind === 'step' && init ? (
          <aside className="side">
            <StepForm
              step={selectedStep}
              schema={init.schema}
              onEdit={gestures.edit}
              onOpenModule={(ref) => post({ type: 'openModule', ref })}
            />
          </aside>
        ) : selectedWire && model ? (
          <aside className="side">
            <WireInfo wire={selectedWire} model={model} onEdit={gestures.edit} />
          </aside>
        ) : null}
      </div>
    </div>
  );
}
