/**
 * The pipeline as the graph editor draws it: steps (presets resolved, so every port is spelled
 * out), ensemble inputs and outputs as their own nodes, wires as edges, and each validator
 * diagnostic attached to the node, port or wire it is about. Pure (no VS Code): the provider
 * computes it on the extension host and posts it to the webview as JSON.
 */
import { findNodeAtOffset, getLocation, getNodePath, parseTree, type Node as JsonNode } from 'jsonc-parser';
import {
  resolveEnsemblePorts,
  resolveSteps,
  validatePipeline,
  type Diagnostic,
  type NodePosition,
  type Pipeline,
  type ResolvedPort,
  type ResolvedStep,
  type Step,
  type ValidateOptions,
} from '../../../generator/index.js';

export interface PortView {
  name: string;
  dataType: string;
  dims: number[];
  optional: boolean;
  role?: string;
  /** The port comes from the step's preset, unchanged. */
  fromPreset: boolean;
  /** The step's TypeScript module declares it (a hook's HookInputs field, a custom step's Row/Out field). */
  fromModule: boolean;
}

export interface StepNodeView {
  kind: 'step';
  /** `step:NAME` */
  id: string;
  name: string;
  index: number;
  stepKind: Step['kind'];
  preset?: string;
  backend?: string;
  platform?: string;
  tokenizer?: string;
  description?: string;
  maxBatchSize: number;
  /** Resolved: undefined = off. */
  dynamicBatching?: { preferredBatchSizes?: number[]; maxQueueDelayMicroseconds?: number };
  /** Resolved instance groups, e.g. `2 × CPU`. */
  instances: { count: number; kind: string }[];
  decoupled: boolean;
  parameters: Record<string, string>;
  inputs: PortView[];
  outputs: PortView[];
  /** The step exactly as the file spells it (what the side form edits). */
  own: Step;
}

export interface EnsembleNodeView {
  kind: 'input' | 'output';
  /** `input:NAME` / `output:NAME` (also the node's layout key). */
  id: string;
  name: string;
  index: number;
  port: PortView;
}

export type NodeView = StepNodeView | EnsembleNodeView;

export interface WireView {
  /** `wire:INDEX` */
  id: string;
  index: number;
  from: string;
  to: string;
  source: string;
  sourcePort: string;
  target: string;
  targetPort: string;
  tensor?: string;
}

export interface ProblemView {
  severity: Diagnostic['severity'];
  code: string;
  message: string;
  range: Diagnostic['range'];
  /** The element it is about (none: the pipeline as a whole). */
  node?: string;
  port?: { side: 'input' | 'output'; name: string };
  wire?: number;
}

export interface GraphModel {
  name: string;
  maxBatchSize: number;
  nodes: NodeView[];
  wires: WireView[];
  /** Wires whose ends name no node or port: not drawable; their problems say why. */
  danglingWires: number[];
  problems: ProblemView[];
  layout: Record<string, NodePosition>;
}

export type BuildResult =
  | { ok: true; model: GraphModel; pipeline: Pipeline }
  /** Not a pipeline (JSON syntax or schema): the editor keeps its last good graph and says why. */
  | { ok: false; problems: ProblemView[] };

export const stepNodeId = (name: string) => `step:${name}`;
export const layoutKey = (node: NodeView) => (node.kind === 'step' ? node.name : node.id);

export function buildGraphModel(text: string, file: string, options: ValidateOptions = {}): BuildResult {
  const result = validatePipeline(text, file, options);
  const ownFile = result.diagnostics.filter((d) => d.file === file);
  const pipeline = result.pipeline;
  if (!pipeline) {
    return { ok: false, problems: ownFile.map((d) => problemOf(d)) };
  }
  // The validator's steps carry the ports their TypeScript modules declare (hook inputs, custom tensors).
  const steps = result.steps ?? resolveSteps(pipeline);
  const nodes: NodeView[] = [
    ...resolveEnsemblePorts(pipeline, 'inputs').map((p, index) => ensembleNode('input', p, index)),
    ...steps.map(stepNode(pipeline)),
    ...resolveEnsemblePorts(pipeline, 'outputs').map((p, index) => ensembleNode('output', p, index)),
  ];
  const { wires, dangling } = wireViews(pipeline, steps);
  const root = parseTree(text);
  const lines = lineStarts(text);
  const problems = ownFile.map((d) => problemOf(d, root && locate(d, root, lines, pipeline, steps, wires)));
  return {
    ok: true,
    pipeline,
    model: {
      name: pipeline.name,
      maxBatchSize: pipeline.maxBatchSize ?? 0,
      nodes,
      wires,
      danglingWires: dangling,
      problems,
      layout: pipeline.layout ?? {},
    },
  };
}

function portView(p: ResolvedPort | (ResolvedPort & { optional?: boolean })): PortView {
  return {
    name: p.name,
    dataType: p.dataType ?? '?',
    dims: p.dims ?? [],
    optional: p.optional ?? false,
    role: p.role,
    fromPreset: p.path[p.path.length - 1] === 'preset',
    fromModule: p.fromModule === true,
  };
}

function ensembleNode(kind: 'input' | 'output', p: ResolvedPort, index: number): EnsembleNodeView {
  return { kind, id: `${kind}:${p.name}`, name: p.name, index, port: portView(p) };
}

function stepNode(pipeline: Pipeline) {
  return (s: ResolvedStep): StepNodeView => ({
    kind: 'step',
    id: stepNodeId(s.name),
    name: s.name,
    index: s.index,
    stepKind: s.kind,
    preset: s.preset?.id ?? s.unknownPreset,
    backend: s.backend,
    platform: s.platform,
    tokenizer: s.tokenizer,
    description: pipeline.steps[s.index]?.description ?? s.preset?.title,
    maxBatchSize: s.maxBatchSize,
    dynamicBatching: s.dynamicBatching,
    instances: s.instanceGroups.map((g) => ({ count: g.count ?? 1, kind: g.kind ?? 'AUTO' })),
    decoupled: s.decoupled,
    parameters: s.parameters,
    inputs: s.inputs.map(portView),
    outputs: s.outputs.map(portView),
    own: pipeline.steps[s.index]!,
  });
}

function wireViews(pipeline: Pipeline, steps: ResolvedStep[]): { wires: WireView[]; dangling: number[] } {
  const byName = new Map(steps.map((s) => [s.name, s]));
  const end = (ref: string, side: 'from' | 'to'): { node: string; port: string } | undefined => {
    const dot = ref.indexOf('.');
    const step = dot > 0 ? byName.get(ref.slice(0, dot)) : undefined;
    if (step) {
      const port = ref.slice(dot + 1);
      const ports = side === 'from' ? step.outputs : step.inputs;
      return ports.some((p) => p.name === port) ? { node: stepNodeId(step.name), port } : undefined;
    }
    const ensemble = side === 'from' ? pipeline.inputs : pipeline.outputs;
    if (!ensemble.some((p) => p.name === ref)) return undefined;
    // An ensemble node's one port is named like the node.
    return { node: `${side === 'from' ? 'input' : 'output'}:${ref}`, port: ref };
  };
  const wires: WireView[] = [];
  const dangling: number[] = [];
  pipeline.wires.forEach((w, index) => {
    const a = end(w.from, 'from');
    const b = end(w.to, 'to');
    if (!a || !b) {
      dangling.push(index);
      return;
    }
    wires.push({
      id: `wire:${index}`,
      index,
      from: w.from,
      to: w.to,
      source: a.node,
      sourcePort: a.port,
      target: b.node,
      targetPort: b.port,
      tensor: w.tensor,
    });
  });
  return { wires, dangling };
}

function problemOf(d: Diagnostic, at: Pick<ProblemView, 'node' | 'port' | 'wire'> = {}): ProblemView {
  return { severity: d.severity, code: d.code, message: d.message, range: d.range, ...at };
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

/** Codes of wire errors that are the receiving port's to fix (its type, its one feed). */
const RECEIVING_PORT_CODES = new Set(['TS-E012', 'TS-E013', 'TS-E015']);

/**
 * The element a diagnostic is about, from the JSON path at its range. Ports a preset declares have
 * no text of their own (their diagnostics point at the step's "preset"), so there the port is the
 * one the message names in quotes.
 */
function locate(
  d: Diagnostic,
  root: JsonNode,
  lines: number[],
  pipeline: Pipeline,
  steps: ResolvedStep[],
  wires: WireView[],
): Pick<ProblemView, 'node' | 'port' | 'wire'> {
  const offset = (lines[d.range.start.line] ?? 0) + d.range.start.column;
  const node = findNodeAtOffset(root, offset, true);
  const path = node ? getNodePath(node) : [];
  const [top, i, field, j] = path;
  if (top === 'wires' && typeof i === 'number') {
    const wire = wires.find((w) => w.index === i);
    if (wire && RECEIVING_PORT_CODES.has(d.code)) {
      return { wire: i, node: wire.target, port: { side: 'input', name: wire.targetPort } };
    }
    return { wire: i };
  }
  if ((top === 'inputs' || top === 'outputs') && typeof i === 'number') {
    const name = pipeline[top][i]?.name;
    return name === undefined ? {} : { node: `${top === 'inputs' ? 'input' : 'output'}:${name}` };
  }
  if (top !== 'steps' || typeof i !== 'number') return {};
  const step = steps[i];
  if (!step) return {};
  const id = stepNodeId(step.name);
  if ((field === 'inputs' || field === 'outputs') && typeof j === 'number') {
    const name = pipeline.steps[i]?.[field]?.[j]?.name;
    if (name !== undefined)
      return { node: id, port: { side: field === 'inputs' ? 'input' : 'output', name } };
  }
  if (field === 'preset') {
    for (const side of ['inputs', 'outputs'] as const) {
      const named = step[side].find((p) => d.message.includes(`"${p.name}"`));
      if (named)
        return { node: id, port: { side: side === 'inputs' ? 'input' : 'output', name: named.name } };
    }
  }
  return { node: id };
}

/** The node or wire whose JSON holds `offset` in the text (for following the text editor's cursor). */
export function elementAt(
  text: string,
  offset: number,
  pipeline: Pipeline,
): { node?: string; wire?: number } | undefined {
  const [top, i] = getLocation(text, offset).path;
  if (typeof i !== 'number') return undefined;
  if (top === 'wires') return pipeline.wires[i] ? { wire: i } : undefined;
  if (top === 'steps') {
    const step = pipeline.steps[i];
    return step ? { node: stepNodeId(step.name) } : undefined;
  }
  if (top === 'inputs' || top === 'outputs') {
    const p = pipeline[top][i];
    return p ? { node: `${top === 'inputs' ? 'input' : 'output'}:${p.name}` } : undefined;
  }
  return undefined;
}
