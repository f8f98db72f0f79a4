/**
 * Semantic checks of a (schema-valid) pipeline: names, presets, ports and roles, tokenizers,
 * batching, and every wire (endpoints, direction, dtype, shape, fan-in), cycles and unproduced
 * outputs — the mistakes Triton would otherwise report at load time, or not at all. The result
 * also carries the wired graph the repository writer turns into the ensemble's maps.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, isAbsolute, resolve } from 'node:path';
import { ModelConfigJsonError, modelConfigFromJson } from '../pbtxt/json.js';
import type { Diagnostic, DiagnosticCode, Severity } from '../model/diagnostics.js';
import {
  resolveEnsemblePorts,
  resolveSteps,
  type ResolvedEnsemblePort,
  type ResolvedPort,
  type ResolvedStep,
} from './resolve.js';
import type { JsonPath, SourceText } from './source.js';
import { defaultTokenizerSearchDirs, isTokenizerPath, resolveTokenizer } from './tokenizers.js';
import { isNativeStepKind, portRoles } from '../model/portRoles.js';
import type { Pipeline, StepKind } from './types.js';

export interface AnalyzeOptions {
  /** Extra folders searched for tokenizers by name, before the project's `.cache/tokenizers`. */
  tokenizerSearchDirs?: string[];
}

export interface PipelineGraph {
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
  /** step → absolute tokenizer.json path (tokenize/detokenize steps). */
  tokenizerFiles: Map<string, string>;
}

export interface AnalyzeResult {
  diagnostics: Diagnostic[];
  /** Present when there are no errors. */
  graph?: PipelineGraph;
}

/** Control characters (newline, tab, NUL…): no Triton name or generated file can carry them safely. */
function hasControlChars(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

type Endpoint =
  | { kind: 'ensemble'; port: ResolvedEnsemblePort; side: 'input' | 'output' }
  | { kind: 'step'; step: ResolvedStep; port: ResolvedPort; side: 'input' | 'output' };

export function analyzePipeline(
  pipeline: Pipeline,
  source: SourceText,
  options: AnalyzeOptions = {},
): AnalyzeResult {
  const diagnostics: Diagnostic[] = [];
  const report = (
    path: JsonPath,
    code: DiagnosticCode,
    message: string,
    severity: Severity = 'error',
    key = false,
  ): void => {
    diagnostics.push({
      file: source.file,
      range: key ? source.keyRangeOf(path) : source.rangeOf(path),
      severity,
      code,
      message,
    });
  };

  const steps = resolveSteps(pipeline);
  const inputs = resolveEnsemblePorts(pipeline, 'inputs');
  const outputs = resolveEnsemblePorts(pipeline, 'outputs');
  const ensembleBatch = pipeline.maxBatchSize ?? 0;

  // --- names -------------------------------------------------------------------------------
  const stepByName = new Map<string, ResolvedStep>();
  const presetProblem = new Set<ResolvedStep>();
  /** Steps a wire tried to reach through a port they lack: their "not wired" errors would only echo it. */
  const stepsWithBrokenWires = new Set<ResolvedStep>();
  for (const step of steps) {
    if (step.name === pipeline.name) {
      report(
        [...step.path, 'name'],
        'TS-E042',
        `Step "${step.name}" has the ensemble's name; rename the step or the pipeline.`,
      );
    } else if (stepByName.has(step.name)) {
      report(
        [...step.path, 'name'],
        'TS-E042',
        `Another step is already named "${step.name}"; step names must be unique.`,
      );
    } else stepByName.set(step.name, step);
  }
  checkTensorNames(inputs, 'ensemble input', report);
  checkTensorNames(outputs, 'ensemble output', report);
  checkDuplicates(inputs, 'ensemble inputs', report);
  checkDuplicates(outputs, 'ensemble outputs', report);
  for (const o of outputs) {
    if (inputs.some((i) => i.name === o.name)) {
      report(
        [...o.path, 'name'],
        'TS-E042',
        `"${o.name}" is both an ensemble input and output; Triton needs distinct names.`,
      );
    }
  }
  checkParameters(pipeline.parameters, ['parameters'], report);

  // --- steps -------------------------------------------------------------------------------
  const searchDirs = [
    ...(pipeline.tokenizerSearchPaths ?? []),
    ...(options.tokenizerSearchDirs ?? []),
    ...defaultTokenizerSearchDirs(),
  ];
  const tokenizerFiles = new Map<string, string>();
  for (const step of steps) {
    if (step.unknownPreset !== undefined) {
      presetProblem.add(step);
      report(
        [...step.path, 'preset'],
        'TS-E050',
        `Unknown preset "${step.unknownPreset}". ${presetHint(step.kind)}`,
      );
    } else if (step.preset && step.preset.kind !== step.kind) {
      presetProblem.add(step);
      report(
        [...step.path, 'preset'],
        'TS-E050',
        `Preset "${step.preset.id}" is for a ${step.preset.kind} step, but this step's kind is "${step.kind}"; change one of them.`,
      );
    }
    for (const side of ['inputs', 'outputs'] as const) {
      for (const p of step[side]) {
        if (p.dataType === undefined || p.dims === undefined) {
          report(
            p.path,
            'TS-E002',
            `Port "${p.name}" of step "${step.name}" needs "dataType" and "dims" (no preset declares this port).`,
          );
        }
      }
      checkTensorNames(step[side], `port of step "${step.name}"`, report);
      checkDuplicates(step[side], `${side} of step "${step.name}"`, report);
    }
    checkParameters(step.parameters, [...step.path, 'parameters'], report);
    checkRemovedParameters(step, pipeline.steps[step.index]?.parameters, report);
    checkRoles(step, report);
    if (step.config !== undefined) {
      try {
        modelConfigFromJson(step.config);
      } catch (e) {
        if (!(e instanceof ModelConfigJsonError)) throw e;
        report(
          [...step.path, 'config'],
          'TS-E003',
          `"config" of step "${step.name}" is not a valid ModelConfig: ${e.message.replace(/^config/, 'config')}. Use model_config.proto field names.`,
        );
      }
    }
    if (step.kind === 'tokenize' || step.kind === 'detokenize') {
      if (step.tokenizer === undefined) {
        report(
          step.path,
          'TS-E051',
          `Step "${step.name}" needs a "tokenizer": a known name (gpt2, llama-2, …) or a path to a tokenizer.json.`,
        );
      } else {
        const found = resolveTokenizer(step.tokenizer, source.file, searchDirs);
        if (found.file) tokenizerFiles.set(step.name, found.file);
        else {
          const how = isTokenizerPath(step.tokenizer)
            ? 'Check the path (relative to the pipeline file).'
            : 'Run `npm run tokenizers:assemble`, add a folder to "tokenizerSearchPaths", or give a path to a tokenizer.json.';
          report(
            [...step.path, 'tokenizer'],
            'TS-E051',
            `Tokenizer "${step.tokenizer}" not found (looked in ${found.tried.join(', ') || 'no folder'}). ${how}`,
          );
        }
      }
    } else if (!step.backend && !step.platform && !presetProblem.has(step)) {
      report(
        step.path,
        'TS-E054',
        `Step "${step.name}" needs a "backend" (e.g. "tensorrtllm", "onnxruntime", "vllm") or a "platform", or a "preset".`,
      );
    }
    checkFiles(step, source.file, report);
    if (step.backend && step.platform) {
      report(
        [...step.path, 'platform'],
        'TS-E054',
        `Step "${step.name}" sets both "backend" and "platform"; keep one.`,
      );
    }
    if (step.kind === 'custom' || step.kind === 'model') {
      if (step.backend && !/^[A-Za-z0-9_-]+$/.test(step.backend)) {
        report(
          [...step.path, 'backend'],
          'TS-E040',
          `Backend "${step.backend}" is not a valid backend name: use letters, digits, '_' and '-'.`,
        );
      }
    }
    // Batching rules Triton enforces at load time.
    const stepPath = step.path;
    if (ensembleBatch > 0 && step.maxBatchSize < ensembleBatch) {
      report(
        [...stepPath, step.maxBatchSize !== undefined ? 'maxBatchSize' : 'name'],
        'TS-E030',
        `Step "${step.name}" allows batches of ${step.maxBatchSize} but the ensemble allows ${ensembleBatch}; ` +
          `raise the step's maxBatchSize to at least ${ensembleBatch} or lower the pipeline's.`,
      );
    }
    if (step.dynamicBatching && step.maxBatchSize === 0) {
      report(
        [...stepPath, 'dynamicBatching'],
        'TS-E031',
        `Step "${step.name}" has dynamic batching but maxBatchSize 0; set maxBatchSize > 0 or turn dynamicBatching off.`,
      );
    }
    for (const size of step.dynamicBatching?.preferredBatchSizes ?? []) {
      if (step.maxBatchSize > 0 && size > step.maxBatchSize) {
        report(
          [...stepPath, 'dynamicBatching'],
          'TS-E031',
          `Preferred batch size ${size} of step "${step.name}" exceeds its maxBatchSize ${step.maxBatchSize}; lower it.`,
        );
      }
    }
    for (const p of step.inputs) {
      if (p.raggedBatch && step.maxBatchSize === 0) {
        report(
          p.path,
          'TS-E031',
          `Port "${p.name}" allows ragged batches but step "${step.name}" does not batch (maxBatchSize 0).`,
        );
      }
    }
    if (step.decoupled && (step.kind === 'tokenize' || step.kind === 'detokenize')) {
      report(
        [...stepPath, 'decoupled'],
        'TS-E032',
        `Native ${step.kind} steps answer each request once; remove "decoupled" from step "${step.name}".`,
      );
    }
    checkInstanceGroups(step, pipeline.steps[step.index]?.instanceGroups !== undefined, report);
  }

  // --- wires -------------------------------------------------------------------------------
  const ensembleInputs = new Map(inputs.map((p) => [p.name, p]));
  const ensembleOutputs = new Map(outputs.map((p) => [p.name, p]));
  const resolveEndpoint = (ref: string, path: JsonPath, role: 'from' | 'to'): Endpoint | undefined => {
    const dot = ref.indexOf('.');
    const stepName = dot > 0 ? ref.slice(0, dot) : undefined;
    const step = stepName !== undefined ? stepByName.get(stepName) : undefined;
    if (step) {
      // Its ports are unknown while its preset is wrong; that error is reported once, on the preset.
      if (presetProblem.has(step)) return undefined;
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
      const names = own.map((p) => p.name);
      if (role === 'to') stepsWithBrokenWires.add(step);
      report(
        path,
        'TS-E011',
        `Step "${step.name}" has no ${role === 'from' ? 'output' : 'input'} "${portName}"` +
          (names.length ? `; its ${role === 'from' ? 'outputs' : 'inputs'} are ${names.join(', ')}.` : '.'),
      );
      return undefined;
    }
    const own = role === 'from' ? ensembleInputs : ensembleOutputs;
    const other = role === 'from' ? ensembleOutputs : ensembleInputs;
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
  };

  interface Connection {
    index: number;
    from: Endpoint;
    to: Endpoint;
    tensor?: string;
  }
  const connections: Connection[] = [];
  const wiredInto = new Map<string, number>();
  /** Ends of wires whose other end is broken: not reported again as unused or unwired. */
  const halfWired = new Set<string>();
  const endKey = (e: Endpoint): string =>
    e.kind === 'step'
      ? `${e.step.name}.${e.port.name}`
      : `${e.side === 'input' ? '<in>' : '<out>'}${e.port.name}`;
  pipeline.wires.forEach((wire, index) => {
    const from = resolveEndpoint(wire.from, ['wires', index, 'from'], 'from');
    const to = resolveEndpoint(wire.to, ['wires', index, 'to'], 'to');
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
    const toKey = to.kind === 'step' ? `${to.step.name}.${to.port.name}` : `<out>${to.port.name}`;
    const first = wiredInto.get(toKey);
    if (first !== undefined) {
      report(
        ['wires', index, 'to'],
        'TS-E015',
        `"${wire.to}" is already wired by wires[${first}] (from "${pipeline.wires[first]!.from}"); an input takes one wire. Remove one.`,
      );
      return;
    }
    wiredInto.set(toKey, index);
    checkCompatible(from, to, ['wires', index], ensembleBatch, report);
    connections.push({ index, from, to, tensor: wire.tensor });
  });

  // Required step inputs, produced ensemble outputs, used ensemble inputs.
  for (const step of steps) {
    for (const p of step.inputs) {
      const key = `${step.name}.${p.name}`;
      const excused = halfWired.has(key) || stepsWithBrokenWires.has(step) || presetProblem.has(step);
      if (!p.optional && !wiredInto.has(key) && !excused) {
        report(
          p.path,
          'TS-E014',
          `Input "${p.name}" of step "${step.name}" is not wired; add a wire { "from": …, "to": "${step.name}.${p.name}" } or mark it optional.`,
        );
      }
    }
  }
  for (const o of outputs) {
    if (!wiredInto.has(`<out>${o.name}`) && !halfWired.has(`<out>${o.name}`)) {
      report(o.path, 'TS-E018', `No step produces ensemble output "${o.name}"; wire a step output to it.`);
    }
  }
  for (const i of inputs) {
    const used = connections.some((c) => c.from.kind === 'ensemble' && c.from.port.name === i.name);
    if (!used && !halfWired.has(`<in>${i.name}`)) {
      report(
        i.path,
        'TS-E021',
        `Ensemble input "${i.name}" is used by no step; Triton rejects unused ensemble inputs. Wire it or remove it.`,
      );
    }
  }

  // One ensemble tensor per producer: an output wired to an ensemble output takes that name.
  const tensorOf = new Map<string, string>();
  const outputMap = new Map<string, Map<string, string>>();
  const inputMap = new Map<string, Map<string, string>>();
  const taken = new Set([...inputs.map((p) => p.name), ...outputs.map((p) => p.name)]);
  for (const i of inputs) tensorOf.set(`<in>${i.name}`, i.name);
  const byProducer = new Map<string, Connection[]>();
  for (const c of connections) {
    if (c.from.kind !== 'step') continue;
    const key = `${c.from.step.name}.${c.from.port.name}`;
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
    const key =
      c.from.kind === 'ensemble' ? `<in>${c.from.port.name}` : `${c.from.step.name}.${c.from.port.name}`;
    const tensor = tensorOf.get(key);
    if (tensor !== undefined) mapFor(inputMap, c.to.step.name).set(c.to.port.name, tensor);
  }
  for (const step of steps) {
    for (const o of step.outputs) {
      if (!byProducer.has(`${step.name}.${o.name}`) && !halfWired.has(`${step.name}.${o.name}`)) {
        report(o.path, 'TS-W001', `Output "${o.name}" of step "${step.name}" is not used.`, 'info');
      }
    }
  }

  // Cycles: Triton runs steps as their inputs arrive; a loop never starts.
  const order = topologicalOrder(steps, connections);
  if (!order.ok) {
    const cycle = order.cycle;
    const wire = connections.find(
      (c) =>
        c.from.kind === 'step' &&
        c.to.kind === 'step' &&
        c.from.step === cycle[cycle.length - 1] &&
        c.to.step === cycle[0],
    );
    report(
      wire ? ['wires', wire.index] : cycle[0]!.path,
      'TS-E017',
      `The steps form a cycle (${[...cycle, cycle[0]!].map((s) => s.name).join(' → ')}); an ensemble must flow one way. Remove a wire.`,
    );
  }

  if (order.ok) checkDecoupledOrigins(order.steps, connections, report);

  const hasErrors = diagnostics.some((d) => d.severity === 'error');
  if (hasErrors || !order.ok) return { diagnostics };
  return {
    diagnostics,
    graph: {
      name: pipeline.name,
      maxBatchSize: ensembleBatch,
      maxInflightRequests: pipeline.maxInflightRequests,
      parameters: Object.fromEntries(
        Object.entries(pipeline.parameters ?? {}).map(([k, v]) => [k, String(v)]),
      ),
      inputs,
      outputs,
      steps: order.steps,
      inputMap,
      outputMap,
      tokenizerFiles,
    },
  };
}

/** Names a step's `files` may not take: what the generator or the build puts in `1/`. */
function reservedVersionFile(name: string, step: ResolvedStep): boolean {
  const native = step.kind === 'tokenize' || step.kind === 'detokenize';
  return (native && name === 'tokenizer.json') || /^libtriton_.*\.so$/.test(name);
}

/**
 * `files` are copied into the model's version folder. One that does not exist yet is allowed (with
 * a warning): model weights are often put into the generated repository by hand, and a later
 * generation keeps them there.
 */
function checkFiles(step: ResolvedStep, pipelineFile: string, report: Report): void {
  const seen = new Map<string, number>();
  step.files.forEach((f, i) => {
    const path = [...step.path, 'files', i];
    const full = isAbsolute(f) ? f : resolve(dirname(resolve(pipelineFile)), f);
    const name = basename(full);
    if (name === '' || name === '.' || name === '..' || hasControlChars(name)) {
      report(
        path,
        'TS-E055',
        `"${f}" does not name a file or folder to copy; give a path such as "weights/model.onnx".`,
      );
      return;
    }
    if (reservedVersionFile(name, step)) {
      report(
        path,
        'TS-E055',
        `"${name}" is a name the generator or the build writes into ${step.name}/1/; rename the file.`,
      );
      return;
    }
    const before = seen.get(name);
    if (before !== undefined) {
      report(
        path,
        'TS-E055',
        `files[${before}] and files[${i}] both land in ${step.name}/1/${name}; rename one of them.`,
      );
      return;
    }
    seen.set(name, i);
    if (!existsSync(full)) {
      report(
        path,
        'TS-W003',
        `${full} does not exist yet: put it (or the file itself) into <repository>/${step.name}/1/${name} before deploying; ` +
          'regenerating keeps it there.',
        'warning',
      );
    }
  });
}

function mapFor(m: Map<string, Map<string, string>>, key: string): Map<string, string> {
  let v = m.get(key);
  if (!v) m.set(key, (v = new Map()));
  return v;
}

type Report = (
  path: JsonPath,
  code: DiagnosticCode,
  message: string,
  severity?: Severity,
  key?: boolean,
) => void;

function checkTensorNames(ports: { name: string; path: JsonPath }[], what: string, report: Report): void {
  for (const p of ports) {
    if (hasControlChars(p.name)) {
      report(
        pathOfName(p.path),
        'TS-E041',
        `The name of this ${what} contains a control character (newline, tab…): Triton loads such a name, but every request, map and log that names it must reproduce it exactly. Rename it.`,
      );
    } else if (p.name.trim() !== p.name) {
      report(
        pathOfName(p.path),
        'TS-E041',
        `The name "${p.name}" of this ${what} starts or ends with white space; remove it.`,
      );
    }
  }
}

function pathOfName(path: JsonPath): JsonPath {
  // Ports from a preset point at the "preset" property itself.
  return path[path.length - 1] === 'preset' ? path : [...path, 'name'];
}

function checkDuplicates(ports: { name: string; path: JsonPath }[], what: string, report: Report): void {
  const seen = new Set<string>();
  for (const p of ports) {
    if (seen.has(p.name))
      report(
        pathOfName(p.path),
        'TS-E042',
        `"${p.name}" appears twice among the ${what}; names must be unique.`,
      );
    seen.add(p.name);
  }
}

function checkParameters(params: Record<string, unknown> | undefined, path: JsonPath, report: Report): void {
  for (const [k, v] of Object.entries(params ?? {})) {
    if (k === '' || hasControlChars(k)) {
      report(
        [...path, k],
        'TS-E043',
        `Parameter names must be non-empty and free of control characters; rename ${JSON.stringify(k)}.`,
        'error',
        true,
      );
    }
    if (typeof v === 'number' && !Number.isFinite(v)) {
      report([...path, k], 'TS-E043', `Parameter "${k}" must be a finite number or a string.`);
    }
  }
}

/** `"name": null` removes a preset's parameter; naming one the preset does not set removes nothing (a typo?). */
function checkRemovedParameters(
  step: ResolvedStep,
  own: Record<string, unknown> | undefined,
  report: Report,
): void {
  const preset = step.preset?.kind === step.kind ? step.preset : undefined;
  const set = Object.keys(preset?.template.parameters ?? {});
  for (const [k, v] of Object.entries(own ?? {})) {
    if (v !== null || set.includes(k)) continue;
    report(
      [...step.path, 'parameters', k],
      'TS-W006',
      `"${k}": null removes nothing: ${preset ? `preset "${preset.id}" sets no parameter "${k}"` : `step "${step.name}" has no preset`}` +
        `${set.length ? ` (it sets ${set.map((s) => `"${s}"`).join(', ')})` : ''}. Fix the name, or delete the entry.`,
      'warning',
      true,
    );
  }
}

function checkRoles(step: ResolvedStep, report: Report): void {
  const native = isNativeStepKind(step.kind) ? step.kind : undefined;
  for (const side of ['inputs', 'outputs'] as const) {
    const ports = step[side];
    if (!native) {
      for (const p of ports) {
        if (p.role !== undefined) {
          report(
            p.path,
            'TS-E053',
            `Port "${p.name}": roles are for tokenize/detokenize steps; remove "role" from this ${step.kind} step's port.`,
          );
        }
      }
      continue;
    }
    const allowed = Object.fromEntries(portRoles(native, side).map((r) => [r.role, r.required]));
    const seen = new Map<string, string>();
    let misassigned = false;
    for (const p of ports) {
      if (p.role === undefined) {
        misassigned = true;
        report(
          p.path,
          'TS-E053',
          `Port "${p.name}" of ${step.kind} step "${step.name}" needs a "role" (one of ${Object.keys(allowed).join(', ')}) so the native step knows what to do with it.`,
        );
        continue;
      }
      if (!(p.role in allowed)) {
        misassigned = true;
        report(
          p.path,
          'TS-E053',
          `Role "${p.role}" is not an ${side === 'inputs' ? 'input' : 'output'} role of a ${step.kind} step; use one of ${Object.keys(allowed).join(', ')}.`,
        );
        continue;
      }
      const prev = seen.get(p.role);
      if (prev !== undefined) {
        report(p.path, 'TS-E052', `Ports "${prev}" and "${p.name}" both have role "${p.role}"; keep one.`);
      }
      seen.set(p.role, p.name);
    }
    for (const [role, required] of Object.entries(allowed)) {
      if (required && !seen.has(role) && !misassigned) {
        report(
          step.path,
          'TS-E052',
          `${step.kind === 'tokenize' ? 'Tokenize' : 'Detokenize'} step "${step.name}" needs an ${side === 'inputs' ? 'input' : 'output'} with role "${role}".`,
        );
      }
    }
    if (
      step.kind === 'tokenize' &&
      side === 'outputs' &&
      seen.has('requestOutputLen') &&
      !step.inputs.some((p) => p.role === 'requestOutputLen')
    ) {
      report(
        step.path,
        'TS-E052',
        `Step "${step.name}" outputs requestOutputLen but has no input with that role to copy it from.`,
      );
    }
  }
}

/** Full shape as Triton compares it: with the implicit batch dimension when the model batches. */
function fullShape(dims: number[], maxBatchSize: number): number[] {
  return maxBatchSize > 0 ? [-1, ...dims] : dims;
}

function shapesCompatible(a: number[], b: number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === -1 || b[i] === -1 || d === b[i]);
}

function checkCompatible(
  from: Endpoint,
  to: Endpoint,
  path: JsonPath,
  ensembleBatch: number,
  report: Report,
): void {
  const a = from.port;
  const b = to.port;
  if (a.dataType === undefined || b.dataType === undefined || a.dims === undefined || b.dims === undefined)
    return;
  const label = (e: Endpoint): string =>
    e.kind === 'step' ? `${e.step.name}.${e.port.name}` : `ensemble ${e.side} ${e.port.name}`;
  // Only tokenize steps convert dtypes; Triton passes tensors between steps as they are.
  if (a.dataType !== b.dataType) {
    report(
      path,
      'TS-E012',
      `${label(from)} is ${a.dataType} but ${label(to)} expects ${b.dataType}; Triton does not convert between steps. ` +
        'Change one dataType (a tokenize step can convert requestOutputLen).',
    );
    return;
  }
  const mbs = (e: Endpoint): number => (e.kind === 'step' ? e.step.maxBatchSize : ensembleBatch);
  const sa = fullShape(a.dims, mbs(from));
  const sb = fullShape(b.dims, mbs(to));
  if (!shapesCompatible(sa, sb)) {
    report(
      path,
      'TS-E013',
      `${label(from)} has shape [${sa.join(', ')}] but ${label(to)} expects [${sb.join(', ')}] (batch dimension included); ` +
        'make the dims agree (-1 matches any size).',
    );
  }
}

function topologicalOrder(
  steps: ResolvedStep[],
  connections: { from: Endpoint; to: Endpoint }[],
): { ok: true; steps: ResolvedStep[] } | { ok: false; cycle: ResolvedStep[] } {
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

/**
 * Triton tracks, for every ensemble tensor, the decoupled step it comes from (through any
 * non-decoupled steps after it) and refuses a step whose inputs come from two different decoupled
 * steps: their responses cannot be paired up.
 */
function checkDecoupledOrigins(
  steps: ResolvedStep[],
  connections: { index: number; from: Endpoint; to: Endpoint }[],
  report: Report,
): void {
  const originOfStep = new Map<ResolvedStep, ResolvedStep | undefined>();
  for (const step of steps) {
    const incoming = connections.filter((c) => c.to.kind === 'step' && c.to.step === step);
    const origins = new Map<ResolvedStep, number>();
    for (const c of incoming) {
      if (c.from.kind !== 'step') continue;
      const o = c.from.step.decoupled ? c.from.step : originOfStep.get(c.from.step);
      if (o && !origins.has(o)) origins.set(o, c.index);
    }
    if (origins.size > 1) {
      const [a, b] = [...origins.keys()];
      report(
        ['wires', [...origins.values()][1]!],
        'TS-E032',
        `Step "${step.name}" receives inputs that come from two different decoupled steps ("${a!.name}" and "${b!.name}"); ` +
          'Triton rejects this because their streamed responses cannot be paired. Feed it from one decoupled step.',
      );
    }
    originOfStep.set(step, [...origins.keys()][0]);
    const instances = step.instanceGroups.reduce((n, g) => n + (g.count ?? 1), 0);
    if (
      step.kind === 'detokenize' &&
      origins.size > 0 &&
      step.parameters.streaming !== 'false' &&
      instances > 1
    ) {
      report(
        [...step.path, 'instanceGroups'],
        'TS-W004',
        `Step "${step.name}" decodes the streamed responses of "${[...origins.keys()][0]!.name}" with ${instances} instances, ` +
          'so the chunks of one answer can be decoded out of order. Give it one instance.',
        'warning',
      );
    }
  }
}

/**
 * Instance groups: GPUs listed for a CPU or MODEL group (Triton refuses to load the model), and a
 * native tokenize/detokenize step given GPU instances. Those steps run on the CPU only: on a GPU
 * server kind GPU (or AUTO, which becomes GPU there) makes `count` instances per GPU that never
 * use it, and a server without a GPU refuses to load the model.
 * `own`: the step lists its groups itself (else they come from its preset, where the range points).
 */
function checkInstanceGroups(step: ResolvedStep, own: boolean, report: Report): void {
  const native = step.kind === 'tokenize' || step.kind === 'detokenize';
  step.instanceGroups.forEach((g, i) => {
    const group: JsonPath = own ? [...step.path, 'instanceGroups', i] : [...step.path, 'preset'];
    const kind = g.kind ?? 'AUTO';
    const which = own
      ? `instanceGroups[${i}] of step "${step.name}"`
      : `The instance group of preset "${step.preset?.id}" (step "${step.name}")`;
    if ((kind === 'CPU' || kind === 'MODEL') && g.gpus?.length) {
      report(
        own ? [...group, 'gpus'] : group,
        'TS-E033',
        `${which} has kind ${kind} but lists gpus; Triton refuses to load such a model. ` +
          `Remove "gpus"${native ? '' : ', or use kind "GPU" to place instances on those GPUs'}.`,
      );
    } else if (native && (kind === 'GPU' || kind === 'AUTO' || g.gpus?.length)) {
      const field = g.kind !== undefined ? 'kind' : g.gpus?.length ? 'gpus' : undefined;
      report(
        own && field ? [...group, field] : group,
        'TS-W005',
        `${which} is ${g.kind === undefined ? 'of kind AUTO (GPU on a GPU server)' : `of kind ${kind}`}` +
          `${g.gpus?.length ? ' on GPUs' : ''}, but native ${step.kind} steps run on the CPU only: ` +
          'a server without a GPU refuses to load it, and on one with GPUs each instance holds a GPU it never uses. ' +
          'Use "kind": "CPU" (and no "gpus").',
        'warning',
      );
    }
  });
}

function presetHint(kind: StepKind): string {
  return `See docs/PIPELINE.md for the preset list (${kind} presets have ids like "sim-llm/${kind === 'tokenize' ? 'preprocessing' : kind === 'detokenize' ? 'postprocessing' : 'model'}").`;
}

function suggestName(name: string, names: string[]): string {
  const lower = name.toLowerCase();
  const hit = names.find(
    (n) =>
      n.toLowerCase() === lower || n.toLowerCase().startsWith(lower) || lower.startsWith(n.toLowerCase()),
  );
  return hit ? ` (did you mean "${hit}"?)` : '';
}
