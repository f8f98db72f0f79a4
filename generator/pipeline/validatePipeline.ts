/**
 * One call for editors and the CLI: text → every diagnostic (syntax, schema, semantics), sorted.
 * With `environment: false` only the checks that read nothing but the text run — what an editor
 * runs on each keystroke (see bench/generator); by default tokenizers and files are looked up too.
 */
import { sortDiagnostics, type Diagnostic } from '../model/diagnostics.js';
import { parsePipeline } from './parse.js';
import type { PipelineEnvironment } from './environment.js';
import {
  analyzePipeline,
  checkPipeline,
  type AnalyzeOptions,
  type EnsembleGraph,
  type PipelineGraph,
} from './validate.js';
import type { Pipeline } from './types.js';

export interface ValidateOptions extends Omit<AnalyzeOptions, 'environment'> {
  /** `false`: the pure checks only (no tokenizer or file lookups); else as `analyzePipeline`. */
  environment?: PipelineEnvironment | false;
}

export interface ValidateResult {
  diagnostics: Diagnostic[];
  pipeline?: Pipeline;
  /** A `PipelineGraph` (with tokenizer files) unless `environment: false`. */
  graph?: EnsembleGraph | PipelineGraph;
}

export function validatePipeline(text: string, file: string, options: ValidateOptions = {}): ValidateResult {
  const parsed = parsePipeline(text, file);
  if (!parsed.pipeline) return { diagnostics: sortDiagnostics(parsed.diagnostics) };
  const { environment, ...rest } = options;
  const analyzed =
    environment === false
      ? checkPipeline(parsed.pipeline, parsed.source)
      : analyzePipeline(parsed.pipeline, parsed.source, { ...rest, environment });
  return {
    diagnostics: sortDiagnostics([...parsed.diagnostics, ...analyzed.diagnostics]),
    pipeline: parsed.pipeline,
    graph: analyzed.graph,
  };
}
