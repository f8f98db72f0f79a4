/**
 * Triton Studio's VS Code extension: thin glue over `generator/` and `client/`. Activation wires
 * the commands to one output channel and a shared set of server connections, and validates open
 * pipeline files into the Problems panel.
 */
import * as vscode from 'vscode';
import { registerSendPrompt } from './commands/sendPrompt.js';
import { ServerConnections } from './connection.js';
import { registerPipelineDiagnostics } from './diagnostics.js';
import { OUTPUT_CHANNEL_NAME, PromptOutput } from './views/promptOutput.js';

export function activate(context: vscode.ExtensionContext): void {
  const output = new PromptOutput(vscode.window.createOutputChannel(OUTPUT_CHANNEL_NAME));
  const connections = new ServerConnections();
  context.subscriptions.push(
    output,
    connections,
    registerSendPrompt(connections, output),
    registerPipelineDiagnostics(),
  );
}

export function deactivate(): void {
  // Everything is in context.subscriptions, which VS Code disposes.
}
