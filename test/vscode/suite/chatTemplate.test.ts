/** Preview Chat Template in real VS Code: the step's native rendering beside the pipeline. */
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as vscode from 'vscode';
import type { ChatPreview } from '../../../client/index.js';
import { workbench } from './workbench.js';

// The repository root from out/test/suite (the compiled suite) or test/vscode/suite.
const ROOT = resolve(__dirname, '../../..');

/** transformers' apply_chat_template ids (bench/chat-template/chat_ids_fixture.py). */
const fixture = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/chat-template-ids.json'), 'utf8')) as {
  models: Record<string, { name: string; messages: unknown[]; text: string; ids: number[] }[]>;
};

describe('Preview Chat Template', () => {
  it("opens beside a chat pipeline and shows the step's native rendering with its token count", async () => {
    const sample = vscode.Uri.file(join(ROOT, 'samples/qwen3-tensorrt-llm/qwen3-tensorrt-llm.pipeline.json'));
    await vscode.window.showTextDocument(sample);
    const preview = await vscode.commands.executeCommand<ChatPreview>(
      'tritonStudio.previewChatTemplate',
      sample,
    );
    assert.ok(preview && 'ok' in preview && preview.ok, JSON.stringify(preview));
    // The default conversation, as transformers renders it with Qwen3's template.
    assert.equal(
      preview.text,
      '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nWhat is the capital of France?<|im_end|>\n<|im_start|>assistant\n',
    );
    assert.deepEqual(
      preview.segments.filter((s) => s.special).map((s) => s.text),
      ['<|im_start|>', '<|im_end|>', '<|im_start|>', '<|im_end|>', '<|im_start|>'],
    );
    assert.ok(preview.tokens > 10 && preview.tokens < 40, `${preview.tokens} tokens`);
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs.map((t) => t.label));
    assert.ok(tabs.includes('Chat template: qwen3-tensorrt-llm.pipeline.json'), tabs.join(', '));
    assert.ok(readFileSync(sample.fsPath, 'utf8').includes('"role": "messages"'));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('is typed into and clicked: the rendered text, its special tokens marked, the native token count, a template error', async () => {
    const sample = vscode.Uri.file(
      join(ROOT, 'samples/llama3.1-tensorrt-llm/llama3.1-tensorrt-llm.pipeline.json'),
    );
    await vscode.window.showTextDocument(sample);
    await workbench({ kind: 'runFromPalette', title: 'Triton Studio: Preview Chat Template' });
    // The default conversation is rendered as the panel opens.
    await workbench({ kind: 'webviewWaitFor', selector: '#count', text: 'tokens' });

    const c = fixture.models['llama-3.1']!.find((x) => x.name === 'system, user, assistant, user')!;
    await workbench({
      kind: 'webviewFill',
      selector: '#messages',
      text: JSON.stringify(c.messages, null, 1),
    });
    await workbench({ kind: 'webviewClick', selector: '#render' });
    // The count is the native tokenizer's, and equals the number of ids transformers gives.
    await workbench({ kind: 'webviewWaitFor', selector: '#count', text: `${c.ids.length} tokens` });
    const shown = await workbench<{ text: string }>({
      kind: 'webviewWaitFor',
      selector: '#text',
      text: 'Another one, please.',
    });
    const squeeze = (t: string) => t.replace(/\s+/g, ' ').trim();
    assert.equal(shown.text, squeeze(c.text));
    const first = await workbench<{ text: string }>({
      kind: 'webviewWaitFor',
      selector: '#text span.special',
    });
    assert.equal(first.text, '<|begin_of_text|>');
    await workbench({ kind: 'webviewWaitFor', selector: '#text span.special', text: '<|eot_id|>' });
    await workbench({ kind: 'webviewScreenshot', name: 'chat-template-preview' });
    await workbench({ kind: 'screenshot', name: 'chat-template-preview-beside-pipeline' });

    // A role that is not a string: the template's own `+` fails, and the panel says so, with its line.
    await workbench({ kind: 'webviewFill', selector: '#messages', text: '[{"role": 7, "content": "x"}]' });
    await workbench({ kind: 'webviewClick', selector: '#render' });
    const error = await workbench<{ text: string }>({
      kind: 'webviewWaitFor',
      selector: '#text.error',
      text: 'can only concatenate str',
    });
    assert.match(error.text, /\(template line 1\)$/);
    await workbench({ kind: 'webviewWaitFor', selector: '#count:empty' });
    await workbench({ kind: 'webviewScreenshot', name: 'chat-template-preview-error' });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});

describe('Chat template syntax errors in Problems', () => {
  it("shows TS-E058 inside a tokenizer_config.json's chat_template string, at the error", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ts-chat-problems-'));
    const file = join(dir, 'tokenizer_config.json');
    // \n and \" are two characters in the file and one in the template.
    const line = '  "chat_template": "{% for m in messages %}\\n{{ m[\\"content\\"] | trim ~ }}{% endfor %}"';
    writeFileSync(file, `{\n  "bos_token": "<s>",\n${line}\n}\n`);
    const uri = vscode.Uri.file(file);
    await vscode.window.showTextDocument(uri);
    let problems: vscode.Diagnostic[] = [];
    for (let i = 0; i < 100 && problems.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      problems = vscode.languages.getDiagnostics(uri).filter((d) => String(d.code).startsWith('TS-'));
    }
    assert.equal(problems.length, 1, JSON.stringify(problems));
    const d = problems[0]!;
    // The native engine (built for this suite) decides: an error, at its place in the string.
    assert.equal(d.code, 'TS-E058');
    assert.equal(d.severity, vscode.DiagnosticSeverity.Error);
    assert.equal(d.range.start.line, 2);
    assert.equal(line.slice(d.range.start.character, d.range.end.character), '}}');
    assert.match(d.message, /line 2, column \d+/);
    await vscode.commands.executeCommand('workbench.actions.view.problems');
    await workbench({ kind: 'waitForText', selector: '.markers-panel', text: 'TS-E058' });
    await workbench({ kind: 'screenshot', name: 'chat-template-problem' });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
