/**
 * `importRepository`: an existing Triton model repository (an ensemble and its steps, Python
 * pre/post-processing included) → a pipeline file. Python tokenizer steps become native
 * tokenize/detokenize steps when their tokenizer is found (a `tokenizer_dir` parameter, or a
 * tokenizer.json in the model folder) and their tensors are ones a native step speaks; otherwise
 * they are kept as they are, with a warning saying why. Nothing of a config is dropped silently:
 * fields the pipeline format has no name for travel in the step's raw `config`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { parsePbtxt } from '../pbtxt/parse.js';
import { ZERO_RANGE, type Diagnostic, type DiagnosticCode, type Severity } from '../model/diagnostics.js';
import type { Pipeline } from '../pipeline/types.js';
import { convertStep } from './convertStep.js';
import { fillTemplate } from './fillTemplate.js';
import { fromEnsemble, fromSingleModel, noteModelsLeftOut } from './fromEnsemble.js';
import type { LoadedModel, Note } from './types.js';

export interface ImportOptions {
  /** Where the pipeline file will be written: paths in it are made relative to its folder. */
  outFile?: string;
  /** Which ensemble to import when the repository has several. */
  ensemble?: string;
  /** Template placeholders to fill in every config.pbtxt first, as fill_template.py does. */
  set?: Record<string, string>;
}

export interface ImportResult {
  /** The pipeline as JSON text (absent when the repository cannot be imported). */
  pipelineText?: string;
  pipeline?: Pipeline;
  diagnostics: Diagnostic[];
  /**
   * Files the pipeline refers to that import made (absolute path → text): the tokenizer.json of a
   * step that ships GPT-2-style vocab.json + merges.txt. The caller writes them with the pipeline.
   */
  files?: Record<string, string>;
}

export function importRepository(repoDir: string, options: ImportOptions = {}): ImportResult {
  const repo = resolve(repoDir);
  const outDir = dirname(resolve(options.outFile ?? join(process.cwd(), 'imported.pipeline.json')));
  const diagnostics: Diagnostic[] = [];
  const note = (file: string, code: DiagnosticCode, message: string, severity: Severity = 'error'): void => {
    diagnostics.push({ file, range: ZERO_RANGE, severity, code, message });
  };
  const rel = (p: string): string => {
    const r = relative(outDir, p).split(sep).join('/');
    return r.startsWith('.') ? r : `./${r}`;
  };

  if (!existsSync(repo) || !statSync(repo).isDirectory()) {
    note(
      repo,
      'TS-E071',
      `${repo} is not a folder; give the model repository (the folder holding one folder per model).`,
    );
    return { diagnostics };
  }

  const models = readModels(repo, options.set ?? {}, diagnostics, note);
  if (diagnostics.some((d) => d.severity === 'error')) return { diagnostics };
  if (models.size === 0) {
    note(
      repo,
      'TS-E071',
      `${repo} holds no model folder with a config.pbtxt; is this a Triton model repository?`,
    );
    return { diagnostics };
  }

  const ensemble = chooseEnsemble(repo, models, options.ensemble, note);
  if (ensemble === null) return { diagnostics };
  const pipeline: Pipeline = ensemble
    ? fromEnsemble(ensemble, models, note)
    : (() => {
        if (models.size > 1) {
          note(
            repo,
            'TS-E071',
            `${repo} has no ensemble and several models; an import starts from an ensemble (or one model).`,
          );
          return undefined as unknown as Pipeline;
        }
        return fromSingleModel([...models.values()][0]!);
      })();
  if (!pipeline) return { diagnostics };

  // Tokenizers made from vocab + merges: one file per distinct content, beside the pipeline file.
  const files: Record<string, string> = {};
  const stem = basename(options.outFile ?? 'imported.pipeline.json').replace(/\.pipeline\.json$/, '');
  const emit = (text: string, step: string): string => {
    const existing = Object.keys(files).find((f) => files[f] === text);
    if (existing) return existing;
    const file = join(outDir, `${stem}.${step}.tokenizer.json`);
    files[file] = text;
    return file;
  };
  // Turn each step's model into a pipeline step.
  pipeline.steps = pipeline.steps.map((placeholder) => {
    const model = models.get(placeholder.name)!;
    return convertStep(model, pipeline, note, rel, emit);
  });
  if (ensemble) noteModelsLeftOut(ensemble, models, pipeline, note);
  const pipelineText = `${JSON.stringify(pipeline, null, 2)}\n`;
  return { pipelineText, pipeline, diagnostics, ...(Object.keys(files).length ? { files } : {}) };
}

/** Every model folder with a config.pbtxt, its placeholders filled; parse errors go to `diagnostics`. */
function readModels(
  repo: string,
  set: Record<string, string>,
  diagnostics: Diagnostic[],
  note: Note,
): Map<string, LoadedModel> {
  const models = new Map<string, LoadedModel>();
  const filled = new Set<string>();
  for (const entry of readdirSync(repo, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const configFile = join(repo, entry.name, 'config.pbtxt');
    if (!existsSync(configFile)) continue;
    const text = fillTemplate(readFileSync(configFile, 'utf8'), set, filled);
    const parsed = parsePbtxt(text, configFile);
    diagnostics.push(...parsed.diagnostics);
    if (parsed.config) {
      models.set(entry.name, {
        name: entry.name,
        dir: join(repo, entry.name),
        configFile,
        config: parsed.config,
      });
    }
  }
  for (const name of Object.keys(set)) {
    if (!filled.has(name))
      note(
        repo,
        'TS-W007',
        `--set ${name}: no config.pbtxt in ${repo} has a placeholder \${${name}}.`,
        'warning',
      );
  }
  return models;
}

/** The ensemble to import: the one named, else the only one; undefined when there is none, null
 * (with a diagnostic) when the choice cannot be made. */
function chooseEnsemble(
  repo: string,
  models: Map<string, LoadedModel>,
  wanted: string | undefined,
  note: Note,
): LoadedModel | undefined | null {
  const ensembles = [...models.values()].filter((m) => m.config.platform === 'ensemble');
  if (wanted !== undefined) {
    const ensemble = ensembles.find((e) => e.name === wanted);
    if (!ensemble) {
      note(
        repo,
        'TS-E071',
        `No ensemble named "${wanted}" in ${repo}; ensembles there: ${ensembles.map((e) => e.name).join(', ') || 'none'}.`,
      );
      return null;
    }
    return ensemble;
  }
  if (ensembles.length > 1) {
    note(
      repo,
      'TS-E071',
      `${repo} holds several ensembles (${ensembles.map((e) => e.name).join(', ')}); choose one to import.`,
    );
    return null;
  }
  return ensembles[0];
}
