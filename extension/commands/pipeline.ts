/**
 * The pipeline commands: New Pipeline (from a sample or a preset), Import Model Repository, Generate, Build Backends, Deploy.
 * Thin handlers: the work is `generator/` and `client/`; errors come back with the action that
 * fixes them.
 */
import {
  DOWNLOAD_MODEL_COMMAND,
  downloadModelTitle,
  MODEL_NOT_DOWNLOADED,
  modelIn,
} from '../setup/downloadModel.js';
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import * as vscode from 'vscode';
import {
  deployOutcomeText,
  deployRepository,
  fromPackageRoot,
  type DeployResult,
} from '../../client/index.js';
import {
  buildRepository,
  formatDiagnostic,
  generateRepository,
  hasErrors,
  importRepository,
  KNOWN_TOKENIZERS,
  pipelineFromPresets,
  presetFamilies,
  type BuiltModel,
  type Diagnostic,
  type Pipeline,
  type PresetFamily,
  hostArchitecture,
} from '../../generator/index.js';
import type { Ctx } from '../context.js';
import { toVscodeDiagnostic } from '../diagnostics.js';
import { readBuildSettings, repositoryDirFor } from '../settings.js';
import { CHOOSE_TOKENIZER_COMMAND, TOKENIZER_NOT_FOUND } from '../setup/chooseTokenizer.js';
import { DOWNLOAD_TOKENIZER_COMMAND, downloadableIn } from '../setup/downloadTokenizer.js';
import { compilerProblems } from './compilerProblems.js';
import { BuildProgress } from './buildProgress.js';
import { pickPipeline, pickRepository } from './pick.js';
import {
  actionsFor,
  errorMessage,
  notify,
  openOutput,
  showError,
  showProblem,
  startLocalServerAction,
  type ErrorAction,
  withProgress,
  type Outcome,
} from './ui.js';

/** The samples shipped with the extension, each a complete pipeline to start from. */
function samples(): { label: string; description: string; dir: string; file: string }[] {
  const root = fromPackageRoot('samples');
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) =>
      readdirSync(join(root, d.name))
        .filter((f) => f.endsWith('.pipeline.json'))
        .map((f) => {
          const pipeline = JSON.parse(readFileSync(join(root, d.name, f), 'utf8')) as {
            description?: string;
          };
          return {
            label: f.replace(/\.pipeline\.json$/, ''),
            description: pipeline.description ?? '',
            dir: join(root, d.name),
            file: f,
          };
        }),
    );
}

/** What New Pipeline starts from: a sample (copied with its files) or a preset family (built). */
type Origin =
  { kind: 'sample'; sample: ReturnType<typeof samples>[number] } | { kind: 'preset'; family: PresetFamily };

/** The argument's `preset:<family>` prefix picks a preset family; a bare name, a sample. */
const PRESET_PREFIX = 'preset:';

async function pickOrigin(arg: unknown): Promise<Origin | string | undefined> {
  const all = samples();
  const families = presetFamilies();
  if (typeof arg === 'string') {
    if (arg.startsWith(PRESET_PREFIX)) {
      const family = families.find((f) => f.id === arg.slice(PRESET_PREFIX.length));
      return family
        ? { kind: 'preset', family }
        : `no preset family '${arg.slice(PRESET_PREFIX.length)}': use one of ${families.map((f) => f.id).join(', ')}`;
    }
    const sample = all.find((s) => s.label === arg);
    return sample ? { kind: 'sample', sample } : `no sample named '${arg}'`;
  }
  type Item = vscode.QuickPickItem & { origin?: Origin };
  const items: Item[] = [
    { label: 'Samples', kind: vscode.QuickPickItemKind.Separator },
    ...all.map((sample): Item => ({
      label: sample.label,
      detail: sample.description,
      origin: { kind: 'sample', sample },
    })),
    {
      label: 'Presets (an empty pipeline of a known interface, to fill in)',
      kind: vscode.QuickPickItemKind.Separator,
    },
    ...families.map((family): Item => ({
      label: `$(symbol-structure) ${family.id}`,
      description: 'preset',
      detail: family.title,
      origin: { kind: 'preset', family },
    })),
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Triton Studio: New Pipeline from a sample or a preset',
    matchOnDetail: true,
  });
  return picked?.origin;
}

export interface NewPipelineOptions {
  /** A preset pipeline's tokenizer (a known name or a tokenizer.json path); asked for when left out. */
  tokenizer?: string;
  /** A preset pipeline's ensemble name; asked for when left out. */
  name?: string;
}

/**
 * New Pipeline: copies a sample (with the files it names), or writes the pipeline of a preset
 * family (generator/presets/pipelines.ts), into a workspace folder and opens it. Never overwrites.
 */
export async function newPipeline(
  ctx: Ctx,
  originArg?: unknown,
  target?: unknown,
  optionsArg?: unknown,
): Promise<Outcome<{ file: string }> | undefined> {
  const origin = await pickOrigin(originArg);
  if (typeof origin === 'string') return { ok: false, error: origin };
  if (!origin) return undefined;
  let folder = typeof target === 'string' ? target : vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (!folder) {
    folder = (
      await vscode.window.showOpenDialog({
        title: 'Folder for the new pipeline',
        canSelectFolders: true,
        canSelectFiles: false,
      })
    )?.[0]?.fsPath;
    if (!folder) return undefined;
  }
  let pipeline: Record<string, unknown>;
  let fileName: string;
  if (origin.kind === 'sample') {
    const { sample } = origin;
    fileName = sample.file;
    // The sample's "$schema" is relative to the samples folder; the extension contributes the schema.
    pipeline = JSON.parse(readFileSync(join(sample.dir, sample.file), 'utf8')) as Record<string, unknown>;
    delete pipeline.$schema;
  } else {
    const options = (
      typeof optionsArg === 'object' && optionsArg !== null ? optionsArg : {}
    ) as NewPipelineOptions;
    const built = await presetPipeline(origin.family, options);
    if (!built) return undefined;
    pipeline = built as unknown as Record<string, unknown>;
    fileName = `${built.name.replace(/_/g, '-')}.pipeline.json`;
  }
  const file = join(folder, fileName);
  if (existsSync(file)) {
    const message = `${file} exists already: New Pipeline does not overwrite it. Rename or remove it first.`;
    void showError(ctx, message, showProblem(vscode.Uri.file(file)));
    return { ok: false, error: message };
  }
  if (origin.kind === 'sample') {
    // The sample's other files (a model.json, tokenizer data) come along; its README stays.
    const { sample } = origin;
    for (const entry of readdirSync(sample.dir)) {
      if (entry === 'README.md' || (entry.endsWith('.pipeline.json') && entry !== sample.file)) continue;
      if (!existsSync(join(folder, entry)))
        cpSync(join(sample.dir, entry), join(folder, entry), { recursive: true });
    }
  }
  writeFileSync(file, `${JSON.stringify(pipeline, null, 2)}\n`);
  ctx.log(
    `new pipeline ${file} from ${origin.kind === 'sample' ? `sample ${origin.sample.label}` : `the ${origin.family.id} presets`}`,
  );
  await vscode.window.showTextDocument(vscode.Uri.file(file));
  return { ok: true, file };
}

/** A preset family's pipeline, with the tokenizer and name given or asked for. */
async function presetPipeline(
  family: PresetFamily,
  options: NewPipelineOptions,
): Promise<Pipeline | undefined> {
  let tokenizer = options.tokenizer;
  if (family.needsTokenizer && !tokenizer) {
    const browse = '$(folder-opened) A tokenizer.json…';
    const pick = await vscode.window.showQuickPick([...KNOWN_TOKENIZERS, browse], {
      title: `Triton Studio: the tokenizer of the ${family.id} pipeline`,
    });
    if (!pick) return undefined;
    if (pick === browse) {
      tokenizer = (
        await vscode.window.showOpenDialog({ filters: { Tokenizer: ['json'] }, canSelectMany: false })
      )?.[0]?.fsPath;
      if (!tokenizer) return undefined;
    } else tokenizer = pick;
  }
  const suggested = family.id.replace(/-/g, '_');
  const name =
    options.name ??
    (await vscode.window.showInputBox({
      title: 'Triton Studio: the ensemble name (what clients call)',
      value: suggested,
      validateInput: (v) =>
        /^[A-Za-z0-9_][A-Za-z0-9_-]*$/.test(v) ? undefined : 'letters, digits, _ and - (it becomes a folder)',
    }));
  if (!name) return undefined;
  return pipelineFromPresets(family.id, { tokenizer, name });
}

/** Import Model Repository: a pipeline file from an existing repository (config.pbtxt files). */
export async function importModelRepository(
  ctx: Ctx,
  repoArg?: unknown,
  outArg?: unknown,
): Promise<Outcome<{ file: string }> | undefined> {
  const repo =
    typeof repoArg === 'string'
      ? repoArg
      : (
          await vscode.window.showOpenDialog({
            title: 'Triton Studio: the model repository to import',
            canSelectFolders: true,
            canSelectFiles: false,
          })
        )?.[0]?.fsPath;
  if (!repo) return undefined;
  let out = typeof outArg === 'string' ? outArg : undefined;
  if (!out) {
    const base = vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(dirname(repo));
    out = (
      await vscode.window.showSaveDialog({
        title: 'Save the pipeline as',
        defaultUri: vscode.Uri.joinPath(base, `${basename(repo)}.pipeline.json`),
        filters: { Pipeline: ['pipeline.json'] },
      })
    )?.fsPath;
    if (!out) return undefined;
  }
  const result = importRepository(repo, { outFile: out });
  for (const d of result.diagnostics) ctx.log(formatDiagnostic(d));
  if (!result.pipelineText || hasErrors(result.diagnostics)) {
    const first = result.diagnostics.find((d) => d.severity === 'error');
    const message = `${repo} cannot be imported: ${first ? first.message : 'no ensemble found'}`;
    void showError(
      ctx,
      message,
      ...(first ? [showProblem(vscode.Uri.file(first.file), toVscodeDiagnostic(first).range)] : []),
      openOutput(ctx),
    );
    return { ok: false, error: message };
  }
  writeFileSync(out, result.pipelineText);
  ctx.log(`imported ${repo} as ${out}`);
  await vscode.window.showTextDocument(vscode.Uri.file(out));
  return { ok: true, file: out };
}

/** Generate: the pipeline's model repository, into `tritonStudio.repositoryDir`. */
export async function generate(
  ctx: Ctx,
  arg?: unknown,
): Promise<Outcome<{ repository: string; ensemble: string; files: number }> | undefined> {
  const pipeline = await pickPipeline(arg);
  if (!pipeline) return undefined;
  const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === pipeline.toString());
  if (document?.isDirty) await document.save();
  const outDir = repositoryDirFor(pipeline);
  try {
    const result = generateRepository({
      pipelinePath: pipeline.fsPath,
      outDir,
      ...ctx.storage.lookups,
    });
    for (const d of result.diagnostics) ctx.log(formatDiagnostic(d));
    if (hasErrors(result.diagnostics) || !result.ensembleName) {
      const first = result.diagnostics.find((d) => d.severity === 'error');
      const message = `${basename(pipeline.fsPath)} has errors: nothing was generated. ${first ? formatDiagnostic(first) : ''}`;
      const tokenizerMissing = first?.code === TOKENIZER_NOT_FOUND;
      const model =
        first?.code === MODEL_NOT_DOWNLOADED || tokenizerMissing ? modelIn(first.message) : undefined;
      void showError(
        ctx,
        message,
        ...(model
          ? [
              {
                title: downloadModelTitle(model),
                run: () => vscode.commands.executeCommand(DOWNLOAD_MODEL_COMMAND, model),
              },
            ]
          : []),
        ...(tokenizerMissing && !model ? tokenizerActions(first) : []),
        showProblem(first ? vscode.Uri.file(first.file) : pipeline, first ? rangeOf(first) : undefined),
        openOutput(ctx),
      );
      return { ok: false, error: message };
    }
    ctx.lastRepository = result.outDir;
    ctx.log(`generated ${result.files.length} files in ${result.outDir} (ensemble ${result.ensembleName})`);
    void notify(
      'info',
      `Generated ${result.ensembleName}: ${result.files.length} files in ${vscode.workspace.asRelativePath(result.outDir)}.`,
    );
    return { ok: true, repository: result.outDir, ensemble: result.ensembleName, files: result.files.length };
  } catch (error) {
    void showError(ctx, `Generate failed: ${errorMessage(error)}`, ...actionsFor(ctx, error));
    return { ok: false, error: errorMessage(error) };
  }
}

/** What fixes a TS-E051: downloading the tokenizer (a known name), or choosing the model's file. */
function tokenizerActions(problem: Diagnostic): ErrorAction[] {
  const name = downloadableIn(problem.message);
  const choose = {
    title: 'Choose Tokenizer File',
    run: () =>
      vscode.commands.executeCommand(
        CHOOSE_TOKENIZER_COMMAND,
        vscode.Uri.file(problem.file),
        rangeOf(problem).start,
      ),
  };
  if (!name) return [choose];
  // After the download, Generate runs again: what the user asked for in the first place.
  const download = {
    title: 'Download Tokenizer',
    run: async () => {
      const done = await vscode.commands.executeCommand<{ ok: boolean } | undefined>(
        DOWNLOAD_TOKENIZER_COMMAND,
        name,
      );
      if (done?.ok)
        await vscode.commands.executeCommand('tritonStudio.generate', vscode.Uri.file(problem.file));
    },
  };
  return [download, choose];
}

function rangeOf(d: Diagnostic): vscode.Range {
  return toVscodeDiagnostic(d).range;
}

/**
 * Build Backends: compiles the repository's native steps. Compiler errors go to the Problems
 * panel, on the repository's own sources.
 */
export async function build(ctx: Ctx, arg?: unknown): Promise<Outcome<{ built: BuiltModel[] }> | undefined> {
  const repository = await pickRepository(ctx, arg);
  if (!repository) return undefined;
  const { type, jobs, arch, archFrom } = readBuildSettings(repository);
  ctx.buildProblems.clear();
  const lines: string[] = [];
  const foreign = arch.arch !== hostArchitecture().arch;
  ctx.log(`building the native steps of ${repository} (${type}, ${arch.arch} from ${archFrom})…`);
  try {
    const result = await withProgress('Triton Studio: building backends', (report, signal) => {
      const progress = new BuildProgress(report);
      return buildRepository(repository, {
        jobs,
        buildType: type,
        arch,
        signal,
        // The shared native parts in global storage (one tree per architecture), this workspace's
        // steps in .triton-studio/build.
        buildDir: foreign ? `${ctx.storage.backendsBuildDir}-${arch.arch}` : ctx.storage.backendsBuildDir,
        dependencySourcesDir: ctx.storage.dependencySourcesDir,
        llamaDir: ctx.storage.buildLlamaDir,
        stepsBuildDir: ctx.storage.stepsBuildDir(repository),
        onStage: (stage) => {
          ctx.log(`── ${stage.index + 1}/${stage.total}: ${stage.name}`);
          progress.enter(stage);
        },
        onOutput: (line: string) => {
          lines.push(line);
          // CMake's own lines, as they come: the output channel is the build log.
          ctx.output.append(line.endsWith('\n') ? line : `${line}\n`);
          progress.line(line);
        },
      });
    });
    for (const model of result.built) ctx.log(`  ${model.model}: ${model.library}`);
    void notify('info', `Built ${result.built.length} backend libraries.`);
    return { ok: true, built: result.built };
  } catch (error) {
    const problems = compilerProblems(lines.join('\n'), repository);
    for (const [file, diagnostics] of problems) ctx.buildProblems.set(vscode.Uri.file(file), diagnostics);
    const first = [...problems][0];
    const cancelled = /cancelled/.test(errorMessage(error));
    const message = cancelled
      ? 'Build cancelled.'
      : `Build failed${problems.size > 0 ? ` with compiler errors in ${problems.size} file(s)` : ''}: ${errorMessage(error).split('\n')[0]}`;
    if (!cancelled) {
      void showError(
        ctx,
        message,
        ...(first ? [showProblem(vscode.Uri.file(first[0]), first[1][0]?.range)] : []),
        openOutput(ctx),
      );
    }
    return { ok: false, error: message, cancelled };
  }
}

/**
 * Deploy: loads every model of the repository into the target server (from its own folder when
 * the local server serves it, else uploaded through the repository API).
 */
export async function deploy(
  ctx: Ctx,
  arg?: unknown,
): Promise<Outcome<{ result: DeployResult }> | undefined> {
  const repository = await pickRepository(ctx, arg);
  if (!repository) return undefined;
  try {
    const target = await ctx.server();
    const local = target.local && ctx.localServer.running?.modelRepository === repository;
    ctx.log(`deploying ${repository} to ${target.url} (${local ? 'local' : 'upload'})…`);
    const result = await withProgress(`Triton Studio: deploying to ${target.url}`, (report) =>
      deployRepository(target.client, {
        repository,
        mode: local ? 'local' : 'remote',
        // A local server runs here; a remote one on the CPU the steps are built for.
        serverArch: local ? hostArchitecture() : readBuildSettings(repository).arch,
        onModel: (s) => {
          ctx.log(`  ${s.model}: ${s.state}${s.error ? ` — ${s.error}` : ''}${s.hint ? ` (${s.hint})` : ''}`);
          report(`${s.model}: ${s.state}`);
        },
      }),
    );
    ctx.serverContentsChanged();
    for (const warning of result.warnings ?? []) ctx.log(`warning: ${warning}`);
    if (!result.ok) {
      const failed = result.models.find((m) => m.state === 'failed');
      const message = `Deploy failed: ${failed ? `${failed.model}: ${failed.error ?? 'failed'}` : 'see the log'}; ${deployOutcomeText(result)}`;
      ctx.log(`what deploy did:\n${result.actions.map((a) => `  ${a}`).join('\n')}`);
      void showError(ctx, message, ...serverLogActions(ctx, target.local));
      return { ok: false, error: message };
    }
    void notify('info', `Deployed ${result.ensembles.join(', ')} to ${target.url}: ready for prompts.`);
    return { ok: true, result };
  } catch (error) {
    const unreachable = /UNAVAILABLE|ECONNREFUSED|No connection/i.test(errorMessage(error));
    void showError(
      ctx,
      `Deploy failed: ${errorMessage(error)}`,
      ...(unreachable && !ctx.localServer.running ? [startLocalServerAction] : []),
      ...actionsFor(ctx, error),
    );
    return { ok: false, error: errorMessage(error) };
  }
}

/** "Open Log" for server-side failures: the local server's log when it is ours, else the output channel. */
export function serverLogActions(ctx: Ctx, local: boolean) {
  return local
    ? [{ title: 'Open Log', run: () => vscode.commands.executeCommand('tritonStudio.showServerLog') }]
    : [openOutput(ctx)];
}
