/**
 * Every command of the extension: its id, whether it needs a trusted workspace, and its handler.
 * Handlers are thin functions over the shared Ctx; registration adds the Workspace Trust gate.
 * package.json's `contributes.commands` lists the same ids (a test checks that they agree).
 */
import * as vscode from 'vscode';
import type { Ctx } from '../context.js';
import {
  compareLatencyRuns,
  exportLatencyReport,
  openLatencyReport,
  runLatencyTestCommand,
} from './latency.js';
import { previewChatTemplate } from './chatTemplate.js';
import { commandAction, notify } from './ui.js';
import { build, deploy, generate, importModelRepository, newPipeline } from './pipeline.js';
import { sendPromptCommand } from './sendPrompt.js';
import {
  GRAPH_EDITOR_STATE_COMMAND,
  OPEN_GRAPH_EDITOR_COMMAND,
  openGraphEditor,
} from '../graphEditor/host/provider.js';
import { CHOOSE_TOKENIZER_COMMAND, chooseTokenizerFile } from '../setup/chooseTokenizer.js';
import { DOWNLOAD_MODEL_COMMAND, downloadModel } from '../setup/downloadModel.js';
import { DOWNLOAD_TOKENIZER_COMMAND, downloadTokenizer } from '../setup/downloadTokenizer.js';
import { INSTALL_LOCAL_SERVER_COMMAND, installLocalServer } from '../setup/installLocalServer.js';
import { CHECK_PREREQUISITES_COMMAND, checkPrerequisites } from '../setup/prerequisites.js';
import {
  clearSecrets,
  loadModel,
  restartLocalServer,
  setSecretHeader,
  showServerLog,
  showServerMetrics,
  startLocalServer,
  stopLocalServer,
  unloadModel,
} from './server.js';

export interface CommandSpec {
  id: string;
  /** Shown in the Restricted Mode explanation. */
  title: string;
  /**
   * Runs compilers, starts servers, loads code into them or sends this workspace's data to a
   * server: refused in an untrusted workspace. Editing and validation never need trust.
   */
  needsTrust: boolean;
  run: (ctx: Ctx, ...args: unknown[]) => unknown;
}

export const COMMANDS: readonly CommandSpec[] = [
  { id: 'tritonStudio.newPipeline', title: 'New Pipeline', needsTrust: false, run: newPipeline },
  {
    id: 'tritonStudio.importRepository',
    title: 'Import Model Repository',
    needsTrust: false,
    run: importModelRepository,
  },
  {
    id: CHECK_PREREQUISITES_COMMAND,
    title: 'Check Prerequisites',
    needsTrust: false,
    run: checkPrerequisites,
  },
  {
    id: INSTALL_LOCAL_SERVER_COMMAND,
    title: 'Install Local Server',
    needsTrust: false,
    run: installLocalServer,
  },
  {
    id: CHOOSE_TOKENIZER_COMMAND,
    title: 'Choose Tokenizer File',
    needsTrust: false,
    run: (_ctx, ...args) => chooseTokenizerFile(...args),
  },
  {
    id: DOWNLOAD_TOKENIZER_COMMAND,
    title: 'Download Tokenizer',
    needsTrust: false,
    run: downloadTokenizer,
  },
  {
    id: DOWNLOAD_MODEL_COMMAND,
    title: 'Download Model',
    needsTrust: false,
    run: downloadModel,
  },
  { id: 'tritonStudio.generate', title: 'Generate', needsTrust: true, run: generate },
  { id: 'tritonStudio.build', title: 'Build Backends', needsTrust: true, run: build },
  {
    id: 'tritonStudio.startLocalServer',
    title: 'Start Local Server',
    needsTrust: true,
    run: startLocalServer,
  },
  { id: 'tritonStudio.stopLocalServer', title: 'Stop Local Server', needsTrust: false, run: stopLocalServer },
  {
    id: 'tritonStudio.restartLocalServer',
    title: 'Restart Local Server',
    needsTrust: true,
    run: restartLocalServer,
  },
  { id: 'tritonStudio.showServerLog', title: 'Show Server Log', needsTrust: false, run: showServerLog },
  { id: 'tritonStudio.deploy', title: 'Deploy', needsTrust: true, run: deploy },
  { id: 'tritonStudio.sendPrompt', title: 'Send Prompt', needsTrust: true, run: sendPromptCommand },
  {
    id: 'tritonStudio.previewChatTemplate',
    title: 'Preview Chat Template',
    needsTrust: true,
    run: previewChatTemplate,
  },
  {
    id: 'tritonStudio.runLatencyTest',
    title: 'Run Latency Test',
    needsTrust: true,
    run: runLatencyTestCommand,
  },
  {
    id: 'tritonStudio.compareLatencyRuns',
    title: 'Compare Latency Runs',
    needsTrust: false,
    run: compareLatencyRuns,
  },
  {
    id: 'tritonStudio.openLatencyReport',
    title: 'Open Latency Report',
    needsTrust: false,
    run: openLatencyReport,
  },
  {
    id: 'tritonStudio.exportLatencyReport',
    title: 'Export Latency Report',
    needsTrust: false,
    run: exportLatencyReport,
  },
  {
    id: 'tritonStudio.showServerMetrics',
    title: 'Show Server Metrics',
    needsTrust: true,
    run: showServerMetrics,
  },
  { id: 'tritonStudio.loadModel', title: 'Load Model', needsTrust: true, run: loadModel },
  { id: 'tritonStudio.unloadModel', title: 'Unload Model', needsTrust: true, run: unloadModel },
  {
    id: 'tritonStudio.refreshServerView',
    title: 'Refresh',
    needsTrust: false,
    // The server view refreshes whenever the context says the server changed.
    run: (ctx) => ctx.serverContentsChanged(),
  },
  {
    id: 'tritonStudio.focusServerView',
    title: 'Focus Server View',
    needsTrust: false,
    run: () => vscode.commands.executeCommand('tritonStudio.models.focus'),
  },
  {
    id: OPEN_GRAPH_EDITOR_COMMAND,
    title: 'Open Graph Editor',
    needsTrust: false,
    run: (_ctx, uri) => openGraphEditor(uri),
  },
  {
    // Not in the palette: what tests (and curious users) read about an open graph editor.
    id: GRAPH_EDITOR_STATE_COMMAND,
    title: 'Graph Editor State',
    needsTrust: false,
    run: (ctx, uri) => ctx.graphEditorState?.(uri instanceof vscode.Uri ? uri : undefined),
  },
  {
    id: 'tritonStudio.setSecretHeader',
    title: 'Set Secret Header for the Server',
    needsTrust: false,
    run: setSecretHeader,
  },
  {
    id: 'tritonStudio.clearSecrets',
    title: 'Clear Secret Headers for the Server',
    needsTrust: false,
    run: clearSecrets,
  },
];

/** What a refused command resolves to. */
export interface RestrictedOutcome {
  ok: false;
  restricted: true;
  error: string;
}

export function restrictedMessage(title: string): string {
  return (
    `"${title}" is disabled in Restricted Mode: it runs compilers, servers or code from this workspace. ` +
    'Trust the workspace to use it; editing and validating pipelines work either way.'
  );
}

export function registerCommands(ctx: Ctx): vscode.Disposable[] {
  return COMMANDS.map((spec) =>
    vscode.commands.registerCommand(spec.id, async (...args: unknown[]) => {
      if (spec.needsTrust && !vscode.workspace.isTrusted) {
        const message = restrictedMessage(spec.title);
        ctx.log(message);
        void notify('warning', message, commandAction('Manage Workspace Trust', 'workbench.trust.manage'));
        return { ok: false, restricted: true, error: message } satisfies RestrictedOutcome;
      }
      return spec.run(ctx, ...args);
    }),
  );
}
