/** Preview Chat Template: the step's chat template rendered for a sample conversation. */
import * as vscode from 'vscode';
import type { ChatPreview } from '../../client/index.js';
import type { Ctx } from '../context.js';
import { ChatTemplatePreviews } from '../views/chatTemplatePreview.js';
import { notify } from './ui.js';

let previews: ChatTemplatePreviews | undefined;

/**
 * "Triton Studio: Preview Chat Template": the preview beside the pipeline in the active editor (or
 * the given file); resolves to its first render, so tests and keybindings can read it.
 */
export async function previewChatTemplate(
  ctx: Ctx,
  given?: unknown,
): Promise<ChatPreview | { problem: string } | undefined> {
  const uri = given instanceof vscode.Uri ? given : vscode.window.activeTextEditor?.document.uri;
  if (!uri || !uri.path.endsWith('.pipeline.json')) {
    void notify('info', 'Open a *.pipeline.json file to preview its chat template.');
    return undefined;
  }
  const document = await vscode.workspace.openTextDocument(uri);
  previews ??= new ChatTemplatePreviews();
  const result = await previews.open(document);
  if ('problem' in result) ctx.log(`chat template preview: ${result.problem}`);
  return result;
}
