/**
 * `generateRepository`: pipeline file → Triton model repository (configs, tokenizer data,
 * manifest) and, beside it, the native steps' sources (`REPO.src/`, see layout.ts). Refuses to
 * write anything when the pipeline has errors.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative, resolve, sep } from 'node:path';
import {
  cppStringLiteral,
  NativeStepCodegenError,
  renderNativeStep,
  renderOrchestrator,
} from '../codegen/cpp/index.js';
import { CustomStepError, renderCustomStep } from '../codegen/cpp/customStep.js';
import type { NativeStepModel, TensorBinding } from '../codegen/nativeStep.js';
import type { Serving } from '../pipeline/types.js';
import { printPbtxt } from '../pbtxt/print.js';
import { hasErrors, sortDiagnostics, type Diagnostic } from '../model/diagnostics.js';
import { loadPipeline, parsePipeline } from '../pipeline/parse.js';
import { analyzePipeline } from '../pipeline/validate.js';
import { GENERATED_MARKER, MANIFEST_FILE, sha256, type Manifest } from './manifest.js';
import { stepSourcesDir } from './layout.js';
import { buildModels, type GeneratedModel } from './models.js';
import { RepositoryWriteError, writeTrees, type PlannedFile } from './writeTree.js';

export interface GenerateOptions {
  pipelinePath: string;
  /** Repository folder to create or replace (only if Triton Studio generated it). */
  outDir: string;
  /** The pipeline's text when it differs from the file on disk (an unsaved editor buffer). */
  pipelineText?: string;
  tokenizerSearchDirs?: string[];
  /** Llama folders searched for weights named in `parameters.gguf`, before the checkout's `.cache/llama`. */
  llamaDirs?: string[];
  /** Plan and check only; write nothing. */
  dryRun?: boolean;
  /** Overrides the pipeline's `serving` (what clients call when a stream is detokenized). */
  serving?: Serving;
}

export interface GenerateResult {
  diagnostics: Diagnostic[];
  /** Repository-relative paths of every file written (or planned, with dryRun). */
  files: string[];
  /** The native steps' sources folder (`stepSourcesDir(outDir)`), and its files relative to it. */
  sourcesDir: string;
  sourceFiles: string[];
  /** The model clients call, under the pipeline's name (an ensemble or the native orchestrator). */
  ensembleName?: string;
  /** What `ensembleName` is: 'orchestrator' when the native orchestrator serves the pipeline. */
  serving?: Serving;
  /** The pipeline's `target.arch`, when it names one (kept in the manifest for `build`). */
  targetArch?: string;
  models: { name: string; kind: GeneratedModel['kind'] }[];
  outDir: string;
}

export function pbtxtHeader(pipelineFile: string): string[] {
  return [
    `${GENERATED_MARKER} from ${basename(pipelineFile)}.`,
    'Do not edit: change the pipeline file and regenerate.',
  ];
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join('/'))
    .sort();
}

function manifestFile(
  files: PlannedFile[],
  models: GeneratedModel[],
  pipelineFile: string,
  ensembleName: string,
  expected: string[],
  targetArch: string | undefined,
): PlannedFile {
  const manifest: Manifest = {
    generatedBy: GENERATED_MARKER,
    formatVersion: 1,
    pipeline: basename(pipelineFile),
    ensemble: ensembleName,
    models: models.map((m) => ({ name: m.name, kind: m.kind })),
    expected,
    ...(targetArch && { targetArch }),
    files: Object.fromEntries(
      files.map((f) => [f.path, sha256(f.content !== undefined ? f.content : readFileSync(f.copyFrom!))]),
    ),
  };
  return { path: MANIFEST_FILE, content: `${JSON.stringify(manifest, null, 2)}\n` };
}

/**
 * Every file of the repository and of its step sources folder (each with its own manifest, which
 * protects hand edits the same way), in memory. Exported for tests and benchmarks.
 */
export function planRepository(
  models: GeneratedModel[],
  pipelineFile: string,
  ensembleName: string,
  targetArch?: string,
): { files: PlannedFile[]; sources: PlannedFile[]; expected: string[] } {
  const files: PlannedFile[] = [];
  const sources: PlannedFile[] = [];
  const expected: string[] = [];
  const header = pbtxtHeader(pipelineFile);
  for (const m of models) {
    files.push({ path: `${m.name}/config.pbtxt`, content: printPbtxt(m.config, { header }) });
    for (const f of m.versionFiles) {
      const path = `${m.name}/1/${f.name}`;
      if (!existsSync(f.source))
        expected.push(path); // supplied by hand into the repository (validation warned)
      else if (statSync(f.source).isDirectory()) {
        for (const rel of listFiles(f.source))
          files.push({ path: `${path}/${rel}`, copyFrom: join(f.source, rel) });
      } else files.push({ path, copyFrom: f.source });
    }
    if (m.nativeStep) {
      const rendered = renderNativeStep(m.nativeStep);
      assertEveryBindingRendered(m.nativeStep, rendered['step.cc']);
      sources.push({ path: `${m.name}/step.cc`, content: rendered['step.cc'] });
      sources.push({ path: `${m.name}/CMakeLists.txt`, content: rendered['CMakeLists.txt'] });
      if (rendered['module.h'] !== undefined)
        sources.push({ path: `${m.name}/module.h`, content: rendered['module.h'] });
    }
    if (m.customModule) {
      const rendered = renderCustomStep(m.customModule, m.name, m.budget);
      for (const [name, content] of Object.entries(rendered.files))
        sources.push({ path: `${m.name}/${name}`, content });
    }
    if (m.orchestrator) {
      const rendered = renderOrchestrator(m.orchestrator);
      assertEveryBindingRendered(m.orchestrator.tokenize, rendered['step.cc']);
      assertEveryBindingRendered(m.orchestrator.detokenize, rendered['step.cc']);
      sources.push({ path: `${m.name}/step.cc`, content: rendered['step.cc'] });
      sources.push({ path: `${m.name}/CMakeLists.txt`, content: rendered['CMakeLists.txt'] });
      for (const header of ['module.h', 'detokenize_module.h'] as const) {
        const content = rendered[header];
        if (content !== undefined) sources.push({ path: `${m.name}/${header}`, content });
      }
    }
  }
  files.push(manifestFile(files, models, pipelineFile, ensembleName, expected, targetArch));
  if (sources.length > 0) {
    const native = models.filter((m) => m.nativeStep || m.customModule || m.orchestrator);
    sources.push(manifestFile(sources, native, pipelineFile, ensembleName, [], targetArch));
  }
  return { files, sources, expected };
}

/**
 * A binding the C++ printer does not know would silently vanish from the step (and Triton would
 * fail at the first request with "output not produced"); stop at generation time instead.
 */
function assertEveryBindingRendered(model: NativeStepModel, stepCc: string): void {
  for (const side of [model.inputs, model.outputs] as Record<string, TensorBinding | undefined>[]) {
    for (const [role, binding] of Object.entries(side)) {
      if (binding && !stepCc.includes(cppStringLiteral(binding.name))) {
        throw new Error(
          `this version's native ${model.kind} step does not support the "${role}" role (port "${binding.name}" of step "${model.modelName}")`,
        );
      }
    }
  }
}

/**
 * The content-named library copies a local deploy placed (`<model>/<version>/libtriton_*-<12 hex>.so`,
 * see client/deployPayload.ts) stay across regeneration: a local server may be serving one, and a
 * failed redeploy puts that model back by loading it again.
 */
function deployedLibraries(outDir: string, models: GeneratedModel[]): string[] {
  const kept: string[] = [];
  for (const m of models) {
    const dir = join(outDir, m.name);
    if (!existsSync(dir)) continue;
    for (const version of readdirSync(dir).filter((v) => /^\d+$/.test(v))) {
      if (!statSync(join(dir, version)).isDirectory()) continue;
      for (const file of readdirSync(join(dir, version)))
        if (/^libtriton_.+-[0-9a-f]{12}\.so$/.test(file)) kept.push(`${m.name}/${version}/${file}`);
    }
  }
  return kept;
}

/**
 * Writes the planned repository and step sources (each tree renamed into place), keeping the
 * libraries a deploy placed; a refusal as the diagnostic to report, nothing replaced.
 */
function writeRepository(
  outDir: string,
  sourcesDir: string,
  models: GeneratedModel[],
  files: PlannedFile[],
  sources: PlannedFile[],
  expected: string[],
): { code: 'TS-E060' | 'TS-E061'; message: string } | undefined {
  try {
    writeTrees([
      {
        outDir,
        files,
        emptyDirs: models.map((m) => `${m.name}/1`),
        keep: [...expected, ...deployedLibraries(outDir, models)],
      },
      // No native step: stale sources of an earlier generation go (the build would compile them).
      { outDir: sourcesDir, files: sources.length > 0 ? sources : null },
    ]);
  } catch (e) {
    if (e instanceof RepositoryWriteError)
      return { code: e.kind === 'not-ours' ? 'TS-E060' : 'TS-E061', message: e.message };
    // The file system refused (no permission, no space, read-only): nothing was replaced.
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) {
      return {
        code: 'TS-E061',
        message:
          `The repository cannot be written to ${outDir}: ${(e as Error).message}. ` +
          'Nothing was changed; choose an output folder you can write to, e.g. a new folder in your project.',
      };
    }
    throw e;
  }
  return undefined;
}

export function generateRepository(options: GenerateOptions): GenerateResult {
  const pipelinePath = resolve(options.pipelinePath);
  const outDir = resolve(options.outDir);
  const parsed =
    options.pipelineText !== undefined
      ? parsePipeline(options.pipelineText, options.pipelinePath)
      : loadPipeline(options.pipelinePath);
  const sourcesDir = stepSourcesDir(outDir);
  const result: GenerateResult = {
    diagnostics: parsed.diagnostics,
    files: [],
    sourcesDir,
    sourceFiles: [],
    models: [],
    outDir,
  };
  if (!parsed.pipeline) return { ...result, diagnostics: sortDiagnostics(result.diagnostics) };
  if (options.serving) parsed.pipeline.serving = options.serving;
  const analyzed = analyzePipeline(parsed.pipeline, parsed.source, {
    tokenizerSearchDirs: options.tokenizerSearchDirs,
    llamaDirs: options.llamaDirs,
  });
  result.diagnostics = sortDiagnostics([...parsed.diagnostics, ...analyzed.diagnostics]);
  if (!analyzed.graph || hasErrors(result.diagnostics)) return result;

  const fail = (
    code: 'TS-E060' | 'TS-E061' | 'TS-E003',
    message: string,
    path: (string | number)[] = [],
  ): GenerateResult => ({
    ...result,
    diagnostics: [
      ...result.diagnostics,
      { file: options.pipelinePath, range: parsed.source.rangeOf(path), severity: 'error', code, message },
    ],
  });

  let models: GeneratedModel[];
  let files: PlannedFile[];
  let sources: PlannedFile[];
  let expected: string[];
  try {
    models = buildModels(analyzed.graph, pipelinePath);
    ({ files, sources, expected } = planRepository(
      models,
      pipelinePath,
      analyzed.graph.name,
      parsed.pipeline.target?.arch,
    ));
  } catch (e) {
    if (e instanceof NativeStepCodegenError || e instanceof CustomStepError) {
      const step = parsed.pipeline.steps.findIndex((s) => e.message.includes(s.name));
      return fail(
        'TS-E003',
        `The native step cannot be generated: ${e.message}`,
        step >= 0 ? ['steps', step] : [],
      );
    }
    return fail('TS-E061', `The repository cannot be generated: ${(e as Error).message}`);
  }
  result.ensembleName = analyzed.graph.name;
  result.serving = analyzed.graph.serving;
  result.targetArch = parsed.pipeline.target?.arch;
  result.models = models.map((m) => ({ name: m.name, kind: m.kind }));
  result.files = files.map((f) => f.path);
  result.sourceFiles = sources.map((f) => f.path);
  if (options.dryRun) return result;
  const refused = writeRepository(outDir, sourcesDir, models, files, sources, expected);
  if (refused) return fail(refused.code, refused.message);
  return result;
}
