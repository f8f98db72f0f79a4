/**
 * Triton Studio's VS Code extension: thin glue over `generator/` and `client/`. Activation builds
 * the one shared Ctx (output channel, connections, secrets, local server), registers every
 * command over it (commands/index.ts, with the Workspace Trust gate), and validates open
 * pipeline files into the Problems panel.
 */
import * as vscode from 'vscode';
import { registerCommands } from './commands/index.js';
import { Ctx } from './context.js';
import { registerPipelineDiagnostics } from './diagnostics.js';
import { registerTsStepDiagnostics } from './tsStepDiagnostics.js';

export function activate(context: vscode.ExtensionContext): Ctx {
  const ctx = new Ctx(context);
  context.subscriptions.push(
    ctx,
    ...registerCommands(ctx),
    registerPipelineDiagnostics(),
    registerTsStepDiagnostics(),
  );
  // Returned as the extension's API: tests and other extensions reach the shared state.
  return ctx;
}

export function deactivate(): void {
  // Everything is in context.subscriptions, which VS Code disposes (the local server stops with it).
}
