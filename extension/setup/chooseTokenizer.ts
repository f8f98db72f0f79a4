/**
 * Choose Tokenizer File: a step whose tokenizer is not found (TS-E051) gets the tokenizer.json the
 * user picks, usually the one in their own model folder, as a path relative to the pipeline file.
 * Offered on Generate's error and as a quick fix of the problem (after Download Tokenizer, for
 * the names that can be downloaded).
 */
import { dirname, relative, sep } from 'node:path';
import * as vscode from 'vscode';
import { buildGraphModel, elementAt } from '../graphEditor/host/graphModel.js';
import { graphEditToTextEdits } from '../graphEditor/host/textEdits.js';
import type { Outcome } from '../commands/ui.js';
import { downloadModelFix, modelIn } from './downloadModel.js';
import { DOWNLOAD_TOKENIZER_COMMAND, downloadableIn, downloadTitle } from './downloadTokenizer.js';

export const CHOOSE_TOKENIZER_COMMAND = 'tritonStudio.chooseTokenizerFile';
export const TOKENIZER_NOT_FOUND = 'TS-E051';

/** The step at `position` of the pipeline file gets the chosen tokenizer.json (or `file`, given). */
export async function chooseTokenizerFile(
  uriArg?: unknown,
  positionArg?: unknown,
  fileArg?: unknown,
): Promise<Outcome<{ step: string; tokenizer: string }> | undefined> {
  const uri = uriArg instanceof vscode.Uri ? uriArg : vscode.window.activeTextEditor?.document.uri;
  if (!uri) return { ok: false, error: 'Open the pipeline file whose tokenizer is missing first.' };
  const document = await vscode.workspace.openTextDocument(uri);
  const text = document.getText();
  const built = buildGraphModel(text, uri.fsPath);
  if (!built.ok) return { ok: false, error: `${uri.fsPath} is not a valid pipeline right now.` };
  const position =
    positionArg instanceof vscode.Position
      ? positionArg
      : (vscode.window.activeTextEditor?.selection.active ?? new vscode.Position(0, 0));
  const at = elementAt(text, document.offsetAt(position), built.pipeline);
  const step = at?.node?.startsWith('step:') ? at.node.slice(5) : undefined;
  if (!step) return { ok: false, error: 'Put the cursor on the step whose tokenizer is missing.' };
  const file =
    typeof fileArg === 'string'
      ? fileArg
      : (
          await vscode.window.showOpenDialog({
            title: `Triton Studio: the tokenizer.json of step ${step} (in your model's folder)`,
            filters: { 'Hugging Face tokenizer': ['json'] },
            canSelectMany: false,
            defaultUri: vscode.Uri.file(dirname(uri.fsPath)),
          })
        )?.[0]?.fsPath;
  if (!file) return undefined;
  const tokenizer = relative(dirname(uri.fsPath), file).split(sep).join('/');
  const reference = tokenizer.startsWith('.') ? tokenizer : `./${tokenizer}`;
  const edits = graphEditToTextEdits(text, built.pipeline, {
    op: 'setStepField',
    name: step,
    field: 'tokenizer',
    value: reference,
  });
  const edit = new vscode.WorkspaceEdit();
  for (const e of edits)
    edit.replace(
      uri,
      new vscode.Range(document.positionAt(e.offset), document.positionAt(e.offset + e.length)),
      e.newText,
    );
  if (!(await vscode.workspace.applyEdit(edit)))
    return { ok: false, error: 'VS Code did not apply the edit (is the file read-only?).' };
  await document.save();
  return { ok: true, step, tokenizer: reference };
}

/** The quick fixes on a TS-E051 problem: download a known name (or the model it comes with), or choose the model's own file. */
export class TokenizerNotFoundFixes implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  provideCodeActions(document: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext) {
    return context.diagnostics
      .filter((d) => d.code === TOKENIZER_NOT_FOUND)
      .flatMap((d) => {
        const choose = new vscode.CodeAction('Choose Tokenizer File…', vscode.CodeActionKind.QuickFix);
        choose.diagnostics = [d];
        choose.command = {
          command: CHOOSE_TOKENIZER_COMMAND,
          title: 'Choose Tokenizer File…',
          arguments: [document.uri, d.range.start],
        };
        // A model's own tokenizer (imported from its GGUF) comes with Download Model.
        const model = modelIn(d.message);
        if (model) return [downloadModelFix(d, model), choose];
        const name = downloadableIn(d.message);
        if (!name) {
          choose.isPreferred = true;
          return [choose];
        }
        const download = new vscode.CodeAction(downloadTitle(name), vscode.CodeActionKind.QuickFix);
        download.diagnostics = [d];
        download.isPreferred = true;
        download.command = { command: DOWNLOAD_TOKENIZER_COMMAND, title: download.title, arguments: [name] };
        return [download, choose];
      });
  }
}
