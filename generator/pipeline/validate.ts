/**
 * Semantic checks of a (schema-valid) pipeline: names, presets, ports and roles, backends,
 * batching, instance groups, files, and every wire (endpoints, direction, dtype, shape, fan-in),
 * cycles and unproduced outputs — the mistakes Triton would otherwise report at load time, or not
 * at all. Each concern is one check in `./checks/`, over a shared context; the wired graph is
 * `./graph.ts`. `checkPipeline` reads nothing but the pipeline (fast enough for every keystroke);
 * `analyzePipeline` adds what the environment says (tokenizers found, files present) and returns
 * the graph the repository writer turns into the ensemble.
 */
import { checkWeights } from './checks/weights.js';
import type { Diagnostic } from '../model/diagnostics.js';
import { checkBackends } from './checks/backend.js';
import { checkBatching } from './checks/batching.js';
import { createContext, type CheckContext } from './checks/context.js';
import { checkDecoupled, reportEnsembleHookWarnings } from './checks/decoupled.js';
import { checkEncoderLengths, checkEncoderParameters } from './checks/encoderParameters.js';
import { checkFiles } from './checks/files.js';
import { checkInstanceGroups } from './checks/instanceGroups.js';
import { checkModules } from './checks/modules.js';
import { checkNames } from './checks/names.js';
import { checkParameters } from './checks/parameters.js';
import { checkThreads } from './checks/threads.js';
import { checkPresets } from './checks/presets.js';
import { checkRoles } from './checks/roles.js';
import { checkSamplePrompts } from './checks/samplePrompts.js';
import { checkServing } from './checks/serving.js';
import { checkStepConfigs } from './checks/stepConfig.js';
import { checkWiring } from './checks/wiring.js';
import {
  checkChatTemplates,
  checkEnvironment,
  nodeEnvironment,
  type EnvironmentOptions,
  type PipelineEnvironment,
} from './environment.js';
import { buildWiring, type EnsembleGraph, type PipelineGraph } from './graph.js';
import { nodeStepModules, type StepModules } from './modules.js';
import type { ResolvedStep } from './resolve.js';
import type { SourceText } from './source.js';
import type { Pipeline } from './types.js';

export type { EnsembleGraph, PipelineGraph } from './graph.js';

export interface AnalyzeOptions extends EnvironmentOptions {
  /** Where tokenizers and files are looked up; default the real file system (`nodeEnvironment`). */
  environment?: PipelineEnvironment;
  /** Where steps' TypeScript modules are read and compiled; default the file system, cached. */
  modules?: StepModules;
}

export interface CheckResult {
  diagnostics: Diagnostic[];
  /** Present when there are no errors. */
  graph?: EnsembleGraph;
  /** Every step resolved (presets merged, module ports added), errors or not. */
  steps: ResolvedStep[];
}

export interface AnalyzeResult {
  diagnostics: Diagnostic[];
  /** Present when there are no errors. */
  graph?: PipelineGraph;
  steps: ResolvedStep[];
}

/**
 * The checks that need nothing but the pipeline: no disk, no environment. Given `modules`, steps'
 * TypeScript modules are compiled too (cached per file version), so their ports are known;
 * without, those steps' module ports are unknown and wires to them are not judged.
 */
export function checkPipeline(pipeline: Pipeline, source: SourceText, modules?: StepModules): CheckResult {
  return runChecks(createContext(pipeline, source, modules));
}

export function analyzePipeline(
  pipeline: Pipeline,
  source: SourceText,
  options: AnalyzeOptions = {},
): AnalyzeResult {
  const ctx = createContext(pipeline, source, options.modules ?? nodeStepModules());
  const checked = runChecks(ctx);
  const environment = options.environment ?? nodeEnvironment(options);
  const tokenizerFiles = checkEnvironment(ctx, environment);
  const chatTemplates = checkChatTemplates(ctx, environment, tokenizerFiles);
  const weightFiles = checkWeights(ctx, environment.llamaDirs ?? [], (p) => environment.exists(p));
  checkThreads(ctx, environment.cpus);
  checkEncoderLengths(ctx, (step) => {
    const file = tokenizerFiles.get(step.name);
    return file ? environment.specialTokenCounts?.(file) : undefined;
  });
  const errors = ctx.diagnostics.some((d) => d.severity === 'error');
  return {
    diagnostics: ctx.diagnostics,
    graph:
      checked.graph && !errors ? { ...checked.graph, tokenizerFiles, chatTemplates, weightFiles } : undefined,
    steps: ctx.steps,
  };
}

function runChecks(ctx: CheckContext): CheckResult {
  // Names first: it indexes the steps the wiring resolves against; presets next: a step with a
  // wrong preset has unknown ports, and the later checks keep quiet about them.
  checkNames(ctx);
  checkPresets(ctx);
  checkModules(ctx);
  checkParameters(ctx);
  checkEncoderParameters(ctx);
  checkRoles(ctx);
  checkStepConfigs(ctx);
  checkBackends(ctx);
  checkFiles(ctx);
  checkBatching(ctx);
  checkInstanceGroups(ctx);
  checkSamplePrompts(ctx);
  const wiring = buildWiring(ctx);
  checkWiring(ctx, wiring);
  const ensembleHookWarnings = checkDecoupled(ctx, wiring);
  const { pipeline } = ctx;
  if (ctx.diagnostics.some((d) => d.severity === 'error') || !wiring.order.ok) {
    // The serving is not known yet: say what an ensemble would lack.
    reportEnsembleHookWarnings(ctx, ensembleHookWarnings);
    return { diagnostics: ctx.diagnostics, steps: ctx.steps };
  }
  const graph: EnsembleGraph = {
    name: pipeline.name,
    maxBatchSize: ctx.ensembleBatch,
    maxInflightRequests: pipeline.maxInflightRequests,
    parameters: Object.fromEntries(Object.entries(pipeline.parameters ?? {}).map(([k, v]) => [k, String(v)])),
    inputs: ctx.inputs,
    outputs: ctx.outputs,
    steps: wiring.order.steps,
    inputMap: wiring.inputMap,
    outputMap: wiring.outputMap,
    serving: 'ensemble',
  };
  graph.serving = checkServing(ctx, graph);
  if (graph.serving === 'ensemble') reportEnsembleHookWarnings(ctx, ensembleHookWarnings);
  if (ctx.diagnostics.some((d) => d.severity === 'error'))
    return { diagnostics: ctx.diagnostics, steps: ctx.steps };
  return { diagnostics: ctx.diagnostics, steps: ctx.steps, graph };
}
