/** What import's parts share: a model folder as read, and the callbacks that note and write. */
import type { DiagnosticCode, Severity } from '../model/diagnostics.js';
import type { ModelConfig } from '../pbtxt/types.js';

/** A model folder of the repository with its parsed config.pbtxt. */
export interface LoadedModel {
  name: string;
  dir: string;
  configFile: string;
  config: ModelConfig;
}

/** Records a diagnostic against a file. */
export type Note = (file: string, code: DiagnosticCode, message: string, severity?: Severity) => void;

/** Writes a file import made (a tokenizer.json) beside the pipeline; returns its path. */
export type Emit = (text: string, step: string) => string;
