/**
 * One call for editors and the CLI: text → every diagnostic (syntax, schema, semantics), sorted.
 * With `environment: false` only the checks that read nothing but the text run — what an editor
 * runs on each keystroke (see bench/generator); by default tokenizers and files are looked up too.
 * Steps' TypeScript modules are compiled either way (cached per file version: their ports are
 * part of the graph) unless `modules: false`.
 */
import { sortDiagnostics, type Diagnostic } from '../model/diagnostics.js';
import { parsePipeline } from './parse.js';
import type { PipelineEnvironment } from './environment.js';
import { nodeStepModules, type StepModules } from './modules.js';
import type { ResolvedStep } from './resolve.js';
import {
  analyzePipeline,
  checkPipeline,
  type AnalyzeOptions,
  type EnsembleGraph,
  type PipelineGraph,
} from './validate.js';
import type { Pipeline } from './types.js';

export interface ValidateOptions extends Omit<AnalyzeOptions, 'environment' | 'modules'> {
  /** `false`: the pure checks only (no tokenizer or file lookups); else as `analyzePipeline`. */
  environment?: PipelineEnvironment | false;
  /** Where steps' TypeScript modules come from; `false`: not compiled (their ports stay unknown). */
  modules?: StepModules | false;
}

export interface ValidateResult {
  diagnostics: Diagnostic[];
  pipeline?: Pipeline;
  /** A `PipelineGraph` (with tokenizer files) unless `environment: false`. */
  graph?: EnsembleGraph | PipelineGraph;
  /** The steps as validated: presets merged, module ports (hook inputs, custom step tensors) added. */
  steps?: ResolvedStep[];
}

export function validatePipeline(text: string, file: string, options: ValidateOptions = {}): ValidateResult {
  const parsed = parsePipeline(text, file);
  if (!parsed.pipeline) return { diagnostics: sortDiagnostics(parsed.diagnostics) };
  const { environment, modules: given, ...rest } = options;
  const modules = given === false ? undefined : (given ?? nodeStepModules());
  const analyzed =
    environment === false
      ? checkPipeline(parsed.pipeline, parsed.source, modules)
      : analyzePipeline(parsed.pipeline, parsed.source, { ...rest, environment, modules });
  return {
    diagnostics: sortDiagnostics([...parsed.diagnostics, ...analyzed.diagnostics]),
    pipeline: parsed.pipeline,
    graph: analyzed.graph,
    steps: analyzed.steps,
  };
}
