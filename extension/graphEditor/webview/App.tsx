/**
 * The graph editor's webview app. It only draws what the provider sends (the text document is the
 * source of truth) and turns gestures into edit requests; the provider answers with the new text's
 * graph, or with the reason it refused. Keyboard: Tab moves between nodes, Enter/Space selects,
 * arrows move the selection, Delete removes steps and wires, A opens the palette.
 */
import { useReactFlow, type Edge } from '@xyflow/react';
import { useCallback, useRef, useState } from 'react';
import type { GraphNode } from './canvas/types.js';
import { GraphCanvas } from './GraphCanvas.js';
import { DragFeedback } from './DragFeedback.js';
import { useAutoLayout } from './hooks/useAutoLayout.js';
import { useDragFeedback } from './hooks/useDragFeedback.js';
import { useFlowElements } from './hooks/useFlowElements.js';
import { useGraphEdits } from './hooks/useGraphEdits.js';
import { useHostDocument } from './hooks/useHostDocument.js';
import { useLegibleFit } from './hooks/useLegibleFit.js';
import { useNotice } from './hooks/useNotice.js';
import { usePaletteKey } from './hooks/usePaletteKey.js';
import { useProblemPicker } from './hooks/useProblemPicker.js';
import { useRenderMarks } from './hooks/useRenderMarks.js';
import { useSelectionChanges } from './hooks/useSelectionChanges.js';
import { SCRIPT_START, type InitialPage } from './initialPage.js';
import { InvalidBanner } from './InvalidBanner.js';
import { NoticeBar } from './NoticeBar.js';
import { Palette } from './Palette.js';
import { ProblemList } from './ProblemList.js';
import { RenderMarks } from './renderMarks.js';
import type { Selection } from './selection.js';
import { SidePanel } from './SidePanel.js';
import { Toolbar } from './Toolbar.js';

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
  const one = (ids: string[]) => (ids.length === 1 ? ids[0] : undefined);
  const selectedStep = model?.nodes.find((n) => n.kind === 'step' && n.id === one(selected.nodes));
  const selectedWire = model?.wires.find((w) => w.id === one(selected.wires));
  const view = useLegibleFit(flow, canvas, selectedStep?.id);
  const layout = useAutoLayout(model, onScreen, () => view.fit(150));
  const { nodes, setNodes, edges, drawnFrom } = useFlowElements(model, layout.auto, selected);
  const drawn = { version, ready: invalid !== undefined || (!!model && drawnFrom(model)) };
  const counts = { nodes: nodes.length, edges: edges.length, banner: invalid !== undefined };
  useRenderMarks(marks, { ...drawn, ...counts }, () => setOnScreen(true), [
    nodes,
    edges,
    version,
    invalid,
    model,
  ]);
  const edits = useGraphEdits({ model, invalid, flow, setSelected, setNotice });
  const selection = useSelectionChanges(setNodes, setSelected);
  const drag = useDragFeedback(model);
  const pickProblem = useProblemPicker(flow, setSelected);
  usePaletteKey(useCallback(() => setPaletteOpen(true), []));

  return (
    <div className="app" data-layout={layout.state}>
      <Toolbar
        model={model}
        canAdd={!!init}
        paletteOpen={paletteOpen}
        problemsOpen={problemsOpen}
        onTogglePalette={() => setPaletteOpen((o) => !o)}
        onAutoLayout={() => edits.edit({ op: 'clearLayout' })}
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
                edits.addFromPalette(id);
              }}
              onClose={() => setPaletteOpen(false)}
            />
          ) : null}
          {problemsOpen && model ? <ProblemList problems={model.problems} onPick={pickProblem} /> : null}
          <GraphCanvas
            {...{ nodes, edges, edits, selection }}
            onConnectStart={drag.onConnectStart}
            onConnectEnd={drag.onConnectEnd}
            onInit={() => view.fit()}
          />
        </div>
        <SidePanel model={model} init={init} step={selectedStep} wire={selectedWire} onEdit={edits.edit} />
      </div>
    </div>
  );
}
