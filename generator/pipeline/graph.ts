/**
 * The ensemble as a graph: every wire resolved to its two ends (a step port or an ensemble port),
 * one ensemble tensor per producing port, the input/output maps of each step, and an order in
 * which every producer comes before its consumers. Mistakes found on the way (a wire to a port
 * that does not exist, two wires into one input, a dtype or shape that differs across a wire, a
 * tensor name taken twice) are reported through the context; what is left is what Triton's
 * `ensemble_scheduling` says.
 */
import type { ChatTemplateFiles } from './chatTemplates.js';
import type { CheckContext } from './checks/context.js';
import { hasControlChars } from './checks/context.js';
import type { ResolvedEnsemblePort, ResolvedPort, ResolvedStep } from './resolve.js';
import type { JsonPath } from './source.js';
import type { Serving } from './types.js';

/** The wired ensemble, as far as the pipeline file alone says it (no disk). */
export interface EnsembleGraph {
  name: string;
  maxBatchSize: number;
  maxInflightRequests?: number;
  parameters: Record<string, string>;
  inputs: ResolvedEnsemblePort[];
  outputs: ResolvedEnsemblePort[];
  /** Steps in an order where every producer comes before its consumers. */
  steps: ResolvedStep[];
  /** step → model input → ensemble tensor */
  inputMap: Map<string, Map<string, string>>;
  /** step → model output → ensemble tensor */
  outputMap: Map<string, Map<string, string>>;
  /** What clients call: the native orchestrator or the ensemble (`checks/serving.ts`). */
  serving: Serving;
}

/** The graph with what the environment found: what the repository writer needs. */
export interface PipelineGraph extends EnsembleGraph {
  /** step → absolute tokenizer.json path (tokenize/detokenize steps). */
  tokenizerFiles: Map<string, string>;
  /** tokenize step → its chat template files (steps with a `messages` port). */
  chatTemplates: Map<string, ChatTemplateFiles>;
  /** llama.cpp step → the GGUF its `parameters.gguf` names (checks/weights.ts). */
  weightFiles: Map<string, string>;
}

export type Endpoint =
  | { kind: 'ensemble'; port: ResolvedEnsemblePort; side: 'input' | 'output' }
  | { kind: 'step'; step: ResolvedStep; port: ResolvedPort; side: 'input' | 'output' };

export interface Connection {
  /** Index of the wire in the file. */
  index: number;
  from: Endpoint;
  to: Endpoint;
  tensor?: string;
}

export interface Wiring {
  connections: Connection[];
  /** `step.PORT` / `<out>NAME` → index of the wire into it. */
  wiredInto: Map<string, number>;
  /** Ends of wires whose other end is broken: not reported again as unused or unwired. */
  halfWired: Set<string>;
  /** Steps a wire tried to reach through a port they lack: their "not wired" errors would only echo it. */
  stepsWithBrokenWires: Set<ResolvedStep>;
  /** `step.PORT` of every producing step output → its connections. */
  byProducer: Map<string, Connection[]>;
  inputMap: Map<string, Map<string, string>>;
  outputMap: Map<string, Map<string, string>>;
  /** Producers before consumers; `cycle` when the steps form one. */
  order: { ok: true; steps: ResolvedStep[] } | { ok: false; cycle: ResolvedStep[] };
}

export function endKey(e: Endpoint): string {
  return e.kind === 'step'
    ? `${e.step.name}.${e.port.name}`
    : `${e.side === 'input' ? '<in>' : '<out>'}${e.port.name}`;
}

export function buildWiring(ctx: CheckContext): Wiring {
  const wiring = connect(ctx);
  const { inputMap, outputMap, byProducer } = nameTensors(ctx, wiring.connections);
  return {
    ...wiring,
    byProducer,
    inputMap,
    outputMap,
    order: topologicalOrder(ctx.steps, wiring.connections),
  };
}

/** Resolves every wire; reports ends that do not exist, go the wrong way, or do not match. */
function connect(ctx: CheckContext): Omit<Wiring, 'byProducer' | 'inputMap' | 'outputMap' | 'order'> {
  const { pipeline, report } = ctx;
  const stepsWithBrokenWires = new Set<ResolvedStep>();
  const connections: Connection[] = [];
  const wiredInto = new Map<string, number>();
  const halfWired = new Set<string>();
  const ends: Ends = {
    inputs: new Map(ctx.inputs.map((p) => [p.name, p])),
    outputs: new Map(ctx.outputs.map((p) => [p.name, p])),
    stepsWithBrokenWires,
  };
  pipeline.wires.forEach((wire, index) => {
    const from = resolveEndpoint(ctx, ends, wire.from, ['wires', index, 'from'], 'from');
    const to = resolveEndpoint(ctx, ends, wire.to, ['wires', index, 'to'], 'to');
    if (from && !to) halfWired.add(endKey(from));
    if (to && !from) halfWired.add(endKey(to));
    if (wire.tensor !== undefined && hasControlChars(wire.tensor)) {
      report(
        ['wires', index, 'tensor'],
        'TS-E041',
        'Tensor names must not contain control characters (newlines, tabs…).',
      );
    }
    if (!from || !to) return;
    if (from.kind === 'ensemble' && to.kind === 'ensemble') {
      halfWired.add(endKey(from)).add(endKey(to));
      report(
        ['wires', index],
        'TS-E020',
        `Triton ensembles cannot pass input "${from.port.name}" straight to output "${to.port.name}"; route it through a step.`,
      );
      return;
    }
    const toKey = endKey(to);
    const first = wiredInto.get(toKey);
    if (first !== undefined) {
      report(
        ['wires', index, 'to'],
        'TS-E015',
        `"${wire.to}" is already wired by wires[${first}] (from "${pipeline.wires[first]!.from}"); an input takes one wire. Remove one.`,
      );
      // A second wire that would not fit the port either says so too: both reasons stand.
      checkCompatible(from, to, ['wires', index], ctx);
      return;
    }
    wiredInto.set(toKey, index);
    checkCompatible(from, to, ['wires', index], ctx);
    connections.push({ index, from, to, tensor: wire.tensor });
  });
  return { connections, wiredInto, halfWired, stepsWithBrokenWires };
}

interface Ends {
  inputs: Map<string, ResolvedEnsemblePort>;
  outputs: Map<string, ResolvedEnsemblePort>;
  stepsWithBrokenWires: Set<ResolvedStep>;
}

function resolveEndpoint(
  ctx: CheckContext,
  ends: Ends,
  ref: string,
  path: JsonPath,
  role: 'from' | 'to',
): Endpoint | undefined {
  const { report, stepByName } = ctx;
  const dot = ref.indexOf('.');
  const stepName = dot > 0 ? ref.slice(0, dot) : undefined;
  const step = stepName !== undefined ? stepByName.get(stepName) : undefined;
  if (step) {
    // Its ports are unknown while its preset is wrong; that error is reported once, on the preset.
    if (ctx.presetProblem.has(step)) return undefined;
    const portName = ref.slice(dot + 1);
    const own = role === 'from' ? step.outputs : step.inputs;
    const other = role === 'from' ? step.inputs : step.outputs;
    const port = own.find((p) => p.name === portName);
    if (port) return { kind: 'step', step, port, side: role === 'from' ? 'output' : 'input' };
    if (other.some((p) => p.name === portName)) {
      report(
        path,
        'TS-E019',
        role === 'from'
          ? `"${ref}" is an input of step "${step.name}"; a wire starts at a step output or an ensemble input.`
          : `"${ref}" is an output of step "${step.name}"; a wire ends at a step input or an ensemble output.`,
      );
      return undefined;
    }
    // A port its hooks module may declare: that module's own error (or a later save) says.
    if (ctx.unknownModulePorts.has(step)) return undefined;
    const names = own.map((p) => p.name);
    if (role === 'to') ends.stepsWithBrokenWires.add(step);
    report(
      path,
      'TS-E011',
      `Step "${step.name}" has no ${role === 'from' ? 'output' : 'input'} "${portName}"` +
        (names.length ? `; its ${role === 'from' ? 'outputs' : 'inputs'} are ${names.join(', ')}.` : '.'),
    );
    return undefined;
  }
  const own = role === 'from' ? ends.inputs : ends.outputs;
  const other = role === 'from' ? ends.outputs : ends.inputs;
  const port = own.get(ref);
  if (port) return { kind: 'ensemble', port, side: role === 'from' ? 'input' : 'output' };
  if (other.has(ref)) {
    report(
      path,
      'TS-E019',
      role === 'from'
        ? `"${ref}" is an ensemble output; a wire cannot start there. Start it at a step output or an ensemble input.`
        : `"${ref}" is an ensemble input; a wire cannot end there. End it at a step input or an ensemble output.`,
    );
    return undefined;
  }
  if (stepName !== undefined) {
    report(
      path,
      'TS-E010',
      `No step is named "${stepName}"${suggestName(stepName, [...stepByName.keys()])}; ` +
        `use "step.PORT" with one of: ${[...stepByName.keys()].join(', ') || '(no steps)'}.`,
    );
  } else {
    report(
      path,
      'TS-E011',
      `"${ref}" is not an ensemble ${role === 'from' ? 'input' : 'output'}; write "step.PORT" for a step port` +
        `${own.size ? ` or one of: ${[...own.keys()].join(', ')}` : ''}.`,
    );
  }
  return undefined;
}

function suggestName(name: string, names: string[]): string {
  const lower = name.toLowerCase();
  const hit = names.find(
    (n) =>
      n.toLowerCase() === lower || n.toLowerCase().startsWith(lower) || lower.startsWith(n.toLowerCase()),
  );
  return hit ? ` (did you mean "${hit}"?)` : '';
}

/** Full shape as Triton compares it: with the implicit batch dimension when the model batches. */
function fullShape(dims: number[], maxBatchSize: number): number[] {
  return maxBatchSize > 0 ? [-1, ...dims] : dims;
}

function shapesCompatible(a: number[], b: number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === -1 || b[i] === -1 || d === b[i]);
}

function checkCompatible(from: Endpoint, to: Endpoint, path: JsonPath, ctx: CheckContext): void {
  const a = from.port;
  const b = to.port;
  if (a.dataType === undefined || b.dataType === undefined || a.dims === undefined || b.dims === undefined)
    return;
  const label = (e: Endpoint): string =>
    e.kind === 'step' ? `${e.step.name}.${e.port.name}` : `ensemble ${e.side} ${e.port.name}`;
  // Only tokenize steps convert dtypes; Triton passes tensors between steps as they are.
  if (a.dataType !== b.dataType) {
    ctx.report(
      path,
      'TS-E012',
      `${label(from)} is ${a.dataType} but ${label(to)} expects ${b.dataType}; Triton does not convert between steps. ` +
        'Change one dataType (a tokenize step can convert requestOutputLen).',
    );
    return;
  }
  const mbs = (e: Endpoint): number => (e.kind === 'step' ? e.step.maxBatchSize : ctx.ensembleBatch);
  const sa = fullShape(a.dims, mbs(from));
  const sb = fullShape(b.dims, mbs(to));
  if (!shapesCompatible(sa, sb)) {
    ctx.report(
      path,
      'TS-E013',
      `${label(from)} has shape [${sa.join(', ')}] but ${label(to)} expects [${sb.join(', ')}] (batch dimension included); ` +
        'make the dims agree (-1 matches any size).',
    );
  }
}

/** One ensemble tensor per producer: an output wired to an ensemble output takes that name. */
function nameTensors(
  ctx: CheckContext,
  connections: Connection[],
): Pick<Wiring, 'byProducer' | 'inputMap' | 'outputMap'> {
  const { report } = ctx;
  const tensorOf = new Map<string, string>();
  const outputMap = new Map<string, Map<string, string>>();
  const inputMap = new Map<string, Map<string, string>>();
  const taken = new Set([...ctx.inputs.map((p) => p.name), ...ctx.outputs.map((p) => p.name)]);
  for (const i of ctx.inputs) tensorOf.set(`<in>${i.name}`, i.name);
  const byProducer = new Map<string, Connection[]>();
  for (const c of connections) {
    if (c.from.kind !== 'step') continue;
    const key = endKey(c.from);
    byProducer.set(key, [...(byProducer.get(key) ?? []), c]);
  }
  for (const [key, conns] of byProducer) {
    const from = conns[0]!.from as Extract<Endpoint, { kind: 'step' }>;
    const toOutputs = conns.filter((c) => c.to.kind === 'ensemble');
    if (toOutputs.length > 1) {
      report(
        ['wires', toOutputs[1]!.index],
        'TS-E016',
        `Step output "${key}" is wired to ensemble outputs "${toOutputs[0]!.to.port.name}" and "${toOutputs[1]!.to.port.name}"; ` +
          'Triton maps a step output to one tensor. Keep one.',
      );
      continue;
    }
    const named = conns.map((c) => c.tensor).filter((t): t is string => t !== undefined);
    let tensor: string;
    if (toOutputs[0]) {
      tensor = toOutputs[0].to.port.name;
      const clash = conns.find((c) => c.tensor !== undefined && c.tensor !== tensor);
      if (clash) {
        report(
          ['wires', clash.index, 'tensor'],
          'TS-E015',
          `This wire's tensor must be "${tensor}": the same step output feeds ensemble output "${tensor}".`,
        );
      }
    } else if (named.length > 0) {
      tensor = named[0]!;
      const clash = conns.find((c) => c.tensor !== undefined && c.tensor !== tensor);
      if (clash) {
        report(
          ['wires', clash.index, 'tensor'],
          'TS-E015',
          `Wires from "${key}" name different tensors ("${tensor}", "${clash.tensor}"); one step output is one tensor.`,
        );
      }
      if (taken.has(tensor)) {
        const at = conns.find((c) => c.tensor === tensor)!;
        report(
          ['wires', at.index, 'tensor'],
          'TS-E042',
          `Tensor name "${tensor}" is already used in this ensemble; choose another.`,
        );
      }
    } else {
      tensor = `${from.step.name}_${from.port.name}`;
      for (let n = 2; taken.has(tensor); n++) tensor = `${from.step.name}_${from.port.name}_${n}`;
    }
    taken.add(tensor);
    tensorOf.set(key, tensor);
    mapFor(outputMap, from.step.name).set(from.port.name, tensor);
  }
  for (const c of connections) {
    if (c.to.kind !== 'step') continue;
    const tensor = tensorOf.get(endKey(c.from));
    if (tensor !== undefined) mapFor(inputMap, c.to.step.name).set(c.to.port.name, tensor);
  }
  return { byProducer, inputMap, outputMap };
}

function mapFor(m: Map<string, Map<string, string>>, key: string): Map<string, string> {
  let v = m.get(key);
  if (!v) m.set(key, (v = new Map()));
  return v;
}

function topologicalOrder(steps: ResolvedStep[], connections: Connection[]): Wiring['order'] {
  const next = new Map<ResolvedStep, Set<ResolvedStep>>(steps.map((s) => [s, new Set()]));
  for (const c of connections) {
    if (c.from.kind === 'step' && c.to.kind === 'step') next.get(c.from.step)?.add(c.to.step);
  }
  // Kahn's algorithm, always taking the earliest ready step so the file's order is kept.
  const indegree = new Map<ResolvedStep, number>(steps.map((s) => [s, 0]));
  for (const targets of next.values()) for (const t of targets) indegree.set(t, indegree.get(t)! + 1);
  const out: ResolvedStep[] = [];
  const done = new Set<ResolvedStep>();
  while (out.length < steps.length) {
    const ready = steps.find((s) => !done.has(s) && indegree.get(s) === 0);
    if (!ready) break;
    done.add(ready);
    out.push(ready);
    for (const t of next.get(ready)!) indegree.set(t, indegree.get(t)! - 1);
  }
  if (out.length === steps.length) return { ok: true, steps: out };
  // Every blocked step has a blocked predecessor: walking backwards must come round to a step seen before.
  const left = steps.filter((s) => !done.has(s));
  const prev = (s: ResolvedStep): ResolvedStep => left.find((p) => next.get(p)!.has(s))!;
  const path: ResolvedStep[] = [];
  let cur = left[0]!;
  while (!path.includes(cur)) {
    path.push(cur);
    cur = prev(cur);
  }
  const cycle = path.slice(path.indexOf(cur)).reverse();
  // Start the loop at the step that comes first in the file, so the message is stable.
  const first = cycle.reduce((a, b) => (b.index < a.index ? b : a));
  const at = cycle.indexOf(first);
  return { ok: false, cycle: [...cycle.slice(at), ...cycle.slice(0, at)] };
}
