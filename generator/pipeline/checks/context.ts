/**
 * What every check of a pipeline shares: the resolved steps and ensemble ports, the one way to
 * report a diagnostic, and the facts one check leaves for another (a step whose preset is wrong
 * has unknown ports, so the wiring checks stay quiet about it instead of echoing the error).
 */
import type { Diagnostic, DiagnosticCode, Severity } from '../../model/diagnostics.js';
import type { StepModules } from '../modules.js';
import {
  resolveEnsemblePorts,
  resolveSteps,
  type ResolvedEnsemblePort,
  type ResolvedStep,
} from '../resolve.js';
import type { JsonPath, SourceText } from '../source.js';
import type { Pipeline } from '../types.js';

export type Report = (
  path: JsonPath,
  code: DiagnosticCode,
  message: string,
  severity?: Severity,
  /** Point at the property's name instead of its value. */
  key?: boolean,
) => void;

export interface CheckContext {
  readonly pipeline: Pipeline;
  readonly source: SourceText;
  readonly steps: ResolvedStep[];
  readonly inputs: ResolvedEnsemblePort[];
  readonly outputs: ResolvedEnsemblePort[];
  /** The ensemble's maxBatchSize (0 = no batching). */
  readonly ensembleBatch: number;
  /** Steps by name; a step whose name is taken is left out (its own error says why). */
  readonly stepByName: Map<string, ResolvedStep>;
  /** Steps with an unknown or mismatched preset: their ports are unknown. */
  readonly presetProblem: Set<ResolvedStep>;
  /** Steps whose hooks module was not looked up or is broken: its inputs are unknown, the rest known. */
  readonly unknownModulePorts: Set<ResolvedStep>;
  readonly diagnostics: Diagnostic[];
  readonly report: Report;
}

/** `modules`: where the steps' TypeScript modules are read; without it their ports are unknown. */
export function createContext(pipeline: Pipeline, source: SourceText, modules?: StepModules): CheckContext {
  const diagnostics: Diagnostic[] = [];
  return {
    pipeline,
    source,
    steps: resolveSteps(pipeline, modules ? { modules, file: source.file } : undefined),
    inputs: resolveEnsemblePorts(pipeline, 'inputs'),
    outputs: resolveEnsemblePorts(pipeline, 'outputs'),
    ensembleBatch: pipeline.maxBatchSize ?? 0,
    stepByName: new Map(),
    presetProblem: new Set(),
    unknownModulePorts: new Set(),
    diagnostics,
    report: (path, code, message, severity = 'error', key = false) => {
      diagnostics.push({
        file: source.file,
        range: key ? source.keyRangeOf(path) : source.rangeOf(path),
        severity,
        code,
        message,
      });
    },
  };
}

/** Control characters (newline, tab, NUL…): no Triton name or generated file can carry them safely. */
export function hasControlChars(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

export function isNative(step: ResolvedStep): boolean {
  return step.kind === 'tokenize' || step.kind === 'detokenize';
}

/** Steps Triton Studio generates and builds, which run on the CPU and answer each request once. */
export function isGenerated(step: ResolvedStep): boolean {
  return isNative(step) || step.module?.property === 'source';
}

/** "native tokenize steps", "TypeScript custom steps": what a message calls a generated step's kind. */
export function generatedKind(step: ResolvedStep): string {
  return isNative(step) ? `native ${step.kind} steps` : 'TypeScript custom steps';
}
