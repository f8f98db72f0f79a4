/**
 * The pipeline commands: New Pipeline, Import Model Repository, Generate, Build Backends, Deploy.
 * Thin handlers: the work is `generator/` and `client/`; errors come back with the action that
 * fixes them.
 */
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
  type BuiltModel,
  type Diagnostic,
} from '../../generator/index.js';
import type { Ctx } from '../context.js';
import { toVscodeDiagnostic } from '../diagnostics.js';
import { readBuildSettings, repositoryDirFor } from '../settings.js';
import { compilerProblems } from './compilerProblems.js';
import {
  actionsFor,
  errorMessage,
  openOutput,
  showError,
  showProblem,
  startLocalServerAction,
  withProgress,
  type Outcome,
} from './ui.js';

const PIPELINE_GLOB = '**/*.pipeline.json';

/** The pipeline a command works on: the argument, the active editor's, the only one, or the user's pick. */
export async function pickPipeline(arg?: unknown): Promise<vscode.Uri | undefined> {
  if (arg instanceof vscode.Uri) return arg;
  if (typeof arg === 'string') return vscode.Uri.file(arg);
  const active = vscode.window.activeTextEditor?.document.uri;
  if (active?.scheme === 'file' && active.path.endsWith('.pipeline.json')) return active;
  const found = await vscode.workspace.findFiles(PIPELINE_GLOB, '**/node_modules/**', 50);
  if (found.length <= 1) {
    if (found.length === 0)
      void vscode.window.showWarningMessage(
        'No *.pipeline.json in this workspace: create one with "Triton Studio: New Pipeline".',
      );
    return found[0];
  }
  const pick = await vscode.window.showQuickPick(
    found.map((uri) => ({
      label: basename(uri.fsPath),
      description: vscode.workspace.asRelativePath(uri),
      uri,
    })),
    { title: 'Triton Studio: which pipeline?' },
  );
  return pick?.uri;
}

/** The repository a command works on: the argument, the last generated one, or a folder the user picks. */
export async function pickRepository(ctx: Ctx, arg?: unknown): Promise<string | undefined> {
  if (typeof arg === 'string') return arg;
  if (arg instanceof vscode.Uri) return arg.fsPath;
  const last = ctx.lastRepository;
  if (last && existsSync(last)) return last;
  const picked = await vscode.window.showOpenDialog({
    title: 'Triton Studio: the model repository (generate one from a pipeline first)',
    canSelectFolders: true,
    canSelectFiles: false,
  });
  return picked?.[0]?.fsPath;
}

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

/** New Pipeline: copies a sample (with the files it names) into a workspace folder and opens it. */
export async function newPipeline(
  ctx: Ctx,
  sampleName?: unknown,
  target?: unknown,
): Promise<Outcome<{ file: string }> | undefined> {
  const all = samples();
  const sample =
    typeof sampleName === 'string'
      ? all.find((s) => s.label === sampleName)
      : await vscode.window.showQuickPick(
          all.map((s) => ({ ...s, detail: s.description, description: undefined })),
          { title: 'Triton Studio: New Pipeline from a sample', matchOnDetail: true },
        );
  if (!sample)
    return typeof sampleName === 'string'
      ? { ok: false, error: `no sample named '${sampleName}'` }
      : undefined;
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
  const file = join(folder, sample.file);
  if (existsSync(file)) {
    const message = `${file} exists already: New Pipeline does not overwrite it. Rename or remove it first.`;
    void showError(ctx, message, showProblem(vscode.Uri.file(file)));
    return { ok: false, error: message };
  }
  // The sample's other files (a model.json, tokenizer data) come along; its README stays.
  for (const entry of readdirSync(sample.dir)) {
    if (entry === 'README.md' || (entry.endsWith('.pipeline.json') && entry !== sample.file)) continue;
    if (!existsSync(join(folder, entry)))
      cpSync(join(sample.dir, entry), join(folder, entry), { recursive: true });
  }
  // The sample's "$schema" is relative to the samples folder; the extension contributes the schema.
  const pipeline = JSON.parse(readFileSync(join(sample.dir, sample.file), 'utf8')) as Record<string, unknown>;
  delete pipeline.$schema;
  writeFileSync(file, `${JSON.stringify(pipeline, null, 2)}\n`);
  ctx.log(`new pipeline ${file} from sample ${sample.label}`);
  await vscode.window.showTextDocument(vscode.Uri.file(file));
  return { ok: true, file };
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
    const result = generateRepository({ pipelinePath: pipeline.fsPath, outDir });
    for (const d of result.diagnostics) ctx.log(formatDiagnostic(d));
    if (hasErrors(result.diagnostics) || !result.ensembleName) {
      const first = result.diagnostics.find((d) => d.severity === 'error');
      const message = `${basename(pipeline.fsPath)} has errors: nothing was generated. ${first ? formatDiagnostic(first) : ''}`;
      void showError(
        ctx,
        message,
        showProblem(first ? vscode.Uri.file(first.file) : pipeline, first ? rangeOf(first) : undefined),
        openOutput(ctx),
      );
      return { ok: false, error: message };
    }
    ctx.lastRepository = result.outDir;
    ctx.log(`generated ${result.files.length} files in ${result.outDir} (ensemble ${result.ensembleName})`);
    void vscode.window.showInformationMessage(
      `Generated ${result.ensembleName}: ${result.files.length} files in ${vscode.workspace.asRelativePath(result.outDir)}.`,
    );
    return { ok: true, repository: result.outDir, ensemble: result.ensembleName, files: result.files.length };
  } catch (error) {
    void showError(ctx, `Generate failed: ${errorMessage(error)}`, ...actionsFor(ctx, error));
    return { ok: false, error: errorMessage(error) };
  }
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
  const { type, jobs } = readBuildSettings();
  ctx.buildProblems.clear();
  const lines: string[] = [];
  ctx.log(`building the native steps of ${repository} (${type})…`);
  try {
    const result = await withProgress('Triton Studio: building backends', (report, signal) =>
      buildRepository(repository, {
        jobs,
        buildType: type,
        signal,
        onOutput: (line: string) => {
          lines.push(line);
          ctx.output.append(line.endsWith('\n') ? line : `${line}\n`);
          const progress = /\[\s*(\d+)%\]\s*(.*)/.exec(line);
          if (progress) report(`${progress[1]}% ${progress[2]!.slice(0, 80)}`);
        },
      }),
    );
    for (const model of result.built) ctx.log(`  ${model.model}: ${model.library}`);
    void vscode.window.showInformationMessage(`Built ${result.built.length} backend libraries.`);
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
        onModel: (s) => {
          ctx.log(`  ${s.model}: ${s.state}${s.error ? ` — ${s.error}` : ''}${s.hint ? ` (${s.hint})` : ''}`);
          report(`${s.model}: ${s.state}`);
        },
      }),
    );
    ctx.serverContentsChanged();
    if (!result.ok) {
      const failed = result.models.find((m) => m.state === 'failed');
      const message = `Deploy failed: ${failed ? `${failed.model}: ${failed.error ?? 'failed'}` : 'see the log'}; ${deployOutcomeText(result)}`;
      ctx.log(`what deploy did:\n${result.actions.map((a) => `  ${a}`).join('\n')}`);
      void showError(ctx, message, ...serverLogActions(ctx, target.local));
      return { ok: false, error: message };
    }
    void vscode.window.showInformationMessage(
      `Deployed ${result.ensembles.join(', ')} to ${target.url}: ready for prompts.`,
    );
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
