/**
 * One call for editors and the CLI: text → every diagnostic (syntax, schema, semantics), sorted.
 * Fast enough to run on each keystroke (see bench/generator).
 */
import { sortDiagnostics, type Diagnostic } from '../model/diagnostics.js';
import { parsePipeline } from './parse.js';
import { analyzePipeline, type AnalyzeOptions, type PipelineGraph } from './validate.js';
import type { Pipeline } from './types.js';

export type ValidateOptions = AnalyzeOptions;

export interface ValidateResult {
  diagnostics: Diagnostic[];
  pipeline?: Pipeline;
  graph?: PipelineGraph;
}

export function validatePipeline(text: string, file: string, options: ValidateOptions = {}): ValidateResult {
  const parsed = parsePipeline(text, file);
  if (!parsed.pipeline) return { diagnostics: sortDiagnostics(parsed.diagnostics) };
  const analyzed = analyzePipeline(parsed.pipeline, parsed.source, options);
  return {
    diagnostics: sortDiagnostics([...parsed.diagnostics, ...analyzed.diagnostics]),
    pipeline: parsed.pipeline,
    graph: analyzed.graph,
  };
}
