/**
 * Triton Studio's VS Code extension: thin glue over `generator/` and `client/`. Activation builds
 * the one shared Ctx (output channel, connections, secrets, local server), registers every
 * command over it (commands/index.ts, with the Workspace Trust gate), and validates open
 * pipeline files into the Problems panel.
 */
import * as vscode from 'vscode';
import { registerCommands } from './commands/index.js';
import { Ctx } from './context.js';
import { registerChatTemplateDiagnostics } from './chatTemplateDiagnostics.js';
import { registerPipelineDiagnostics } from './diagnostics.js';
import { registerGraphEditor } from './graphEditor/host/provider.js';
import { registerPromptFiles } from './prompts/codeLens.js';
import { ModelNotDownloadedFixes } from './setup/downloadModel.js';
import { TokenizerNotFoundFixes } from './setup/chooseTokenizer.js';
import { ServerView } from './views/serverView.js';
import { registerTsStepDiagnostics } from './tsStepDiagnostics.js';

/** What the extension exports (tests and other extensions reach the shared state through it). */
export interface TritonStudioApi {
  ctx: Ctx;
  serverView: ServerView;
}

export function activate(context: vscode.ExtensionContext): TritonStudioApi {
  const ctx = new Ctx(context);
  const serverView = new ServerView(ctx);
  context.subscriptions.push(
    ctx,
    ...registerCommands(ctx),
    serverView,
    registerPipelineDiagnostics(ctx.storage.lookups, ctx.onDidChangeTokenizers),
    vscode.languages.registerCodeActionsProvider(
      { pattern: '**/*.pipeline.json' },
      new TokenizerNotFoundFixes(),
      {
        providedCodeActionKinds: TokenizerNotFoundFixes.kinds,
      },
    ),
    vscode.languages.registerCodeActionsProvider(
      { pattern: '**/*.pipeline.json' },
      new ModelNotDownloadedFixes(),
      {
        providedCodeActionKinds: ModelNotDownloadedFixes.kinds,
      },
    ),
    registerPromptFiles(),
    registerTsStepDiagnostics(),
    registerChatTemplateDiagnostics(),
    registerGraphEditor(context, ctx.storage.lookups, (query) => (ctx.graphEditorState = query)),
  );
  return { ctx, serverView };
}

export function deactivate(): void {
  // Everything is in context.subscriptions, which VS Code disposes (the local server stops with it).
}
