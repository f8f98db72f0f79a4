/**
 * How steps, ensemble inputs/outputs and wires are drawn: typed ports (name, dtype, dims;
 * optional ones marked), the step's batching, instances and decoupled mode as badges, and the
 * validator's problems as red marks whose messages show on hover and to screen readers.
 */
import {
  BaseEdge,
  Handle,
  Position,
  getBezierPath,
  type EdgeProps,
  type Node,
  type NodeProps,
} from '@xyflow/react';
import { memo } from 'react';
import type {
  EnsembleNodeView,
  NodeView,
  PortView,
  ProblemView,
  StepNodeView,
} from '../../graphEditor/graphModel.js';
import { dimsText, handleId, nodeSize } from './geometry.js';

export interface NodeData extends Record<string, unknown> {
  view: NodeView;
  /** Problems about the node itself. */
  problems: ProblemView[];
  /** Problems about a port, by handle id (`in:NAME` / `out:NAME`). */
  portProblems: Record<string, ProblemView[]>;
}

export type GraphNode = Node<NodeData>;

const severityOf = (ps: ProblemView[]) =>
  ps.some((p) => p.severity === 'error')
    ? 'error'
    : ps.some((p) => p.severity === 'warning')
      ? 'warning'
      : undefined;

const hoverText = (ps: ProblemView[]) => ps.map((p) => `${p.code}: ${p.message}`).join('\n');

export function portLabel(p: PortView): string {
  return `${p.name} ${p.dataType} ${dimsText(p.dims)}${p.optional ? ' (optional)' : ''}${p.fromModule ? ' (from the TypeScript module)' : ''}`;
}

function Port({
  port,
  side,
  top,
  problems,
  handleType,
}: {
  port: PortView;
  side: 'in' | 'out';
  top: number;
  problems: ProblemView[];
  handleType: 'source' | 'target';
}) {
  const id = handleId(side, port.name);
  const sev = severityOf(problems);
  const label = `${side === 'in' ? 'input' : 'output'} ${portLabel(port)}${problems.length ? `. ${problems.length} problem(s): ${hoverText(problems)}` : ''}`;
  return (
    <div
      className={`port port-${side}${port.optional ? ' optional' : ''}${port.fromModule ? ' from-module' : ''}${sev ? ` ${sev}` : ''}`}
      style={{ top: top - 11 }}
      title={problems.length ? hoverText(problems) : portLabel(port)}
      data-port={id}
    >
      <Handle
        type={handleType}
        position={side === 'in' ? Position.Left : Position.Right}
        id={id}
        className={`handle dtype-${port.dataType}${sev ? ` ${sev}` : ''}`}
        aria-label={label}
        title={problems.length ? hoverText(problems) : portLabel(port)}
      />
      <span className="port-name">
        {port.name}
        {port.optional ? (
          <span className="optional-mark" title="optional">
            ?
          </span>
        ) : null}
        {port.fromModule ? (
          <span className="module-mark" title="declared by the step's TypeScript module">
            ts
          </span>
        ) : null}
      </span>
      <span className={`port-type dtype-${port.dataType}`}>
        {port.dataType} {dimsText(port.dims)}
      </span>
    </div>
  );
}

function badges(s: StepNodeView): { text: string; title: string; className: string }[] {
  const out: { text: string; title: string; className: string }[] = [];
  if (s.decoupled)
    out.push({
      text: '⇶ decoupled',
      title: 'Decoupled: streams any number of responses per request',
      className: 'decoupled',
    });
  if (s.maxBatchSize > 0) {
    const dyn = s.dynamicBatching;
    const preferred = dyn?.preferredBatchSizes?.length ? ` pref ${dyn.preferredBatchSizes.join('/')}` : '';
    out.push({
      text: dyn ? `batch ≤${s.maxBatchSize} · dynamic${preferred}` : `batch ≤${s.maxBatchSize}`,
      title: dyn
        ? `Dynamic batching, max batch ${s.maxBatchSize}${dyn.maxQueueDelayMicroseconds !== undefined ? `, max queue delay ${dyn.maxQueueDelayMicroseconds} µs` : ''}`
        : `Max batch size ${s.maxBatchSize}, no dynamic batching`,
      className: dyn ? 'batching dynamic' : 'batching',
    });
  } else out.push({ text: 'no batching', title: 'maxBatchSize 0', className: 'batching off' });
  for (const g of s.instances) {
    out.push({
      text: `${g.count}× ${g.kind}`,
      title: `Instance group: ${g.count} instance(s) of kind ${g.kind}`,
      className: 'instances',
    });
  }
  return out;
}

export function StepNode({ data, selected }: NodeProps<GraphNode>) {
  const s = data.view as StepNodeView;
  const { width, height, portY } = nodeSize(s);
  const sev = severityOf([...data.problems, ...Object.values(data.portProblems).flat()]);
  return (
    <div
      className={`node step kind-${s.stepKind}${selected ? ' selected' : ''}${sev ? ` ${sev}` : ''}`}
      style={{ width, height }}
      title={data.problems.length ? hoverText(data.problems) : s.description}
      data-node={s.id}
    >
      <div className="node-header">
        <span className="node-name">{s.name}</span>
        <span className={`kind-badge kind-${s.stepKind}`}>{s.stepKind}</span>
        {data.problems.length ? (
          <span className={`problem-mark ${severityOf(data.problems)}`} aria-label={hoverText(data.problems)}>
            {data.problems.length}
          </span>
        ) : null}
      </div>
      <div className="node-sub" title={s.preset ?? s.backend ?? s.platform}>
        {s.preset ?? s.backend ?? s.platform ?? ''}
      </div>
      <div className="badges">
        {badges(s).map((b) => (
          <span key={b.text} className={`badge ${b.className}`} title={b.title}>
            {b.text}
          </span>
        ))}
      </div>
      {s.inputs.map((p, i) => (
        <Port
          key={`in-${p.name}`}
          port={p}
          side="in"
          top={portY(i)}
          handleType="target"
          problems={data.portProblems[handleId('in', p.name)] ?? []}
        />
      ))}
      {s.outputs.map((p, i) => (
        <Port
          key={`out-${p.name}`}
          port={p}
          side="out"
          top={portY(i)}
          handleType="source"
          problems={data.portProblems[handleId('out', p.name)] ?? []}
        />
      ))}
    </div>
  );
}

export function EnsembleNode({ data, selected }: NodeProps<GraphNode>) {
  const n = data.view as EnsembleNodeView;
  const { width, height } = nodeSize(n);
  const isInput = n.kind === 'input';
  const sev = severityOf(data.problems);
  return (
    <div
      className={`node ensemble ensemble-${n.kind}${selected ? ' selected' : ''}${sev ? ` ${sev}` : ''}`}
      style={{ width, height }}
      title={data.problems.length ? hoverText(data.problems) : `Ensemble ${n.kind} ${portLabel(n.port)}`}
      data-node={n.id}
    >
      <div className="ensemble-label">{isInput ? 'ensemble input' : 'ensemble output'}</div>
      <div className="node-name">{n.name}</div>
      <div className={`port-type dtype-${n.port.dataType}`}>
        {n.port.dataType} {dimsText(n.port.dims)}
      </div>
      <Handle
        type={isInput ? 'source' : 'target'}
        position={isInput ? Position.Right : Position.Left}
        id={handleId(isInput ? 'out' : 'in', n.port.name)}
        className={`handle dtype-${n.port.dataType}${sev ? ` ${sev}` : ''}`}
        aria-label={`${isInput ? 'ensemble input' : 'ensemble output'} ${portLabel(n.port)}`}
      />
    </div>
  );
}

export interface WireData extends Record<string, unknown> {
  problems: ProblemView[];
  label: string;
}

export function WireEdge(props: EdgeProps & { data?: WireData }) {
  const [path] = getBezierPath(props);
  const problems = props.data?.problems ?? [];
  const sev = severityOf(problems);
  return (
    <g className={`wire${sev ? ` ${sev}` : ''}${props.selected ? ' selected' : ''}`} data-wire={props.id}>
      <title>{problems.length ? hoverText(problems) : props.data?.label}</title>
      <BaseEdge id={props.id} path={path} markerEnd={props.markerEnd} interactionWidth={16} />
    </g>
  );
}

// Memoized: xyflow re-renders a node's wrapper when it measures it or moves another node; the
// drawing itself changes only with the node's own props.
export const nodeTypes = { step: memo(StepNode), ensemble: memo(EnsembleNode) };
export const edgeTypes = { wire: memo(WireEdge) };
