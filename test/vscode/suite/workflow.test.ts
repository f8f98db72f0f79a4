/**
 * The whole workflow from the command palette against a local tritonserver the extension starts.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import * as vscode from 'vscode';
import { openNativeTokenizer, type PerfReport } from '../../../client/index.js';
import type { Pipeline } from '../../../generator/index.js';
import type { SendPromptOutcome } from '../../../extension/commands/sendPrompt.js';
import type { TritonStudioApi } from '../../../extension/extension.js';
import { expectedAnswer, referenceTokenCount } from './simLlm.js';
import { testEnv } from './testEnv.js';
import { OUTPUT_PANEL_TEXT, workbench } from './workbench.js';
import { run, type Result } from './commands.js';

/** The charts of the latency lab's report (client/perf/report/reportCharts.ts), in page order. */
const REPORT_CHARTS = [
  'Latency percentiles vs load',
  'Throughput vs load',
  'TTFT distribution',
  'ITL distribution',
  'Throughput and latency over time',
  'Server time per request, by step',
  'Mean batch size, by step',
  'Pending requests, by step',
];

async function waitUntil(what: string, probe: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Triton Studio's CodeLenses of a file: title, command, the request's model and text, line. */
async function pipelineLenses(file: string) {
  const uri = vscode.Uri.file(file);
  // The lens command needs the file's text model, which VS Code drops a while after it closes.
  await vscode.workspace.openTextDocument(uri);
  const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>(
    'vscode.executeCodeLensProvider',
    uri,
  );
  return lenses
    .filter((l) => l.command?.command.startsWith('tritonStudio.'))
    .map((l) => {
      const request = l.command!.arguments![0] as { model: string; text?: string };
      return {
        title: l.command!.title,
        command: l.command!.command,
        model: request.model,
        text: request.text,
        line: l.range.start.line,
      };
    });
}

function api(): TritonStudioApi {
  return vscode.extensions.getExtension<TritonStudioApi>('triton-studio.triton-studio')!.exports;
}

/**
 * The whole workflow through the extension's commands, as a user runs it: a pipeline from a
 * sample, its repository generated and compiled, the local tritonserver started on it, the models
 * deployed, prompts answered exactly, latency runs measured, charted, compared and exported,
 * models unloaded and loaded from the server view, the server restarted and stopped.
 */
describe('Triton Studio: the whole workflow from the command palette, against a local tritonserver it starts', function () {
  this.timeout(240_000);
  const folder = join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, 'workflow');
  const pipeline = join(folder, 'gpt2-sim.pipeline.json');
  let repository = '';
  /** The streaming variant's repository and ensemble (decoupled sim-llm, native orchestrator). */
  let streamRepository = '';
  const STREAM_MODEL = 'gpt2_sim_stream';

  before(async () => {
    mkdirSync(folder, { recursive: true });
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  after(async () => {
    // The other suites talk to the runner's server through tritonStudio.serverUrl.
    await vscode.commands.executeCommand('tritonStudio.stopLocalServer');
  });

  it('registers every command that package.json contributes, and contributes every command it registers', async () => {
    const contributed = (
      vscode.extensions.getExtension('triton-studio.triton-studio')!.packageJSON as {
        contributes: { commands: { command: string; category: string }[] };
      }
    ).contributes.commands;
    const registered = (await vscode.commands.getCommands(true)).filter((c) => c.startsWith('tritonStudio.'));
    for (const c of contributed) {
      assert.ok(registered.includes(c.command), `${c.command} is contributed but not registered`);
      assert.equal(c.category, 'Triton Studio');
    }
    const ids = new Set(contributed.map((c) => c.command));
    // Not for the palette: the server view's focus, and the graph editor's state query (what its UI test reads).
    const internal = new Set(['tritonStudio.focusServerView', 'tritonStudio.graphEditor.state']);
    // VS Code itself registers `<view id>.focus`, `.open`… for every contributed view.
    for (const id of registered.filter((c) => !c.startsWith('tritonStudio.models.')))
      assert.ok(ids.has(id) || internal.has(id), `${id} is registered but not contributed`);
  });

  it('New Pipeline copies a sample into the workspace and opens it; it never overwrites a file', async () => {
    const created = await run<{ file: string }>('newPipeline', 'gpt2-sim', folder);
    assert.equal(created.file, pipeline);
    assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, pipeline);
    assert.equal((JSON.parse(readFileSync(pipeline, 'utf8')) as { name: string }).name, 'gpt2_sim');
    const again = await vscode.commands.executeCommand<Result<object>>(
      'tritonStudio.newPipeline',
      'gpt2-sim',
      folder,
    );
    assert.equal(again?.ok, false);
    assert.match(again.ok ? '' : again.error, /exists already/);
  });

  it('New Pipeline from a preset writes the preset family’s pipeline, which validates and generates', async () => {
    const created = await run<{ file: string }>('newPipeline', 'preset:sim-llm', folder, {
      tokenizer: 'gpt2',
      name: 'from_presets',
    });
    assert.equal(created.file, join(folder, 'from-presets.pipeline.json'));
    assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, created.file);
    const written = JSON.parse(readFileSync(created.file, 'utf8')) as Pipeline;
    assert.deepEqual(
      written.steps.map((s) => [s.name, s.preset, s.tokenizer]),
      [
        ['preprocessing', 'sim-llm/preprocessing', 'gpt2'],
        ['model', 'sim-llm/model', undefined],
        ['postprocessing', 'sim-llm/postprocessing', 'gpt2'],
      ],
    );
    // The generator takes it as it is: a repository with the ensemble and its three steps.
    const generated = await run<{ ensemble: string; files: number }>(
      'generate',
      vscode.Uri.file(created.file),
    );
    assert.equal(generated.ensemble, 'from_presets');
    const bad = await vscode.commands.executeCommand<Result<object>>(
      'tritonStudio.newPipeline',
      'preset:gpt-5',
      folder,
    );
    assert.equal(bad?.ok, false);
    assert.match(bad.ok ? '' : bad.error, /no preset family 'gpt-5': use one of tensorrt-llm, /);

    // From the palette, the pick lists the samples and then the preset families.
    const pending = vscode.commands.executeCommand('tritonStudio.newPipeline');
    // (The list renders the rows in view; a separator's label shows beside its first row.)
    const top = await workbench<string>({
      kind: 'waitForText',
      selector: '.quick-input-widget',
      text: 'Samples',
    });
    assert.match(top, /gpt2-sim GPT-2 tokenizer around sim-llm/);
    // The samples fill more than one view: the preset families follow them at the list's end.
    await workbench({ kind: 'pressKey', key: 'Control+End' });
    const listed = await workbench<string>({
      kind: 'waitForText',
      selector: '.quick-input-widget',
      text: 'Presets (an empty pipeline of a known interface, to fill in)',
    });
    assert.match(
      listed,
      /tensorrt-llm\s*preset preprocessing \(tokenize\) → model \(model\) → postprocessing/,
    );
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    assert.equal(await pending, undefined, 'nothing picked, nothing written');
  });

  it('Generate writes the repository under .triton-studio/ and remembers it for Build, Start and Deploy', async () => {
    const generated = await run<{ repository: string; ensemble: string; files: number }>(
      'generate',
      vscode.Uri.file(pipeline),
    );
    repository = generated.repository;
    assert.equal(
      repository,
      join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, '.triton-studio', 'gpt2-sim'),
    );
    assert.equal(generated.ensemble, testEnv('model'));
    assert.ok(existsSync(join(repository, generated.ensemble, 'config.pbtxt')));
    assert.equal(api().ctx.lastRepository, repository);
  });

  it('Import Model Repository turns the generated repository back into a pipeline file', async () => {
    const out = join(folder, 'imported.pipeline.json');
    const imported = await run<{ file: string }>('importRepository', repository, out);
    const pipelineJson = JSON.parse(readFileSync(imported.file, 'utf8')) as { steps: { name: string }[] };
    assert.deepEqual(
      pipelineJson.steps.map((s) => s.name),
      ['preprocessing', 'sim_llm', 'postprocessing'],
    );
  });

  it('Build Backends puts compiler errors in the Problems panel, on the generated source file beside the repository', async () => {
    const source = join(`${repository}.src`, 'preprocessing', 'step.cc');
    const original = readFileSync(source, 'utf8');
    appendFileSync(source, '\nthis_is_not_cpp;\n');
    try {
      const failed = await vscode.commands.executeCommand<Result<object>>('tritonStudio.build', repository);
      assert.equal(failed?.ok, false);
      const problems = vscode.languages.getDiagnostics(vscode.Uri.file(source));
      const error = problems.find((d) => d.source === 'Triton Studio build');
      assert.ok(
        error,
        `no build problem on ${source}: ${JSON.stringify(vscode.languages.getDiagnostics().map(([u]) => u.fsPath))}`,
      );
      assert.equal(error.range.start.line, original.split('\n').length);
      assert.match(error.message, /this_is_not_cpp/);
      // The error toast's first action takes the user to the problem.
      const toast = await workbench<{ message: string; buttons: string[] }>({
        kind: 'waitForNotification',
        text: 'Build failed with compiler errors',
      });
      assert.equal(toast.buttons[0], 'Show Problem');
      await workbench({
        kind: 'clickNotificationButton',
        text: 'Build failed with compiler errors',
        button: 'Show Problem',
      });
      await waitUntil(
        'the problem to open',
        () => vscode.window.activeTextEditor?.document.uri.fsPath === source,
      );
      assert.equal(vscode.window.activeTextEditor!.selection.start.line, error.range.start.line);
      await vscode.commands.executeCommand('notifications.clearAll');
    } finally {
      writeFileSync(source, original);
    }
  });

  it('Build Backends compiles every native step and clears the problems', async () => {
    const built = await run<{ built: { model: string; library: string }[] }>('build', repository);
    assert.deepEqual(built.built.map((m) => m.model).sort(), ['postprocessing', 'preprocessing', 'sim_llm']);
    for (const m of built.built) assert.ok(statSync(m.library).size > 0);
    assert.equal(
      vscode.languages.getDiagnostics().filter(([, ds]) => ds.some((d) => d.source === 'Triton Studio build'))
        .length,
      0,
    );
  });

  it('a pipeline with errors: Generate’s error notification offers Open Log, which shows the output channel with the errors', async () => {
    const broken = join(folder, 'broken.pipeline.json');
    const sample = JSON.parse(readFileSync(pipeline, 'utf8')) as { wires: { from: string; to: string }[] };
    sample.wires[0]!.to = 'preprocesing.QUERY';
    writeFileSync(broken, JSON.stringify(sample, null, 2));
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.commands.executeCommand('workbench.action.closePanel');
    const failed = await vscode.commands.executeCommand<Result<object>>(
      'tritonStudio.generate',
      vscode.Uri.file(broken),
    );
    assert.equal(failed?.ok, false);
    const text = 'broken.pipeline.json has errors';
    const toast = await workbench<{ message: string; buttons: string[] }>({
      kind: 'waitForNotification',
      text,
    });
    assert.deepEqual(toast.buttons, ['Show Problem', 'Open Log']);
    await workbench({ kind: 'clickNotificationButton', text, button: 'Open Log' });
    // The Triton Studio output channel, with the compiler-style line of the error.
    await workbench({ kind: 'waitForText', selector: OUTPUT_PANEL_TEXT, text: 'error TS-E010' });
    await workbench({ kind: 'waitForText', selector: OUTPUT_PANEL_TEXT, text: `error: ${text}` });
    await vscode.commands.executeCommand('workbench.action.closePanel');
    await vscode.commands.executeCommand('notifications.clearAll');
    rmSync(broken); // later commands pick among the workspace's pipelines
  });

  it('Start Local Server serves the repository; the status bar and the server view follow', async () => {
    const started = await run<{ grpcUrl: string; pid: number; modelRepository: string }>(
      'startLocalServer',
      repository,
    );
    assert.equal(started.modelRepository, repository);
    const state = await api().serverView.refresh();
    assert.deepEqual(
      { url: state.url, local: state.local, up: state.up },
      { url: started.grpcUrl, local: true, up: true },
    );
    assert.ok(
      state.models.every((m) => m.state !== 'READY'),
      'nothing is loaded before Deploy',
    );
  });

  it('Deploy loads every model; the server view lists them READY with their versions', async () => {
    const deployed = await run<{ result: { ensembles: string[] } }>('deploy', repository);
    assert.deepEqual(deployed.result.ensembles, [testEnv('model')]);
    const state = await api().serverView.refresh();
    assert.deepEqual(state.models.map((m) => `${m.name} v${m.version} ${m.state}`).sort(), [
      'gpt2_sim v1 READY',
      'postprocessing v1 READY',
      'preprocessing v1 READY',
      'sim_llm v1 READY',
    ]);
    await vscode.commands.executeCommand('tritonStudio.focusServerView');
    await workbench({ kind: 'waitForText', selector: '.part.sidebar', text: 'sim_llmv1 · READY' });
    await workbench({ kind: 'screenshot', name: 'server-view' });
  });

  it('runs Run Latency Test from the command palette: a quick pick for the load, an input box for the prompt, then the report', async () => {
    const title = 'Triton Studio: Run Latency Test';
    await workbench({ kind: 'runFromPalette', title });
    await workbench({ kind: 'pickQuickItem', label: 'Quick' });
    await workbench({ kind: 'answerInputBox', title, text: 'From the palette.' });
    const shown = await workbench<string>({
      kind: 'waitForWebviewText',
      text: 'Pending requests, by step',
      timeoutMs: 60_000,
    });
    assert.match(shown, /Request count \(requests\)\s*20\b/, 'the summary of the quick run: 20 requests');
    assert.match(shown, /Error request count \(requests\)\s*0\b/, '… and no errors');
    await vscode.commands.executeCommand('workbench.action.closePanel');
    await vscode.commands.executeCommand('notifications.clearAll');
    // The picture shows the charts (the summary table above them is in the assertions).
    const scrolled = await workbench<number>({
      kind: 'webviewScroll',
      selector: '[data-chart="latency-vs-load"]',
    });
    assert.ok(scrolled > 0, 'the charts are below the summary: the report scrolled to them');
    await workbench({ kind: 'screenshot', name: 'latency-report' });
  });

  it('Send Prompt goes to the local server and answers exactly', async () => {
    const prompt = 'The local server answers.';
    const outcome = await vscode.commands.executeCommand<SendPromptOutcome>(
      'tritonStudio.sendPrompt',
      prompt,
    );
    assert.ok(outcome?.ok, `prompt failed: ${outcome && !outcome.ok ? outcome.error : ''}`);
    assert.equal(outcome.serverUrl, api().ctx.localServer.running?.grpcUrl);
    assert.equal(outcome.text, await expectedAnswer(prompt));
  });

  it('"▶ Send prompt" above a .prompt block streams the answer into the side panel, with its front matter applied', async () => {
    const file = join(folder, 'hello.prompt');
    writeFileSync(
      file,
      '---\nmax_tokens: 7\n---\nFirst prompt, not this one.\n===\nTriton Studio streams answers.\n',
    );
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.window.showTextDocument(vscode.Uri.file(file));
    const answer = await expectedAnswer('Triton Studio streams answers.', 7);
    await workbench({ kind: 'clickCodeLens', text: 'Send prompt', index: 1 });
    const shown = await workbench<string>({ kind: 'waitForWebviewText', text: answer });
    assert.match(shown, /time to first token [\d.]+ ms/);
    assert.match(shown, /chunks [1-7]\b/);
    assert.match(shown, /done/);
    await workbench({ kind: 'screenshot', name: 'codelens-answer' });
  });

  it('"■ Stop" in the answer panel stops a long streamed answer', async () => {
    // sim-llm spends about 2 ms per generated token: 4,000 tokens take about 8 s.
    const file = join(folder, 'long.prompt');
    writeFileSync(file, '---\nmax_tokens: 4000\n---\nA long answer, please.\n');
    await vscode.window.showTextDocument(vscode.Uri.file(file));
    await workbench({ kind: 'clickCodeLens', text: 'Send prompt' });
    await workbench({ kind: 'waitForWebviewText', text: 'max_tokens 4000' });
    const started = Date.now();
    await workbench({ kind: 'clickInWebview', within: 'max_tokens 4000', button: 'Stop' });
    const shown = await workbench<string>({ kind: 'waitForWebviewText', text: 'stopped' });
    assert.ok(Date.now() - started < 6_000, 'stopped well before the answer would have ended');
    assert.doesNotMatch(shown, /\bdone\b|failed/);
  });

  it('a streaming pipeline (decoupled sim-llm behind the native orchestrator) streams its answer into the panel with tokens/s shown as it arrives', async () => {
    // gpt2-sim with sim-llm decoupled: one response per token; served by the orchestrator, beside
    // the running pipeline (uploaded: the local server serves the other repository).
    const sample = JSON.parse(readFileSync(pipeline, 'utf8')) as Pipeline;
    sample.name = STREAM_MODEL;
    const sim = sample.steps.find((s) => s.kind === 'model')!;
    const simName = sim.name;
    sim.name = 'sim_llm_stream'; // not the running pipeline's sim_llm, which the upload would replace
    sim.decoupled = true;
    sim.inputs = [{ name: 'streaming', dataType: 'BOOL', dims: [1], optional: true }];
    // 5 ms a token: the 4,000-token answer lasts 20 s, so a loaded box still clicks Stop before its
    // end (at the sample's 2 ms it lasted 8 s, and one CI run clicked after it was done).
    sim.parameters = { ...sim.parameters, decode_us_per_step: 5000 };
    sample.inputs.push({ name: 'stream', dataType: 'BOOL', dims: [1], optional: true });
    sample.wires = sample.wires.map((w) => ({
      from: w.from.replace(`${simName}.`, `${sim.name}.`),
      to: w.to.replace(`${simName}.`, `${sim.name}.`),
    }));
    sample.wires.push({ from: 'stream', to: `${sim.name}.streaming` });
    delete sample.layout;
    const file = join(folder, 'gpt2-sim-stream.pipeline.json');
    writeFileSync(file, JSON.stringify(sample, null, 2));
    const generated = await run<{ repository: string; ensemble: string }>('generate', vscode.Uri.file(file));
    streamRepository = generated.repository;
    assert.equal(generated.ensemble, STREAM_MODEL);
    await run('build', streamRepository);
    const deployed = await run<{ result: { models: { model: string; state: string }[] } }>(
      'deploy',
      streamRepository,
    );
    assert.deepEqual(
      deployed.result.models.map((m) => `${m.model} ${m.state}`),
      ['sim_llm_stream ready', `${STREAM_MODEL} ready`],
    );

    const prompt = join(folder, 'stream.prompt');
    writeFileSync(prompt, `---\nmodel: ${STREAM_MODEL}\nmax_tokens: 4000\n---\nStream this, please.\n`);
    // Alone on screen: the lens click takes the first lens of every visible editor.
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.window.showTextDocument(vscode.Uri.file(prompt));
    await workbench({ kind: 'clickCodeLens', text: 'Send prompt' });
    await workbench({ kind: 'waitForWebviewText', text: 'max_tokens 4000' });
    // sim-llm decodes a token per ~5 ms: after a second and a half, hundreds of chunks have come,
    // and tokens/s (never more than ~200) is on screen while the state still says answering.
    await new Promise((r) => setTimeout(r, 1_500));
    const streaming = await workbench<string>({ kind: 'waitForWebviewText', text: 'answering' });
    const tokensPerSecond = Number(/tokens\/s\s*([\d.]+)/.exec(streaming)?.[1]);
    const chunks = Number(/chunks\s*(\d+)/.exec(streaming)?.[1]);
    assert.ok(chunks > 10 && chunks < 4000, `chunks while streaming: ${streaming}`);
    assert.ok(tokensPerSecond > 50 && tokensPerSecond < 250, `tokens/s while streaming: ${streaming}`);
    await workbench({ kind: 'clickInWebview', within: 'max_tokens 4000', button: 'Stop' });
    const stopped = await workbench<string>({ kind: 'waitForWebviewText', text: 'stopped' });
    assert.ok(Number(/chunks\s*(\d+)/.exec(stopped)?.[1]) < 4000, `stopped before the end: ${stopped}`);
  });

  it('a pipeline file gets a send-prompt and a latency-test lens above each of its sample prompts, for its ensemble', async () => {
    const text = readFileSync(pipeline, 'utf8');
    const { name: ensemble, samplePrompts } = JSON.parse(text) as { name: string; samplePrompts: string[] };
    assert.ok(samplePrompts.length >= 2, 'the gpt2-sim sample has sample prompts');
    const lenses = await pipelineLenses(pipeline);
    assert.deepEqual(
      lenses.map((l) => [l.title, l.command, l.model, l.text]),
      samplePrompts.flatMap((prompt) => [
        ['$(play) Send prompt', 'tritonStudio.sendPrompt', ensemble, prompt],
        ['$(watch) Latency test', 'tritonStudio.runLatencyTest', ensemble, prompt],
      ]),
    );
    // Each pair sits on the line of its prompt.
    const lines = text.split('\n');
    for (const l of lenses) assert.ok(lines[l.line]!.includes(JSON.stringify(l.text)), lines[l.line]);

    // Clicking the second prompt's lens streams that prompt's answer into the side panel.
    // The pipeline alone on screen: the lens index counts the lenses of every visible editor.
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.window.showTextDocument(vscode.Uri.file(pipeline));
    await workbench({ kind: 'clickCodeLens', text: 'Send prompt', index: 1 });
    const shown = await workbench<string>({
      kind: 'waitForWebviewText',
      text: await expectedAnswer(samplePrompts[1]!),
    });
    assert.match(shown, /done/);
  });

  it('a pipeline file without sample prompts gets the two lenses above its ensemble name (the prompt is asked for)', async () => {
    const imported = join(folder, 'imported.pipeline.json');
    assert.equal(
      (JSON.parse(readFileSync(imported, 'utf8')) as { samplePrompts?: unknown }).samplePrompts,
      undefined,
    );
    const lenses = await pipelineLenses(imported);
    assert.deepEqual(
      lenses.map((l) => [l.title, l.model, l.text]),
      [
        ['$(play) Send prompt', testEnv('model'), undefined],
        ['$(watch) Latency test', testEnv('model'), undefined],
      ],
    );
    assert.match(readFileSync(imported, 'utf8').split('\n')[lenses[0]!.line]!, /^\s*"name"/);
  });

  it('a stop word in the front matter cuts the answer there', async () => {
    const prompt = 'one two three four';
    const full = await expectedAnswer(prompt, 8);
    const stop = full.split(' ').slice(2).join(' ').slice(0, 4);
    const outcome = await vscode.commands.executeCommand<SendPromptOutcome>('tritonStudio.sendPrompt', {
      text: prompt,
      maxTokens: 8,
      stop: [stop],
    });
    assert.ok(outcome?.ok);
    assert.equal(outcome.stoppedAt, stop);
    assert.equal(outcome.text, full.slice(0, full.indexOf(stop)));
  });

  let firstRun = '';
  let secondRun = '';

  it('Run Latency Test measures a concurrency sweep, saves it and charts it', async () => {
    const measured = await run<{
      file: string;
      reports: { load: { concurrency: number }; results: { requests: number; errors: number } }[];
    }>('runLatencyTest', { text: 'How fast is it?', maxTokens: 8, concurrency: [1, 2], requests: 12 });
    firstRun = measured.file;
    assert.deepEqual(
      measured.reports.map((r) => [r.load.concurrency, r.results.requests, r.results.errors]),
      [
        [1, 12, 0],
        [2, 12, 0],
      ],
    );
    assert.ok(existsSync(firstRun));
    await workbench({ kind: 'waitForWebviewText', text: 'Latency percentiles vs load' });
    const second = await run<{ file: string }>('runLatencyTest', {
      text: 'How fast is it?',
      maxTokens: 16,
      concurrency: [1, 4],
      requests: 12,
    });
    secondRun = second.file;
  });

  it("Run Latency Test counts output tokens with the pipeline's native tokenizer (as `perf --tokenizer`), not streamed chunks", async () => {
    // sim-llm echoes the prompt's one token 16 times: 16 streamed chunks of "=", while the whole
    // answer "================" is one GPT-2 token.
    const prompt = '=';
    const measured = await run<{ reports: PerfReport[] }>('runLatencyTest', {
      text: prompt,
      model: STREAM_MODEL,
      maxTokens: 16,
      concurrency: [1],
      requests: 4,
    });
    const report = measured.reports[0]!;
    const tokenizerFile = join(streamRepository, STREAM_MODEL, '1', 'tokenizer.json');
    assert.equal(report.tokenizer, tokenizerFile, 'the orchestrator’s own tokenizer, from its repository');
    const answer = await expectedAnswer(prompt, 16);
    const native = await openNativeTokenizer(tokenizerFile);
    const tokens = await native.count(answer).finally(() => native.close());
    assert.equal(
      tokens,
      await referenceTokenCount(answer),
      'the native tokenizer counts as Hugging Face does',
    );
    assert.equal(report.records!.length, 4);
    for (const record of report.records!) {
      assert.equal(record.responseMs.length, 16, '16 streamed chunks');
      assert.equal(
        record.responseTokens.reduce((a, b) => a + b, 0),
        tokens,
        'output tokens: the native count of the answer, not its chunks',
      );
    }
    assert.notEqual(tokens, 16, 'tokens and chunks differ here, so the test tells them apart');
    assert.equal(report.metrics.output_sequence_length?.avg, tokens);
  });

  it('cancelling a running latency test in its progress notification stops it, saves nothing and shows no error', async () => {
    const reports = join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, '.triton-studio', 'reports');
    const before = new Set(readdirSync(reports));
    await vscode.commands.executeCommand('notifications.clearAll');
    const started = Date.now();
    // 500 requests of 200 tokens at ~2 ms a token: more than three minutes if it were not stopped.
    const pending = vscode.commands.executeCommand<Result<object> & { cancelled?: boolean }>(
      'tritonStudio.runLatencyTest',
      { text: 'Cancel me.', maxTokens: 200, concurrency: [1], requests: 500 },
    );
    await workbench({ kind: 'waitForNotification', text: 'latency test of' });
    await new Promise((r) => setTimeout(r, 1_000));
    await workbench({ kind: 'clickNotificationButton', text: 'latency test of', button: 'Cancel' });
    const outcome = await pending;
    assert.ok(Date.now() - started < 20_000, 'stopped long before the run would have ended');
    assert.deepEqual(outcome, { ok: false, error: 'Latency test cancelled.', cancelled: true });
    assert.deepEqual(
      readdirSync(reports).filter((f) => !before.has(f)),
      [],
      'nothing saved',
    );
    await new Promise((r) => setTimeout(r, 1_000));
    const toasts = await workbench<string[]>({ kind: 'notifications' });
    assert.deepEqual(
      toasts.filter((t) => /fail|error/i.test(t)),
      [],
      'no error notification',
    );
  });

  it('Compare Latency Runs shows two runs side by side with every chart, and exports JSON, CSV, HTML and PNG', async () => {
    const compared = await run<{ charts: string[] }>('compareLatencyRuns', firstRun, secondRun);
    // Every chart of the latency lab's report, each beside the same chart of the other run.
    assert.deepEqual(
      compared.charts,
      REPORT_CHARTS.flatMap((title) => [title, title]),
    );
    await workbench({ kind: 'waitForWebviewText', text: 'Pending requests, by step' });
    // The report alone on screen for the picture: no answer panel, output panel or toasts.
    await vscode.commands.executeCommand('workbench.action.closeEditorsInOtherGroups');
    await vscode.commands.executeCommand('workbench.action.closePanel');
    await vscode.commands.executeCommand('notifications.clearAll');
    await workbench<number>({ kind: 'webviewScroll', selector: '[data-chart="latency-vs-load"]' });
    await workbench({ kind: 'screenshot', name: 'latency-compare' });

    const out = join(folder, 'export');
    mkdirSync(out, { recursive: true });
    for (const format of ['json', 'csv', 'html', 'png']) {
      const exported = await run<{ file: string }>(
        'exportLatencyReport',
        format,
        join(out, `report.${format}`),
      );
      assert.ok(statSync(exported.file).size > 0);
    }
    const csv = readFileSync(join(out, 'report.csv'), 'utf8').trim().split('\n');
    assert.match(csv[0]!, /^report,mode,load,run,metric,unit,avg/);
    const labels = [firstRun, secondRun].map((f) => basename(f, '.json'));
    assert.deepEqual(
      [...new Set(csv.slice(1).map((row) => row.split(',').slice(0, 3).join(' ')))],
      [
        `${labels[0]} concurrency 1`,
        `${labels[0]} concurrency 2`,
        `${labels[1]} concurrency 1`,
        `${labels[1]} concurrency 4`,
      ],
      'every load level of both runs',
    );
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    assert.doesNotMatch(
      html,
      /<script[^>]+src=|<link[^>]+href=|@import/,
      'the HTML export loads nothing from elsewhere',
    );
    // The CLI writes the very same document for the same two saved runs.
    const root = vscode.extensions.getExtension('triton-studio.triton-studio')!.extensionPath;
    const fromCli = join(out, 'cli.html');
    const code = await new Promise<number | null>((done) =>
      spawn(
        process.execPath,
        [join(root, 'bin/triton-studio.js'), 'perf', 'report', firstRun, secondRun, '--html', fromCli],
        { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, stdio: 'ignore' },
      ).on('close', done),
    );
    assert.equal(code, 0, 'triton-studio perf report failed');
    assert.ok(readFileSync(fromCli, 'utf8') === html, 'the CLI wrote a different document');
    const png = readFileSync(join(out, 'report.png'));
    assert.equal(png.subarray(1, 4).toString(), 'PNG');
  });

  it('Open Latency Report shows a saved run with every chart, under the webview’s strict CSP (scripts only with its nonce)', async () => {
    const opened = await run<{ charts: string[] }>('openLatencyReport', firstRun);
    assert.deepEqual(opened.charts, REPORT_CHARTS);
    await workbench({
      kind: 'webviewWaitFor',
      selector: `meta[http-equiv="Content-Security-Policy"][content^="default-src 'none'"][content*="script-src 'nonce-"]`,
    });
    // VS Code's own acquireVsCodeApi script is the one the host injects.
    await workbench({ kind: 'webviewGone', selector: 'script:not([nonce]):not(#_vscodeApiScript)' });
  });

  it('"⏱ Latency test" above a .prompt block measures that prompt with its front matter and saves the run', async () => {
    const file = join(folder, 'measure.prompt');
    writeFileSync(file, '---\nmax_tokens: 4\n---\nMeasure this prompt.\n');
    const reports = join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, '.triton-studio', 'reports');
    const before = new Set(readdirSync(reports));
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.window.showTextDocument(vscode.Uri.file(file));
    await workbench({ kind: 'clickCodeLens', text: 'Latency test' });
    await workbench({ kind: 'pickQuickItem', label: 'Quick' });
    await waitUntil('the run to be saved', () => readdirSync(reports).some((f) => !before.has(f)));
    const saved = readdirSync(reports).find((f) => !before.has(f))!;
    const sweep = JSON.parse(readFileSync(join(reports, saved), 'utf8')) as {
      kind: string;
      points: {
        runs: { prompt: string; maxTokens: number; results: { requests: number; errors: number } }[];
      }[];
    };
    assert.equal(sweep.kind, 'triton-studio.perf-sweep', 'saved as `perf --export` writes a sweep');
    const measured = sweep.points[0]!.runs[0]!;
    assert.deepEqual(
      [measured.prompt, measured.maxTokens, measured.results.requests, measured.results.errors],
      ['Measure this prompt.', 4, 20, 0],
    );
  });

  it('Show Server Metrics reads the server’s own per-model statistics', async () => {
    const metrics = await run<{ models: { model: string; requests: number }[] }>('showServerMetrics');
    const ensemble = metrics.models.find((m) => m.model === testEnv('model'));
    assert.ok(ensemble && ensemble.requests > 0, JSON.stringify(metrics.models));
  });

  it('the server view’s inline actions unload and load a model', async () => {
    const model = { name: testEnv('model') };
    await run('unloadModel', model);
    let state = await api().serverView.refresh();
    assert.notEqual(state.models.find((m) => m.name === model.name)?.state, 'READY');
    await run('loadModel', model);
    state = await api().serverView.refresh();
    assert.equal(state.models.find((m) => m.name === model.name)?.state, 'READY');
  });

  it('Show Server Log opens the local server’s log', async () => {
    const shown = await run<{ logFile: string }>('showServerLog');
    assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, shown.logFile);
    assert.match(vscode.window.activeTextEditor!.document.getText(), /Started GRPCInferenceService/);
  });

  it('Restart Local Server starts a fresh process on the same repository; Stop stops it and the view says so', async () => {
    const before = api().ctx.localServer.running!.pid;
    const restarted = await run<{ pid: number; modelRepository: string }>('restartLocalServer');
    assert.notEqual(restarted.pid, before);
    assert.equal(restarted.modelRepository, repository);
    const stopped = await run<{ stopped: boolean }>('stopLocalServer');
    assert.equal(stopped.stopped, true);
    const state = await api().serverView.refresh();
    assert.equal(state.local, false);
    assert.equal(state.url, testEnv('serverUrl'), 'back to tritonStudio.serverUrl');
  });

  it('shares one tritonserver with the CLI: the extension uses the one `server start` started, and the CLI sees the one it starts', async () => {
    const root = vscode.extensions.getExtension('triton-studio.triton-studio')!.extensionPath;
    // Same state folder as the extension host (TRITON_STUDIO_STATE_DIR, set by runTests.ts).
    // Asynchronously: the extension host must keep answering while the CLI waits for the server.
    const cli = async (...args: string[]) => {
      const r = await new Promise<{ code: number | null; out: string }>((done) => {
        const child = spawn(process.execPath, [join(root, 'bin/triton-studio.js'), 'server', ...args], {
          env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
          // Not piped stderr: the server the CLI leaves running must not hold our pipes open.
          stdio: ['ignore', 'pipe', 'ignore'],
        });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.on('close', (code) => done({ code, out }));
      });
      // `server status` exits 1 when no server runs (what a script checks).
      const ok = r.code === 0 || (args[0] === 'status' && r.code === 1);
      assert.ok(ok, `server ${args.join(' ')} exited ${r.code}: ${r.out}`);
      return JSON.parse(r.out) as {
        state?: string;
        pid?: number;
        grpcUrl?: string;
        server?: { pid: number };
      };
    };
    const fromCli = (await cli('start', '--repository', repository, '--json')) as {
      pid: number;
      grpcUrl: string;
    };
    await waitUntil(
      'the extension to see the CLI’s server',
      () => api().ctx.localServer.running?.pid === fromCli.pid,
    );
    const view = await api().serverView.refresh();
    assert.deepEqual({ url: view.url, local: view.local }, { url: fromCli.grpcUrl, local: true });
    const reused = await run<{ pid: number }>('startLocalServer', repository);
    assert.equal(reused.pid, fromCli.pid, 'Start Local Server started a second server');
    await run('deploy', repository);
    const prompt = 'One server for the CLI and the editor.';
    const answer = await run<{ serverUrl: string; text: string }>('sendPrompt', prompt);
    assert.equal(answer.serverUrl, fromCli.grpcUrl);
    assert.equal(answer.text, await expectedAnswer(prompt));
    await run('stopLocalServer');
    assert.equal((await cli('status', '--json')).state, 'stopped');

    const fromEditor = await run<{ pid: number }>('startLocalServer', repository);
    assert.equal((await cli('status', '--json')).server?.pid, fromEditor.pid);
    await cli('stop', '--json');
    await waitUntil(
      'the extension to see the CLI stop it',
      () => api().ctx.localServer.running === undefined,
    );
  });

  it('keeps secret headers in SecretStorage, never in the settings', async () => {
    await run('setSecretHeader', 'Authorization', 'Bearer s3cret');
    const { ctx } = api();
    assert.deepEqual(await ctx.secrets.headers(testEnv('serverUrl')), { authorization: 'Bearer s3cret' });
    const settings = readFileSync(
      join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, '.vscode', 'settings.json'),
      'utf8',
    );
    assert.doesNotMatch(settings, /s3cret/);
    await run('clearSecrets');
    assert.deepEqual(await ctx.secrets.headers(testEnv('serverUrl')), {});
  });
});
