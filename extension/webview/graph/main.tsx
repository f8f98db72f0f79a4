/**
 * The graph editor's webview app. It only draws what the provider sends (the text document is the
 * source of truth) and turns gestures into edit requests; the provider answers with the new text's
 * graph, or with the reason it refused. Keyboard: Tab moves between nodes, Enter/Space selects,
 * arrows move the selection, Delete removes steps and wires, A opens the palette.
 */
import {
  Background,
  Controls,
  MiniMap,
  Position,
  ReactFlow,
  ReactFlowProvider,
  applyNodeChanges,
  useReactFlow,
  type Connection,
  type Edge,
  type NodeChange,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';
import type { GraphModel, NodeView, ProblemView } from '../../graphEditor/graphModel.js';
import type { FormSchema, HostMessage, PaletteItem, WebviewMessage } from '../../graphEditor/messages.js';
import type { GraphEdit } from '../../graphEditor/textEdits.js';
import './graph.css';
import { HANDLE_SIZE, handleId, nodeSize, portOfHandle, portsOf } from './geometry.js';
import { elkLayout, quickLayout, structureKey, type Positions } from './layout.js';
import { edgeTypes, nodeTypes, type GraphNode, type WireData } from './nodes.js';
import { Palette, ProblemList, StepForm, WireInfo } from './panels.js';

declare function acquireVsCodeApi(): { postMessage(m: WebviewMessage): void };
const vscode = acquireVsCodeApi();
/** Date.now() at the stages of the version being drawn (reported with 'rendered'). */
let marks: Record<string, number> = {
  navigationStart: Math.round(performance.timeOrigin),
  scriptStart: Date.now(),
};
const post = (m: WebviewMessage) => vscode.postMessage(m);

const layoutKeyOf = (n: NodeView) => (n.kind === 'step' ? n.name : n.id);
/** `step.PORT` or an ensemble tensor's name, as wires spell their ends. */
function refOf(nodeId: string, handle: string | null | undefined): string {
  return nodeId.startsWith('step:')
    ? `${nodeId.slice(5)}.${portOfHandle(handle)}`
    : nodeId.slice(nodeId.indexOf(':') + 1);
}

/** What the provider put into the page (the first version's graph, the palette), so nothing waits for a round trip. */
interface Initial {
  init: { palette: PaletteItem[]; schema: FormSchema };
  document: Extract<HostMessage, { type: 'document' }>;
}
const initial = JSON.parse(document.getElementById('initial')?.textContent ?? 'null') as Initial | null;

interface Notice {
  kind: 'refused' | 'failed';
  text: string;
}

/** The problems about one node: its own, and each port's by handle id. */
function problemsOf(model: GraphModel, view: NodeView) {
  const portProblems: Record<string, ProblemView[]> = {};
  const own: ProblemView[] = [];
  for (const p of model.problems) {
    if (p.node !== view.id) continue;
    if (p.port) (portProblems[handleId(p.port.side === 'input' ? 'in' : 'out', p.port.name)] ??= []).push(p);
    else if (p.wire === undefined) own.push(p);
  }
  return { own, portProblems };
}

/**
 * React Flow nodes for the model. Sizes and handle places are known from the geometry, so nodes
 * and wires are drawn in the first frame, before xyflow has measured anything.
 */
function nodesOf(
  model: GraphModel,
  auto: Positions | undefined,
  selected: { nodes: string[] },
  prev: GraphNode[],
): GraphNode[] {
  const before = new Map(prev.map((n) => [n.id, n]));
  return model.nodes.map((view): GraphNode => {
    const { own, portProblems } = problemsOf(model, view);
    const old = before.get(view.id);
    const position = model.layout[layoutKeyOf(view)] ?? auto?.[view.id] ?? old?.position ?? { x: 0, y: 0 };
    const isSelected = selected.nodes.includes(view.id);
    const data = { view, problems: own, portProblems };
    if (
      old &&
      old.selected === isSelected &&
      old.position.x === position.x &&
      old.position.y === position.y &&
      JSON.stringify(old.data) === JSON.stringify(data)
    )
      return old;
    const { width, height, portY } = nodeSize(view);
    const { inputs, outputs } = portsOf(view);
    const handle = (side: 'in' | 'out', name: string, row: number) => ({
      id: handleId(side, name),
      type: side === 'in' ? ('target' as const) : ('source' as const),
      position: side === 'in' ? Position.Left : Position.Right,
      x: (side === 'in' ? 0 : width) - HANDLE_SIZE / 2,
      y: portY(row) - HANDLE_SIZE / 2,
      width: HANDLE_SIZE,
      height: HANDLE_SIZE,
    });
    return {
      ...(old ?? {}),
      id: view.id,
      type: view.kind === 'step' ? 'step' : 'ensemble',
      position,
      width,
      height,
      handles: [
        ...inputs.map((p, i) => handle('in', p.name, i)),
        ...outputs.map((p, i) => handle('out', p.name, i)),
      ],
      data,
      selected: isSelected,
      ariaLabel:
        view.kind === 'step'
          ? `Step ${view.name}, ${view.stepKind}${view.preset ? `, preset ${view.preset}` : ''}, ${view.inputs.length} inputs, ${view.outputs.length} outputs${own.length ? `, ${own.length} problem(s)` : ''}`
          : `Ensemble ${view.kind} ${view.name}`,
    };
  });
}

function App() {
  const [model, setModel] = useState<GraphModel | undefined>(initial?.document.model);
  const [version, setVersion] = useState(initial?.document.version ?? -1);
  const [invalid, setInvalid] = useState<ProblemView[] | undefined>(initial?.document.invalid);
  const init = initial?.init;
  const [selected, setSelected] = useState<{ nodes: string[]; wires: string[] }>({ nodes: [], wires: [] });
  const [notice, setNotice] = useState<Notice>();
  const [paletteOpen, setPaletteOpen] = useState(false);
  const [problemsOpen, setProblemsOpen] = useState(false);
  const flow = useReactFlow<GraphNode, Edge>();
  const elkFitted = useRef(false);

  useEffect(() => {
    const onMessage = (e: MessageEvent<HostMessage>) => {
      const m = e.data;
      switch (m.type) {
        case 'document':
          marks = { ...(marks.documentReceived ? {} : marks), documentReceived: Date.now() };
          setVersion(m.version);
          if (m.model) {
            setModel(m.model);
            setInvalid(undefined);
          } else setInvalid(m.invalid ?? []);
          return;
        case 'refused':
          setNotice({ kind: 'refused', text: `Wire ${m.from} → ${m.to} refused: ${m.reasons.join(' ')}` });
          return;
        case 'editFailed':
          setNotice({ kind: 'failed', text: m.message });
          return;
        case 'select':
          if (m.node) setSelected({ nodes: [m.node], wires: [] });
          else if (m.wire !== undefined) setSelected({ nodes: [], wires: [`wire:${m.wire}`] });
          return;
      }
    };
    window.addEventListener('message', onMessage);
    marks.ready = Date.now();
    post({ type: 'ready', version: initial?.document.version ?? -1 });
    return () => window.removeEventListener('message', onMessage);
  }, []);

  useEffect(() => {
    if (!notice) return;
    const t = setTimeout(() => setNotice(undefined), 12_000);
    return () => clearTimeout(t);
  }, [notice]);

  // Nodes the file stores no position for: an instant layout now, ELK's from a worker once the
  // graph is on screen (fetching and starting its 1.6 MB worker would delay the first paint).
  const key = useMemo(() => (model ? structureKey(model) : ''), [model]);
  const needsLayout = !!model && model.nodes.some((n) => !model.layout[layoutKeyOf(n)]);
  const quick = useMemo(
    () => (model && needsLayout ? quickLayout(model) : undefined),
    // Positions depend on the structure only (the key), not on each new model object.
    [key, needsLayout],
  );
  const [elk, setElk] = useState<{ key: string; positions: Positions }>();
  const [onScreen, setOnScreen] = useState(false);
  useEffect(() => {
    if (!onScreen || !model || !needsLayout || elk?.key === key) return;
    let live = true;
    elkLayout(model).then(
      (positions) => {
        if (!live) return;
        setElk({ key, positions });
        if (!elkFitted.current) {
          elkFitted.current = true;
          requestAnimationFrame(() => void flow.fitView({ padding: 0.1, duration: 150 }));
        }
      },
      (e: unknown) => console.error('ELK layout failed; keeping the quick layout', e),
    );
    return () => {
      live = false;
    };
  }, [key, needsLayout, onScreen]);
  const auto = elk?.key === key ? elk.positions : quick;

  // Nodes follow the model, keeping xyflow's measurements (nothing flickers) and, for nodes a
  // change leaves as they were, the node objects themselves (React Flow then skips them).
  const [nodes, setNodes] = useState<GraphNode[]>(() => (model ? nodesOf(model, auto, selected, []) : []));
  const nodesFrom = useRef({ model, auto, selected });
  useEffect(() => {
    const from = nodesFrom.current;
    if (!model || (from.model === model && from.auto === auto && from.selected === selected)) return;
    nodesFrom.current = { model, auto, selected };
    setNodes((prev) => nodesOf(model, auto, selected, prev));
  }, [model, auto, selected]);

  const edgeCache = useRef(new Map<string, Edge>());
  const edges = useMemo<Edge[]>(() => {
    if (!model) return [];
    const cache = edgeCache.current;
    const out = model.wires.map((w) => {
      const edge: Edge = {
        id: w.id,
        type: 'wire',
        source: w.source,
        sourceHandle: handleId('out', w.sourcePort),
        target: w.target,
        targetHandle: handleId('in', w.targetPort),
        selected: selected.wires.includes(w.id),
        ariaLabel: `Wire from ${w.from} to ${w.to}`,
        data: {
          problems: model.problems.filter((p) => p.wire === w.index),
          label: `${w.from} → ${w.to}${w.tensor ? ` (tensor ${w.tensor})` : ''}`,
        } satisfies WireData,
      };
      const old = cache.get(w.id);
      return old && JSON.stringify(old) === JSON.stringify(edge) ? old : edge;
    });
    edgeCache.current = new Map(out.map((e) => [e.id, e]));
    return out;
  }, [model, selected]);

  // Tell the provider once each version is on screen (the tests' and benchmarks' clock).
  const reported = useRef(-1);
  useEffect(() => {
    const drawn = invalid !== undefined || (!!model && nodesFrom.current.model === model);
    if (version < 0 || !drawn || reported.current === version) return;
    reported.current = version;
    const counts = { nodes: nodes.length, edges: edges.length, banner: invalid !== undefined };
    marks.committed = Date.now();
    // After the next frame; a hidden page gets no frames (VS Code shows a new page once loaded).
    let sent = false;
    const report = () => {
      if (sent) return;
      sent = true;
      post({ type: 'rendered', version, paintedAt: Date.now(), ...counts, marks });
      setOnScreen(true);
    };
    requestAnimationFrame(() => setTimeout(report));
    setTimeout(report, 1_000);
  }, [nodes, edges, version, invalid, model]);

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

  const onNodesChange = useCallback((changes: NodeChange<GraphNode>[]) => {
    // Removal goes through the text (onBeforeDelete); the rest (drag, measure, select) is local.
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

  const addFromPalette = (id: string) => {
    setPaletteOpen(false);
    const el = document.querySelector('.react-flow');
    const r = el?.getBoundingClientRect();
    const position = r
      ? flow.screenToFlowPosition({ x: r.left + r.width / 2 - 150, y: r.top + r.height / 2 - 60 })
      : undefined;
    const stored = model && Object.keys(model.layout).length > 0;
    post({ type: 'addFromPalette', item: id, position: stored ? position : undefined, sentAt: Date.now() });
  };

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

  const selectedStep = model?.nodes.find(
    (n) => n.kind === 'step' && selected.nodes.length === 1 && n.id === selected.nodes[0],
  );
  const selectedWire = model?.wires.find((w) => selected.wires.length === 1 && w.id === selected.wires[0]);
  const errors = model?.problems.filter((p) => p.severity === 'error').length ?? 0;
  const warnings = model?.problems.filter((p) => p.severity !== 'error').length ?? 0;

  return (
    <div
      className="app"
      // "quick" until ELK's layout has arrived (nodes may still move): the UI test waits it out.
      data-layout={!needsLayout ? 'stored' : elk?.key === key ? 'elk' : 'quick'}
      onKeyDown={(e) => {
        const inField = (e.target as HTMLElement).closest('input, select, textarea');
        if (!inField && (e.key === 'a' || e.key === 'A') && !e.ctrlKey && !e.metaKey) {
          e.preventDefault();
          setPaletteOpen(true);
        }
      }}
    >
      <div className="toolbar" role="toolbar" aria-label="Graph editor">
        <span className="title">{model?.name ?? 'Pipeline'}</span>
        <button
          onClick={() => setPaletteOpen((o) => !o)}
          aria-expanded={paletteOpen}
          aria-keyshortcuts="A"
          disabled={!init}
        >
          + Add step
        </button>
        <button
          onClick={() => edit({ op: 'clearLayout' })}
          disabled={!model || Object.keys(model.layout).length === 0}
          title="Forget stored positions and lay the graph out again"
        >
          Auto layout
        </button>
        <button onClick={() => void flow.fitView({ padding: 0.1, duration: 200 })}>Fit</button>
        <button
          className={`problems-button${errors ? ' error' : warnings ? ' warning' : ''}`}
          onClick={() => setProblemsOpen((o) => !o)}
          aria-expanded={problemsOpen}
          aria-label={`${errors} errors, ${warnings} warnings`}
        >
          {errors || warnings
            ? `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`
            : 'no problems'}
        </button>
      </div>
      {invalid ? (
        <div className="banner" role="alert">
          <strong>The text is not a valid pipeline right now</strong>: showing the last good graph; graph
          editing resumes when the text is fixed.
          {invalid.slice(0, 3).map((p, i) => (
            <div key={i}>
              <button className="link" onClick={() => post({ type: 'reveal', range: p.range })}>
                line {p.range.start.line + 1}: {p.message}
              </button>
            </div>
          ))}
        </div>
      ) : null}
      {notice ? (
        <div className={`notice ${notice.kind}`} role="alert">
          {notice.text}
          <button className="link" aria-label="Dismiss" onClick={() => setNotice(undefined)}>
            ✕
          </button>
        </div>
      ) : null}
      <div className="main">
        <div className="canvas">
          {paletteOpen && init ? (
            <Palette items={init.palette} onAdd={addFromPalette} onClose={() => setPaletteOpen(false)} />
          ) : null}
          {problemsOpen && model ? <ProblemList problems={model.problems} onPick={pickProblem} /> : null}
          <ReactFlow<GraphNode, Edge>
            nodes={nodes}
            edges={edges}
            nodeTypes={nodeTypes}
            edgeTypes={edgeTypes}
            onNodesChange={onNodesChange}
            onNodeDragStop={onNodeDragStop}
            onConnect={onConnect}
            onEdgeClick={onEdgeClick}
            onPaneClick={() => setSelected({ nodes: [], wires: [] })}
            onBeforeDelete={onBeforeDelete}
            deleteKeyCode={['Delete', 'Backspace']}
            nodesFocusable
            edgesFocusable
            minZoom={0.1}
            fitView
            fitViewOptions={{ padding: 0.1 }}
            proOptions={{ hideAttribution: true }}
          >
            <Background gap={24} />
            <Controls showInteractive={false} />
            <MiniMap pannable zoomable ariaLabel="Overview of the pipeline graph" />
          </ReactFlow>
        </div>
        {selectedStep?.kind === 'step' && init ? (
          <aside className="side">
            <StepForm
              step={selectedStep}
              schema={init.schema}
              onEdit={edit}
              onOpenModule={(ref) => post({ type: 'openModule', ref })}
            />
          </aside>
        ) : selectedWire && model ? (
          <aside className="side">
            <WireInfo wire={selectedWire} model={model} onEdit={edit} />
          </aside>
        ) : null}
      </div>
    </div>
  );
}

createRoot(document.getElementById('root')!).render(
  <ReactFlowProvider>
    <App />
  </ReactFlowProvider>,
);
