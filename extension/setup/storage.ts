/**
 * Where the extension keeps what it builds and installs. Never its install folder (shared by
 * every workspace, replaced on update, read-only in some installs): the shared native backends
 * and the local Triton server go to the extension's global storage, each workspace's step builds
 * to `<workspace>/.triton-studio/build` (git-ignored).
 */
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { EnvironmentOptions } from '../../generator/index.js';

export class StoragePaths {
  constructor(private readonly context: vscode.ExtensionContext) {}

  private get global(): string {
    return this.context.globalStorageUri.fsPath;
  }

  /**
   * The backends' CMake tree: installed, in global storage per extension version (a new version's
   * sources build anew); run from a checkout (development, tests), the checkout's own
   * `build/backends`, which the CLI and the project's tests share.
   */
  get backendsBuildDir(): string {
    if (this.context.extensionMode !== vscode.ExtensionMode.Production)
      return join(this.context.extensionPath, 'build', 'backends');
    const version = String((this.context.extension.packageJSON as { version?: string }).version);
    return join(this.global, 'build', version, 'backends');
  }

  /** Third-party sources the backends build downloads (Oniguruma's tarball), in global storage. */
  get dependencySourcesDir(): string | undefined {
    return this.context.extensionMode === vscode.ExtensionMode.Production
      ? join(this.global, 'deps')
      : undefined;
  }

  /** Tokenizers looked up by name before the ones the extension ships (`<dir>/<name>/tokenizer.json`). */
  get tokenizerCacheDir(): string {
    return join(this.global, 'tokenizers');
  }

  /** The tokenizers the .vsix carries (scripts/bundle.mjs copies them into out/tokenizers). */
  get bundledTokenizersDir(): string {
    return join(this.context.extensionPath, 'out', 'tokenizers');
  }

  /** Folders searched for tokenizers by name: the user cache, then the shipped ones. */
  get tokenizerSearchDirs(): string[] {
    return [this.tokenizerCacheDir, this.bundledTokenizersDir];
  }

  /** The llama folder Download Model fills (weights, llama.cpp's libraries and headers). */
  get llamaDir(): string {
    return join(this.global, 'llama');
  }

  /** llama.cpp's headers the .vsix carries (scripts/bundle.mjs), copied into `llamaDir` by Download Model. */
  get llamaHeadersDir(): string {
    return join(this.context.extensionPath, 'out', 'llama-include');
  }

  /**
   * The llama folder builds use: installed, `llamaDir`; run from a checkout (development, tests),
   * the checkout's `.cache/llama` (undefined: the generator's default), as for the backends tree.
   */
  get buildLlamaDir(): string | undefined {
    return this.context.extensionMode === vscode.ExtensionMode.Production ? this.llamaDir : undefined;
  }

  /** What validation and generate look up by name: tokenizers, then model weights. */
  get lookups(): EnvironmentOptions {
    return { tokenizerSearchDirs: this.tokenizerSearchDirs, llamaDirs: [this.llamaDir] };
  }

  /** The local Triton server's Python environment (Install Local Server). */
  get serverVenv(): string {
    return join(this.global, 'tritonserver', 'venv');
  }

  /** Step build trees of the workspace holding `file` (else of global storage), git-ignored. */
  stepsBuildDir(file: string): string {
    const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(file))?.uri.fsPath;
    const buildRoot = folder ? join(folder, '.triton-studio', 'build') : join(this.global, 'build', 'steps');
    mkdirSync(buildRoot, { recursive: true });
    const ignore = join(buildRoot, '.gitignore');
    if (folder && !existsSync(ignore)) writeFileSync(ignore, '# Triton Studio build trees\n*\n');
    return folder ? join(buildRoot, 'steps') : buildRoot;
  }
}
