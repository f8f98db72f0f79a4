/** Preview Chat Template in real VS Code: the step's native rendering beside the pipeline. */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as vscode from 'vscode';
import type { ChatPreview } from '../../../client/index.js';

// The repository root from out/test/suite (the compiled suite) or test/vscode/suite.
const ROOT = resolve(__dirname, '../../..');

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
  });
});
