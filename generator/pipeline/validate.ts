/**
 * Semantic checks of a (schema-valid) pipeline: names, presets, ports and roles, backends,
 * batching, instance groups, files, and every wire (endpoints, direction, dtype, shape, fan-in),
 * cycles and unproduced outputs — the mistakes Triton would otherwise report at load time, or not
 * at all. Each concern is one check in `./checks/`, over a shared context; the wired graph is
 * `./graph.ts`. `checkPipeline` reads nothing but the pipeline (fast enough for every keystroke);
 * `analyzePipeline` adds what the environment says (tokenizers found, files present) and returns
 * the graph the repository writer turns into the ensemble.
 */
import type { Diagnostic } from '../model/diagnostics.js';
import { checkBackends } from './checks/backend.js';
import { checkBatching } from './checks/batching.js';
import { createContext, type CheckContext } from './checks/context.js';
import { checkDecoupled } from './checks/decoupled.js';
import { checkFiles } from './checks/files.js';
import { checkInstanceGroups } from './checks/instanceGroups.js';
import { checkNames } from './checks/names.js';
import { checkParameters } from './checks/parameters.js';
import { checkPresets } from './checks/presets.js';
import { checkRoles } from './checks/roles.js';
import { checkStepConfigs } from './checks/stepConfig.js';
import { checkWiring } from './checks/wiring.js';
import {
  checkEnvironment,
  nodeEnvironment,
  type EnvironmentOptions,
  type PipelineEnvironment,
} from './environment.js';
import { buildWiring, type EnsembleGraph, type PipelineGraph } from './graph.js';
import type { SourceText } from './source.js';
import type { Pipeline } from './types.js';

export type { EnsembleGraph, PipelineGraph } from './graph.js';

export interface AnalyzeOptions extends EnvironmentOptions {
  /** Where tokenizers and files are looked up; default the real file system (`nodeEnvironment`). */
  environment?: PipelineEnvironment;
}

export interface CheckResult {
  diagnostics: Diagnostic[];
  /** Present when there are no errors. */
  graph?: EnsembleGraph;
}

export interface AnalyzeResult {
  diagnostics: Diagnostic[];
  /** Present when there are no errors. */
  graph?: PipelineGraph;
}

/** The checks that need nothing but the pipeline: no disk, no environment. */
export function checkPipeline(pipeline: Pipeline, source: SourceText): CheckResult {
  return runChecks(createContext(pipeline, source));
}

export function analyzePipeline(
  pipeline: Pipeline,
  source: SourceText,
  options: AnalyzeOptions = {},
): AnalyzeResult {
  const ctx = createContext(pipeline, source);
  const checked = runChecks(ctx);
  const tokenizerFiles = checkEnvironment(ctx, options.environment ?? nodeEnvironment(options));
  const errors = ctx.diagnostics.some((d) => d.severity === 'error');
  return {
    diagnostics: ctx.diagnostics,
    graph: checked.graph && !errors ? { ...checked.graph, tokenizerFiles } : undefined,
  };
}

function runChecks(ctx: CheckContext): CheckResult {
  // Names first: it indexes the steps the wiring resolves against; presets next: a step with a
  // wrong preset has unknown ports, and the later checks keep quiet about them.
  checkNames(ctx);
  checkPresets(ctx);
  checkParameters(ctx);
  checkRoles(ctx);
  checkStepConfigs(ctx);
  checkBackends(ctx);
  checkFiles(ctx);
  checkBatching(ctx);
  checkInstanceGroups(ctx);
  const wiring = buildWiring(ctx);
  checkWiring(ctx, wiring);
  checkDecoupled(ctx, wiring);
  const { pipeline } = ctx;
  if (ctx.diagnostics.some((d) => d.severity === 'error') || !wiring.order.ok) {
    return { diagnostics: ctx.diagnostics };
  }
  return {
    diagnostics: ctx.diagnostics,
    graph: {
      name: pipeline.name,
      maxBatchSize: ctx.ensembleBatch,
      maxInflightRequests: pipeline.maxInflightRequests,
      parameters: Object.fromEntries(
        Object.entries(pipeline.parameters ?? {}).map(([k, v]) => [k, String(v)]),
      ),
      inputs: ctx.inputs,
      outputs: ctx.outputs,
      steps: wiring.order.steps,
      inputMap: wiring.inputMap,
      outputMap: wiring.outputMap,
    },
  };
}
