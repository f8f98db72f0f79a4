/**
 * Diagnostics: what the generator reports about a pipeline file. Positions are 0-based (as in
 * VS Code's `Range`); `formatDiagnostic` prints them 1-based, compiler-style.
 */

export type Severity = 'error' | 'warning' | 'info';

export interface Position {
  /** 0-based line. */
  line: number;
  /** 0-based column, in UTF-16 code units (what VS Code and JavaScript strings count). */
  column: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export interface Diagnostic {
  file: string;
  range: Range;
  severity: Severity;
  /** Stable code, e.g. `TS-E012`; every code is listed in `DIAGNOSTIC_CODES`. */
  code: DiagnosticCode;
  message: string;
}

/** Every code the generator emits, with a one-line summary (docs/PIPELINE.md lists them too). */
export const DIAGNOSTIC_CODES = {
  'TS-E001': 'the file is not valid JSON',
  'TS-E002': 'a required property is missing',
  'TS-E003': 'a value has the wrong type or is not one of the allowed values',
  'TS-E004': 'a property is not part of the pipeline format',
  'TS-E005': 'unsupported pipeline format version',
  'TS-E010': 'a wire names a step that does not exist',
  'TS-E011': 'a wire names a port that the step or ensemble does not have',
  'TS-E012': 'data types differ across a wire',
  'TS-E013': 'shapes differ across a wire',
  'TS-E014': 'a required step input is not wired',
  'TS-E015': 'a step input or ensemble output is wired more than once',
  'TS-E016': 'one step output is wired to two ensemble outputs',
  'TS-E017': 'the steps form a cycle',
  'TS-E018': 'an ensemble output is produced by no step',
  'TS-E019': 'a wire goes the wrong way (from an input, or into an output)',
  'TS-E020': 'an ensemble input is wired straight to an ensemble output',
  'TS-E021': 'an ensemble input is used by no step',
  'TS-E030': 'a step allows a smaller batch than the ensemble',
  'TS-E031': 'batching settings that Triton rejects or that need a batch dimension',
  'TS-E032': 'a decoupled step is wired where Triton rejects it',
  'TS-E033': 'an instance group that Triton rejects (gpus with kind CPU or MODEL)',
  'TS-E034': 'serving "orchestrator" asked for a pipeline the orchestrator cannot serve',
  'TS-E040': 'a model name that Triton or the file system rejects',
  'TS-E041': 'a tensor name with control characters or surrounding white space',
  'TS-E042': 'two steps, or two ports of one step, share a name',
  'TS-E043': 'a parameter key or value that cannot be written safely',
  'TS-E050': 'unknown preset',
  'TS-E051': 'the tokenizer cannot be found',
  'TS-E052': 'a tokenize/detokenize step lacks a port role it needs, or has one twice',
  'TS-E053': 'a port role that the step kind does not have',
  'TS-E054': 'a model or custom step names neither a backend nor a platform',
  'TS-E055': 'a step\'s "files" entry cannot be copied into its version folder (bad or clashing name)',
  'TS-E056': 'the tokenizer file is not a tokenizer.json (not JSON, or no "model")',
  'TS-E057': 'a tokenize step takes conversations (a messages port) but has no chat template',
  'TS-E058': 'a chat template cannot be parsed (at its place in the template, and on the step naming it)',
  'TS-E059':
    'a step\'s "files" entry outside the pipeline\'s folder (and the folders allowed in TRITON_STUDIO_FILES_ALLOW)',
  'TS-E060': 'the output folder holds files Triton Studio did not generate',
  'TS-E061': 'the repository could not be written',
  'TS-E062': "a llama.cpp step's n_threads is not a whole number ≥ 0",
  'TS-E070': 'config.pbtxt syntax error or a field Triton does not know',
  'TS-E071': 'a repository cannot be imported as written',
  'TS-E072': 'a config.pbtxt holds an unfilled template placeholder `${name}`',
  'TS-E080': 'a TypeScript step or hook uses something outside the compiled subset (docs/HOOKS.md)',
  'TS-E081': 'a TypeScript step or hook does not type-check',
  'TS-E082': 'the TypeScript module a step names ("hooks" or "source") cannot be read',
  'TS-E083': 'the TypeScript module a step names does not compile (its own errors are listed too)',
  'TS-E084':
    'a TypeScript module does not fit its step (hook signatures, custom step types, wrong step kind)',
  'TS-E085': 'a parameter a TypeScript custom step reads is not set',
  'TS-E090':
    "a tokenize step's truncation/padding count out of range (max_length, stride, padding_length, pad_to_multiple_of)",
  'TS-E091': "a tokenize step's truncation/padding strategy or direction that does not exist",
  'TS-E092': 'a tokenize step with padding_strategy "fixed" but no padding_length',
  'TS-E101': 'a llama.cpp step names model weights (parameters.gguf) that are not downloaded yet',
  'TS-W001': 'a step output is used by nothing (allowed; noted for clarity)',
  'TS-W002': 'an imported Python step is kept as it is (not turned into a native step)',
  'TS-W003': 'a file listed in "files" does not exist yet; it is expected in the repository',
  'TS-W004': 'a detokenize step that decodes streamed responses has more than one instance',
  'TS-W005': 'a native tokenize/detokenize step given GPU instances (it runs on the CPU only)',
  'TS-W006': 'a step parameter set to null (remove) that its preset does not set',
  'TS-W007': 'an `import --set NAME=VALUE` whose NAME is a placeholder in no config.pbtxt',
  'TS-W009': 'a hooks module exports no hook the step calls',
  'TS-W010': 'a hook that cannot work fully where its detokenize step streams in an ensemble',
  'TS-W008':
    'import dropped or changed an ensemble input, output or parameter, or a step parameter (says which and why)',
  'TS-W011': 'a streaming pipeline served as a Triton ensemble: exact streams need a unique request id',
  'TS-W012': 'sample prompts that cannot be sent (no STRING ensemble input) or that repeat one another',
  'TS-W013': "a llama.cpp step's n_threads leaves no CPU free on this machine (ggml's threads spin-wait)",
  'TS-W014':
    "a chat template the editor's parser (@huggingface/jinja) refuses, where no native build can decide",
  'TS-W090': "a tokenize step's stride not below the length a text is cut to (Hugging Face aborts there)",
  'TS-W091': "a tokenize step's max_length below the special tokens' count (Hugging Face skips truncation)",
  'TS-W071': 'an imported step becomes native without its optional Python-only tensors',
  'TS-W072': 'an imported Python instance pool becomes one native instance',
  'TS-W073': 'a model the imported ensemble does not use is left out of the pipeline',
} as const;

export type DiagnosticCode = keyof typeof DIAGNOSTIC_CODES;

export const ZERO_RANGE: Range = { start: { line: 0, column: 0 }, end: { line: 0, column: 0 } };

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

/** `file:line:col: error TS-E012: message`, 1-based like compilers print it. */
export function formatDiagnostic(d: Diagnostic): string {
  return `${d.file}:${d.range.start.line + 1}:${d.range.start.column + 1}: ${d.severity} ${d.code}: ${d.message}`;
}

/** Orders diagnostics by position, so output is stable and reads top to bottom. */
export function sortDiagnostics(diagnostics: Diagnostic[]): Diagnostic[] {
  return diagnostics.sort(
    (a, b) =>
      a.file.localeCompare(b.file) ||
      a.range.start.line - b.range.start.line ||
      a.range.start.column - b.range.start.column ||
      a.code.localeCompare(b.code),
  );
}
