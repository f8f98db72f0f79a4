/** Which pipeline or model repository a command works on, when the command was not given one. */
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import * as vscode from 'vscode';
import type { Ctx } from '../context.js';
import { commandAction, notify } from './ui.js';

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
      void notify(
        'warning',
        'No *.pipeline.json in this workspace: create one with "Triton Studio: New Pipeline".',
        commandAction('New Pipeline', 'tritonStudio.newPipeline'),
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
