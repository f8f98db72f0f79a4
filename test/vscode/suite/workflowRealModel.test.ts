/**
 * A real model in the editor: SmolLM2-135M-Instruct (samples/smollm2-llama-cpp: native tokenizer
 * → llama.cpp on the CPU → native detokenizer, behind the orchestrator) generated, built, served
 * and deployed with the extension's commands, then ▶ Send prompt on the pipeline's sample prompt
 * streams the model's own answer (" Paris": a fact, not an echo of the prompt) into the answer
 * panel, and ⏱ Latency test measures it. Its screenshots are the README's real-model pictures.
 * Needs `npm run setup` (llama.cpp and the model in .cache/llama). Named to run after every other
 * suite (files run in name order): its Generate leaves the extension a last repository, which
 * changes what an unreachable server's notification offers in ui.test.ts.
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as vscode from 'vscode';
import type { Pipeline } from '../../../generator/index.js';
import { workbench } from './workbench.js';
import { run } from './commands.js';
import { savedLatencyRun } from './latencyRun.js';

describe('Triton Studio with a real model: SmolLM2 on llama.cpp from the pipeline’s lenses', function () {
  // Building the llama.cpp step and a latency run on a 2-core machine take minutes.
  this.timeout(900_000);
  const root = resolve(__dirname, '../../..');
  const gguf = join(root, '.cache/llama/models/SmolLM2-135M-Instruct.Q4_1.gguf');
  const workspace = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const folder = join(workspace, 'smollm2');
  const pipeline = join(folder, 'smollm2.pipeline.json');
  let repository = '';

  before(async () => {
    assert.ok(existsSync(gguf), `${gguf} is missing: run npm run setup`);
    mkdirSync(folder, { recursive: true });
    // The sample as a user gets it from New Pipeline, the GGUF where set-up put it.
    const sample = JSON.parse(
      readFileSync(join(root, 'samples/smollm2-llama-cpp/smollm2-llama-cpp.pipeline.json'), 'utf8'),
    ) as Pipeline;
    delete sample.$schema;
    writeFileSync(pipeline, JSON.stringify(sample, null, 2));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  after(async () => {
    await vscode.commands.executeCommand('tritonStudio.stopLocalServer');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    // The suites after this one see the workspace as it was: one pipeline fewer to pick among.
    rmSync(folder, { recursive: true, force: true });
  });

  it('Generate, Build Backends, Start Local Server and Deploy serve it', async () => {
    repository = (await run<{ repository: string }>('generate', vscode.Uri.file(pipeline))).repository;
    const built = await run<{ built: { model: string }[] }>('build', repository);
    assert.deepEqual(built.built.map((m) => m.model).sort(), ['llama', 'smollm2']);
    await run('startLocalServer', repository);
    const deployed = await run<{ result: { ensembles: string[] } }>('deploy', repository);
    assert.deepEqual(deployed.result.ensembles, ['smollm2']);
  });

  it('▶ Send prompt on its sample prompt streams the model’s answer into the panel', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.window.showTextDocument(vscode.Uri.file(pipeline));
    // The lenses above the sample prompts: "The capital of France is" is the first.
    await workbench({ kind: 'clickCodeLens', text: 'Send prompt' });
    // The model knows the answer: it is not an echo of the prompt.
    await workbench({ kind: 'waitForWebviewText', text: 'Paris', timeoutMs: 120_000 });
    const shown = await workbench<string>({ kind: 'waitForWebviewText', text: 'done', timeoutMs: 120_000 });
    assert.match(shown, /smollm2/);
    assert.match(shown, /time to first token [\d.]+ ms/);
    assert.match(shown, /chunks ([2-9]|\d\d)\b/, 'streamed: more than one chunk');
    await workbench({ kind: 'screenshot', name: 'real-model-answer' });
  });

  it('⏱ Latency test on its lens measures the real model and shows the report', async () => {
    const reports = join(workspace, '.triton-studio', 'reports');
    await vscode.window.showTextDocument(vscode.Uri.file(pipeline));
    await workbench({ kind: 'clickCodeLens', text: 'Latency test' });
    await workbench({ kind: 'pickQuickItem', label: 'Quick' });
    const result = await savedLatencyRun(reports, 'smollm2', 300_000);
    assert.ok(result, 'no run saved');
    assert.equal(result.errors, 0);
    assert.ok(result.latency.p50Ms > 0);
    await workbench({ kind: 'waitForWebviewText', text: 'Pending requests, by step', timeoutMs: 60_000 });
    await vscode.commands.executeCommand('notifications.clearAll');
    await workbench({ kind: 'screenshot', name: 'real-model-latency-report' });
  });
});
