/**
 * Chat templates in the Problems panel: a template's syntax error (TS-E058) shows at its place,
 * inside a `tokenizer_config.json`'s `chat_template` string and inside a Jinja file a pipeline
 * names with `chatTemplate`, as it is typed. The generator finds the errors; this file shows them.
 */
import * as vscode from 'vscode';
import {
  jinjaFileDiagnostics,
  jinjaTemplatesNamedBy,
  nativeTemplateCheck,
  tokenizerConfigDiagnostics,
} from '../generator/index.js';
import { registerDocumentProblems, toVscodeDiagnostic } from './diagnostics.js';

const TOKENIZER_CONFIG = /[\\/]tokenizer_config\.json$/;
/** The native engine runs as a process per check: give typing a pause first. */
const DEBOUNCE_MS = 300;

export function registerChatTemplateDiagnostics(): vscode.Disposable {
  const named = new Set<string>(); // Jinja files some pipeline names
  // Looked up per check: the native tool may be built after activation (the first Build).
  const native = (template: string) => nativeTemplateCheck()?.(template);
  const problems = (text: string, file: string) =>
    (TOKENIZER_CONFIG.test(file)
      ? tokenizerConfigDiagnostics(text, file, native)
      : jinjaFileDiagnostics(text, file, native)
    ).map(toVscodeDiagnostic);
  let registration: vscode.Disposable | undefined;
  const scan = async () => {
    const files = await vscode.workspace.findFiles('**/*.pipeline.json', '**/node_modules/**');
    named.clear();
    for (const uri of files) {
      const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
      for (const template of jinjaTemplatesNamedBy(text, uri.fsPath)) named.add(template);
    }
    // Registered once the names are known, so the Jinja files already open are checked too.
    registration ??= registerDocumentProblems({
      name: 'triton-studio-chat-templates',
      matches: (file) => TOKENIZER_CONFIG.test(file) || named.has(file),
      problems,
      debounceMs: DEBOUNCE_MS,
      what: 'check this chat template',
    });
  };
  void scan();
  const onSave = vscode.workspace.onDidSaveTextDocument((doc) => {
    if (doc.uri.fsPath.endsWith('.pipeline.json')) void scan();
  });
  return { dispose: () => (onSave.dispose(), registration?.dispose()) };
}
