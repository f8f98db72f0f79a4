/** Send Prompt in real VS Code against the real gpt2-sim ensemble on tritonserver. */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { SendPromptOutcome } from '../../../extension/commands/sendPrompt.js';
import { unreachableServerUrl, withWorkspaceSetting } from './settings.js';
import { expectedAnswer } from './simLlm.js';
import { testEnv } from './testEnv.js';

const COMMAND = 'tritonStudio.sendPrompt';

function sendPrompt(text?: string): Thenable<SendPromptOutcome | undefined> {
  return text === undefined
    ? vscode.commands.executeCommand(COMMAND)
    : vscode.commands.executeCommand(COMMAND, text);
}

function answered(outcome: SendPromptOutcome | undefined): Extract<SendPromptOutcome, { ok: true }> {
  assert.ok(outcome, 'the command returned nothing');
  assert.ok(outcome.ok, `the prompt failed: ${outcome.ok ? '' : outcome.error}`);
  return outcome;
}

function failed(outcome: SendPromptOutcome | undefined): Extract<SendPromptOutcome, { ok: false }> {
  assert.ok(outcome, 'the command returned nothing');
  assert.ok(!outcome.ok, `expected a failure, got the answer ${JSON.stringify(outcome)}`);
  return outcome;
}

describe('Triton Studio: Send Prompt, against the real gpt2-sim ensemble on tritonserver', () => {
  const maxTokens = () => Number(testEnv('maxTokens'));

  beforeEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('answers the text it is given with exactly the expected text, from the configured server and model', async () => {
    const prompt = 'Triton Studio serves LLMs without Python.';
    const outcome = answered(await sendPrompt(prompt));
    assert.equal(outcome.text, await expectedAnswer(prompt, maxTokens()));
    assert.equal(outcome.prompt, prompt);
    assert.equal(outcome.serverUrl, testEnv('serverUrl'));
    assert.equal(outcome.model, testEnv('model'));
    assert.equal(outcome.maxTokens, maxTokens());
    assert.ok(outcome.latencyMs > 0 && outcome.ttftMs > 0 && outcome.ttftMs <= outcome.latencyMs);
  });

  it('keeps non-ASCII text intact on the way through the extension host', async () => {
    const prompt = 'héllo 你好 🤗 naïve café';
    assert.equal(answered(await sendPrompt(prompt)).text, await expectedAnswer(prompt, maxTokens()));
  });

  it('sends the editor selection when called without text', async () => {
    const document = await vscode.workspace.openTextDocument({
      language: 'python',
      content: 'def f(x):\n\treturn x * 2\n# not part of the prompt\n',
    });
    const editor = await vscode.window.showTextDocument(document);
    editor.selection = new vscode.Selection(0, 0, 2, 0);
    const selected = 'def f(x):\n\treturn x * 2\n';

    const outcome = answered(await sendPrompt());
    assert.equal(outcome.prompt, selected);
    assert.equal(outcome.text, await expectedAnswer(selected, maxTokens()));
  });

  it('asks for the prompt when nothing is selected, and sends nothing when the input is dismissed', async () => {
    const pending = sendPrompt();
    await new Promise((r) => setTimeout(r, 1_000)); // the input box opens
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    assert.equal(await pending, undefined);
  });

  it('names tritonStudio.serverUrl when the server cannot be reached, and recovers once it is fixed', async () => {
    const unreachable = await unreachableServerUrl();
    const outcome = await withWorkspaceSetting('serverUrl', unreachable, async () =>
      failed(await sendPrompt('hello')),
    );
    assert.equal(outcome.setting, 'tritonStudio.serverUrl');
    assert.match(outcome.error, new RegExp(`Cannot reach the Triton server at ${unreachable}`));
    assert.match(outcome.error, /change the setting tritonStudio\.serverUrl/);

    const prompt = 'back on the right server';
    assert.equal(answered(await sendPrompt(prompt)).text, await expectedAnswer(prompt, maxTokens()));
  });

  it('sends the tritonStudio.maxTokens setting as max_tokens', async () => {
    const prompt = 'The answer is cut at the configured number of tokens.';
    const outcome = await withWorkspaceSetting('maxTokens', 5, async () =>
      answered(await sendPrompt(prompt)),
    );
    assert.equal(outcome.maxTokens, 5);
    assert.equal(outcome.text, await expectedAnswer(prompt, 5));
  });

  it('names tritonStudio.model when the server has no such model', async () => {
    const outcome = await withWorkspaceSetting('model', 'no_such_model', async () =>
      failed(await sendPrompt('hello')),
    );
    assert.equal(outcome.setting, 'tritonStudio.model');
    assert.match(outcome.error, /no model 'no_such_model'/);
  });

  it('names tritonStudio.serverUrl when it is not HOST:PORT, without contacting anything', async () => {
    const outcome = await withWorkspaceSetting('serverUrl', 'not a url', async () =>
      failed(await sendPrompt('hello')),
    );
    assert.equal(outcome.setting, 'tritonStudio.serverUrl');
    assert.match(outcome.error, /Setting tritonStudio\.serverUrl is 'not a url': set it to HOST:PORT/);
  });

  it('still answers exactly after all the failures above', async () => {
    const prompt = 'Triton Studio sends the selection to the real ensemble and shows the answer below.';
    const document = await vscode.workspace.openTextDocument({
      language: 'markdown',
      content: `${prompt}\n`,
    });
    const editor = await vscode.window.showTextDocument(document);
    editor.selection = new vscode.Selection(0, 0, 0, prompt.length);
    const outcome = answered(await sendPrompt());
    assert.equal(outcome.prompt, prompt);
    assert.equal(outcome.text, await expectedAnswer(prompt, maxTokens()));
  });
});
