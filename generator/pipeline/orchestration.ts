/**
 * Whether a pipeline can be served by the native orchestrator (one model that owns each request:
 * tokenize → the model step through the server API → incremental detokenize, the steps' TypeScript
 * hooks included), and how its wires
 * map onto it. The orchestrator runs the pipeline's own graph: the same tensors pass between the
 * same ports as in the ensemble, so the pipeline file does not change shape.
 */
import type { EnsembleGraph } from './graph.js';
import type { ResolvedEnsemblePort, ResolvedStep } from './resolve.js';
import type { Serving } from './types.js';

export interface OrchestratorPlan {
  tokenize: ResolvedStep;
  model: ResolvedStep;
  detokenize: ResolvedStep;
  /** tokenize step input → the ensemble input wired to it */
  tokenizeInputs: { step: string; client: string }[];
  /** model step inputs, each from a tokenize output or an ensemble input */
  modelInputs: { name: string; fromTokenize: boolean; source: string }[];
  /** the model outputs wired to the detokenize step's tokens and sequence lengths */
  tokensOutput: string;
  sequenceLengthOutput?: string;
  textOutput: ResolvedEnsemblePort;
  /** the ensemble input wired to the tokenize step's stop words: they end the text */
  stopWordsInput?: string;
}

export type OrchestratorPlanResult = { ok: true; plan: OrchestratorPlan } | { ok: false; reason: string };

/** A detokenize step decodes a decoupled step's responses: the case ensembles need ids for. */
export function streamsIntoDetokenize(graph: EnsembleGraph): ResolvedStep | undefined {
  const producer = producers(graph);
  const streaming = new Set<string>();
  for (const step of graph.steps) {
    const fed = [...(graph.inputMap.get(step.name)?.values() ?? [])].some((t) =>
      streaming.has(producer.get(t)?.step ?? ''),
    );
    if (fed && step.kind === 'detokenize') return step;
    if (step.decoupled || fed) streaming.add(step.name);
  }
  return undefined;
}

/** What `serving` comes to for this graph: the orchestrator only where a stream is detokenized. */
export function resolveServing(graph: EnsembleGraph, requested: Serving | undefined): Serving {
  if (requested === 'ensemble' || !streamsIntoDetokenize(graph)) return 'ensemble';
  return 'orchestrator';
}

/**
 * The three steps the orchestrator serves (one tokenize, one decoupled model, one detokenize, and
 * nothing else), or why a pipeline is not one it serves.
 */
function orchestratedSteps(
  graph: EnsembleGraph,
): { tokenize: ResolvedStep; detokenize: ResolvedStep; model: ResolvedStep } | string {
  const byKind = (kind: string) => graph.steps.filter((s) => s.kind === kind);
  const [tokenize, ...moreTokenize] = byKind('tokenize');
  const [detokenize, ...moreDetokenize] = byKind('detokenize');
  const [model, ...moreModels] = byKind('model');
  if (
    !tokenize ||
    !detokenize ||
    !model ||
    moreTokenize.length ||
    moreDetokenize.length ||
    moreModels.length
  ) {
    return 'it serves pipelines of one tokenize step, one model step and one detokenize step';
  }
  const others = graph.steps.filter((s) => s !== tokenize && s !== detokenize && s !== model);
  if (others.length > 0) return `step "${others[0]!.name}" is neither tokenize, model nor detokenize`;
  if (!model.decoupled) return `model step "${model.name}" is not decoupled`;
  // Both steps' hooks compile into the orchestrator's one library: two different modules must not
  // share a C++ namespace (it comes from the file name).
  const [pre, post] = [tokenize, detokenize].map((s) =>
    s.module?.hooks?.hooks.length ? s.module.loaded?.compiled : undefined,
  );
  if (pre && post && pre.fileName !== post.fileName && pre.namespace === post.namespace) {
    return `the hooks of "${tokenize.name}" and "${detokenize.name}" are two modules with one file name (${pre.namespace}), which one library cannot hold; rename one`;
  }
  return { tokenize, detokenize, model };
}

export function planOrchestrator(graph: EnsembleGraph): OrchestratorPlanResult {
  const fail = (reason: string): OrchestratorPlanResult => ({ ok: false, reason });
  const steps = orchestratedSteps(graph);
  if (typeof steps === 'string') return fail(steps);
  const { tokenize, detokenize, model } = steps;

  const inputNames = new Set(graph.inputs.map((p) => p.name));
  const producer = producers(graph);
  const inputsOf = (step: ResolvedStep) => [...(graph.inputMap.get(step.name) ?? new Map<string, string>())];

  const tokenizeInputs: OrchestratorPlan['tokenizeInputs'] = [];
  for (const [port, tensor] of inputsOf(tokenize)) {
    if (!inputNames.has(tensor)) return fail(`"${tokenize.name}.${port}" is not fed by an ensemble input`);
    tokenizeInputs.push({ step: port, client: tensor });
  }
  const modelInputs: OrchestratorPlan['modelInputs'] = [];
  for (const [port, tensor] of inputsOf(model)) {
    const from = producer.get(tensor);
    if (inputNames.has(tensor)) modelInputs.push({ name: port, fromTokenize: false, source: tensor });
    else if (from?.step === tokenize.name)
      modelInputs.push({ name: port, fromTokenize: true, source: from.port });
    else return fail(`"${model.name}.${port}" is fed neither by "${tokenize.name}" nor by an ensemble input`);
  }
  const roleOf = (step: ResolvedStep, port: string) =>
    [...step.inputs, ...step.outputs].find((p) => p.name === port)?.role;
  let tokensOutput: string | undefined;
  let sequenceLengthOutput: string | undefined;
  for (const [port, tensor] of inputsOf(detokenize)) {
    const from = producer.get(tensor);
    if (from?.step !== model.name) return fail(`"${detokenize.name}.${port}" is not fed by "${model.name}"`);
    if (roleOf(detokenize, port) === 'tokens') tokensOutput = from.port;
    else sequenceLengthOutput = from.port;
  }
  if (!tokensOutput) return fail(`"${detokenize.name}" gets no tokens from "${model.name}"`);
  if (graph.outputs.length !== 1)
    return fail('it has one output, the text; this pipeline has ' + graph.outputs.length);
  const textOutput = graph.outputs[0]!;
  const textFrom = producer.get(textOutput.name);
  if (textFrom?.step !== detokenize.name) {
    return fail(`ensemble output "${textOutput.name}" does not come from "${detokenize.name}"`);
  }
  const stopWords = tokenizeInputs.find((i) => roleOf(tokenize, i.step) === 'stopWords');
  return {
    ok: true,
    plan: {
      tokenize,
      model,
      detokenize,
      tokenizeInputs,
      modelInputs,
      tokensOutput,
      sequenceLengthOutput,
      textOutput,
      stopWordsInput: stopWords?.client,
    },
  };
}

/** Ensemble tensor → the step output that produces it. */
function producers(graph: EnsembleGraph): Map<string, { step: string; port: string }> {
  const out = new Map<string, { step: string; port: string }>();
  for (const [step, outputs] of graph.outputMap)
    for (const [port, tensor] of outputs) out.set(tensor, { step, port });
  return out;
}
