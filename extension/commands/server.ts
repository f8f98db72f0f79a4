/**
 * The server commands: Start / Stop / Restart Local Server, Show Server Log, Show Server
 * Metrics, model load / unload / statistics (the server view's inline actions), and the secret
 * headers a remote server may need.
 */
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import {
  LocalServerError,
  locateTritonServer,
  statisticsDelta,
  type ServerModelBreakdown,
} from '../../client/index.js';
import type { Ctx } from '../context.js';
import { readServerUrl, SETTING } from '../settings.js';
import { INSTALL_LOCAL_SERVER_COMMAND } from '../setup/installLocalServer.js';
import { chooseTritonserver } from '../setup/tritonserverBinary.js';
import { escapeHtml, webviewHtml } from '../webview/html.js';
import { pickRepository } from './pick.js';
import {
  actionsFor,
  errorMessage,
  notify,
  openOutput,
  openSetting,
  showError,
  startLocalServerAction,
  withProgress,
  type ErrorAction,
  type Outcome,
} from './ui.js';

const installLocalServerAction: ErrorAction = {
  title: 'Install Local Server',
  run: () => vscode.commands.executeCommand(INSTALL_LOCAL_SERVER_COMMAND),
};

/**
 * Why no tritonserver can run, in the user's terms, with the buttons that fix it; undefined when
 * one is there. (client/ would say "run npm run setup", which only a checkout can follow.)
 */
function missingTritonserver(ctx: Ctx): { message: string; actions: ErrorAction[] } | undefined {
  const choice = chooseTritonserver(ctx.storage);
  try {
    locateTritonServer(choice.binary);
    return undefined;
  } catch (error) {
    const fix = [installLocalServerAction, openSetting(SETTING.tritonserver)];
    if (choice.source === 'none')
      return {
        message:
          'No Triton server is installed for the local server: Install Local Server (Triton 2.51 from PyPI, ~150 MB, ' +
          `into the extension's storage), or set ${SETTING.tritonserver} to a tritonserver binary you have.`,
        actions: fix,
      };
    const from =
      choice.source === 'setting' ? `setting ${SETTING.tritonserver}` : `$TRITON_STUDIO_TRITONSERVER`;
    return {
      message: `The tritonserver named by ${from} cannot run: ${errorMessage(error).replace(/: run `npm run setup`.*$/, '')}. Fix the ${choice.source === 'setting' ? 'setting' : 'variable'}, or Install Local Server.`,
      actions:
        choice.source === 'setting' ? [openSetting(SETTING.tritonserver), installLocalServerAction] : fix,
    };
  }
}

export interface LocalServerInfo {
  grpcUrl: string;
  httpUrl: string;
  metricsUrl: string;
  pid: number;
  logFile: string;
  modelRepository: string;
}

export async function startLocalServer(
  ctx: Ctx,
  arg?: unknown,
): Promise<Outcome<LocalServerInfo> | undefined> {
  const running = ctx.localServer.running ?? (await ctx.localServer.refresh());
  if (running) return alreadyRunning(running);
  const missing = missingTritonserver(ctx);
  if (missing) {
    void showError(ctx, missing.message, ...missing.actions);
    return { ok: false, error: missing.message, setting: SETTING.tritonserver };
  }
  const repository = await pickRepository(ctx, arg);
  if (!repository) return undefined;
  try {
    const start = await withProgress('Triton Studio: starting the local tritonserver', () =>
      ctx.localServer.start(repository),
    );
    const server = start.server;
    if (!start.started) return alreadyRunning(server);
    if (start.recovered) ctx.log(start.recovered);
    ctx.log(
      `tritonserver ${server.pid} serving ${repository}: gRPC ${server.grpcUrl}, HTTP ${server.httpUrl}, log ${server.logFile}`,
    );
    void notify(
      'info',
      `Local server started at ${server.grpcUrl}. Deploy the repository to load its models.`,
      {
        title: 'Deploy',
        run: () => vscode.commands.executeCommand('tritonStudio.deploy', repository),
      },
    );
    return { ok: true, ...info(server) };
  } catch (error) {
    const logAction =
      error instanceof LocalServerError && error.logFile
        ? [{ title: 'Open Log', run: () => vscode.window.showTextDocument(vscode.Uri.file(error.logFile!)) }]
        : actionsFor(ctx, error);
    void showError(ctx, `The local server did not start: ${errorMessage(error)}`, ...logAction);
    return { ok: false, error: errorMessage(error) };
  }
}

/** The shared server runs already (this window, another one or `triton-studio server start` started it). */
function alreadyRunning(server: LocalServerInfo): Outcome<LocalServerInfo> {
  void notify(
    'info',
    `The shared local server is running already (pid ${server.pid}, ${server.grpcUrl}, serving ${server.modelRepository}); deploy uploads models to it.`,
  );
  return { ok: true, ...info(server) };
}

function info(s: LocalServerInfo): LocalServerInfo {
  const { grpcUrl, httpUrl, metricsUrl, pid, logFile, modelRepository } = s;
  return { grpcUrl, httpUrl, metricsUrl, pid, logFile, modelRepository };
}

export async function stopLocalServer(ctx: Ctx): Promise<Outcome<{ stopped: boolean }>> {
  const server = ctx.localServer.running ?? (await ctx.localServer.refresh());
  const stopped = await ctx.localServer.stop();
  if (stopped) {
    ctx.connections.forget(server!.grpcUrl);
    ctx.log(`tritonserver ${server!.pid} stopped`);
  } else void notify('info', 'No local server is running.');
  return { ok: true, stopped };
}

/** Stop, then start on the same repository: the server loads the rebuilt models' new code. */
export async function restartLocalServer(
  ctx: Ctx,
  arg?: unknown,
): Promise<Outcome<LocalServerInfo> | undefined> {
  const repository = ctx.localServer.running?.modelRepository ?? (typeof arg === 'string' ? arg : undefined);
  await stopLocalServer(ctx);
  return startLocalServer(ctx, repository);
}

export async function showServerLog(ctx: Ctx): Promise<Outcome<{ logFile: string }>> {
  const logFile = ctx.localServer.running?.logFile ?? ctx.localServer.lastLogFile;
  if (!logFile || !existsSync(logFile)) {
    const message =
      'No local server log yet: start the local server first. (A remote server keeps its log on its own machine.)';
    void notify('info', message, startLocalServerAction);
    return { ok: false, error: message };
  }
  const document = await vscode.workspace.openTextDocument(vscode.Uri.file(logFile));
  const editor = await vscode.window.showTextDocument(document, { preview: false });
  // Scroll to the end: the newest lines are the ones that explain a failure.
  const end = new vscode.Position(document.lineCount, 0);
  editor.revealRange(new vscode.Range(end, end));
  return { ok: true, logFile };
}

/** Per-model statistics since the server started, as a table in a webview panel. */
export async function showServerMetrics(
  ctx: Ctx,
  model?: unknown,
): Promise<Outcome<{ models: ServerModelBreakdown[] }>> {
  const name =
    typeof model === 'string'
      ? model
      : typeof model === 'object' && model && 'name' in model
        ? String(model.name)
        : '';
  try {
    const target = await ctx.server();
    const rows = statisticsDelta([], await target.client.modelStatistics(name));
    showMetricsPanel(target.url, name, rows);
    return { ok: true, models: rows };
  } catch (error) {
    void showError(
      ctx,
      `Cannot read the server's statistics: ${errorMessage(error)}`,
      ...unreachableActions(ctx, error),
    );
    return { ok: false, error: errorMessage(error) };
  }
}

let metricsPanel: vscode.WebviewPanel | undefined;

function showMetricsPanel(url: string, model: string, rows: ServerModelBreakdown[]): void {
  if (!metricsPanel) {
    metricsPanel = vscode.window.createWebviewPanel(
      'tritonStudio.metrics',
      'Server Metrics',
      vscode.ViewColumn.Beside,
      { enableScripts: false },
    );
    metricsPanel.onDidDispose(() => (metricsPanel = undefined));
  }
  const cell = (v: number) => `<td>${v.toLocaleString('en-US', { maximumFractionDigits: 3 })}</td>`;
  const body = rows.length
    ? rows
        .map(
          (r) =>
            `<tr><td>${escapeHtml(r.model)}</td><td>${escapeHtml(r.version)}</td>${cell(r.requests)}${cell(r.failures)}${cell(r.executions)}${cell(r.meanBatchSize)}${cell(r.avgQueueMs)}${cell(r.avgComputeInputMs)}${cell(r.avgComputeInferMs)}${cell(r.avgComputeOutputMs)}${cell(r.avgRequestMs)}</tr>`,
        )
        .join('\n')
    : '<tr><td colspan="11" class="muted">No model has served a request yet.</td></tr>';
  metricsPanel.title = model ? `Server Metrics: ${model}` : 'Server Metrics';
  metricsPanel.webview.html = webviewHtml(metricsPanel.webview, {
    title: 'Server Metrics',
    body: `<h2>Server metrics${model ? ` — ${escapeHtml(model)}` : ''}</h2>
<p class="muted">${escapeHtml(url)} · since the server started · ${escapeHtml(new Date().toLocaleTimeString())}</p>
<table><thead><tr><th>model</th><th>version</th><th>requests</th><th>failures</th><th>executions</th><th>mean batch</th><th>queue ms</th><th>input ms</th><th>infer ms</th><th>output ms</th><th>request ms</th></tr></thead>
<tbody>${body}</tbody></table>`,
  });
  metricsPanel.reveal(vscode.ViewColumn.Beside, true);
}

/** A model from the server view (a tree item) or a name. */
function modelName(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  if (typeof arg === 'object' && arg && 'name' in arg) return String((arg as { name: unknown }).name);
  return undefined;
}

export async function loadModel(ctx: Ctx, arg?: unknown): Promise<Outcome<{ model: string }> | undefined> {
  return modelAction(ctx, arg, 'load');
}

export async function unloadModel(ctx: Ctx, arg?: unknown): Promise<Outcome<{ model: string }> | undefined> {
  return modelAction(ctx, arg, 'unload');
}

async function modelAction(
  ctx: Ctx,
  arg: unknown,
  action: 'load' | 'unload',
): Promise<Outcome<{ model: string }> | undefined> {
  const model =
    modelName(arg) ?? (await vscode.window.showInputBox({ title: `Triton Studio: ${action} which model?` }));
  if (!model) return undefined;
  try {
    const target = await ctx.server();
    await withProgress(`Triton Studio: ${action === 'load' ? 'loading' : 'unloading'} ${model}`, () =>
      action === 'load' ? target.client.loadModel(model) : target.client.unloadModel(model),
    );
    ctx.log(`${model}: ${action}ed on ${target.url}`);
    ctx.serverContentsChanged();
    return { ok: true, model };
  } catch (error) {
    void showError(
      ctx,
      `Could not ${action} ${model}: ${errorMessage(error)}`,
      ...unreachableActions(ctx, error),
    );
    return { ok: false, error: errorMessage(error) };
  }
}

function unreachableActions(ctx: Ctx, error: unknown) {
  const unreachable = /UNAVAILABLE|ECONNREFUSED|No connection/i.test(errorMessage(error));
  return unreachable && !ctx.localServer.running
    ? [
        {
          title: 'Start Local Server',
          run: () => vscode.commands.executeCommand('tritonStudio.startLocalServer'),
        },
        openOutput(ctx),
      ]
    : actionsFor(ctx, error);
}

/** Stores a header (a token, an API key) for the configured server in SecretStorage. */
export async function setSecretHeader(
  ctx: Ctx,
  nameArg?: unknown,
  valueArg?: unknown,
): Promise<Outcome<{ header: string }> | undefined> {
  const url = readServerUrl();
  const name =
    typeof nameArg === 'string'
      ? nameArg
      : await vscode.window.showInputBox({
          title: `Secret header for ${url}`,
          prompt: 'Header name',
          value: 'authorization',
        });
  if (!name) return undefined;
  const value =
    typeof valueArg === 'string'
      ? valueArg
      : await vscode.window.showInputBox({
          title: `Secret header for ${url}`,
          prompt: `Value of '${name}' (kept in the OS keychain, never in settings)`,
          password: true,
        });
  if (value === undefined) return undefined;
  await ctx.secrets.setHeader(url, name, value);
  ctx.log(`secret header '${name}' stored for ${url}`);
  return { ok: true, header: name.toLowerCase() };
}

export async function clearSecrets(ctx: Ctx): Promise<Outcome> {
  const url = readServerUrl();
  await ctx.secrets.clear(url);
  ctx.log(`secret headers for ${url} removed`);
  return { ok: true };
}
