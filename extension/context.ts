/**
 * The one object every command handler gets (after rust-analyzer's `Ctx`): the output channel,
 * server connections, secrets, the local server and the state shared between commands. Handlers
 * stay thin: they read what they need from here and call `client/` or `generator/`.
 */
import * as vscode from 'vscode';
import type { TritonClient } from '../client/index.js';
import { ServerConnections } from './connection.js';
import { ServerSecrets } from './secrets.js';
import { LocalServerHost } from './server/localServerHost.js';
import type { GraphEditorState } from './graphEditor/host/provider.js';
import { StoragePaths } from './setup/storage.js';
import { readConnectionSettings, readServerUrl } from './settings.js';
import { AnswerPanel } from './views/answerPanel.js';
import { OUTPUT_CHANNEL_NAME, PromptOutput } from './views/promptOutput.js';

/** The server commands talk to: the shared local one while it runs, else `tritonStudio.serverUrl`. */
export interface ServerTarget {
  url: string;
  local: boolean;
  client: TritonClient;
  /** Prometheus metrics (the local server's; a remote server's port is not known). */
  metricsUrl?: string;
}

const LAST_REPOSITORY = 'tritonStudio.lastRepository';

export class Ctx implements vscode.Disposable {
  readonly output: vscode.OutputChannel;
  readonly prompts: PromptOutput;
  readonly connections = new ServerConnections();
  /** The panel answers stream into. */
  readonly answers = new AnswerPanel();
  readonly secrets: ServerSecrets;
  readonly localServer: LocalServerHost;
  /** Where builds and installs go (global storage, the workspace; never the install folder). */
  readonly storage: StoragePaths;
  /** Compiler errors of the last Build Backends run. */
  readonly buildProblems = vscode.languages.createDiagnosticCollection('triton-studio-build');
  private readonly serverChanged = new vscode.EventEmitter<void>();
  private readonly tokenizersChangedEmitter = new vscode.EventEmitter<void>();
  /** Fires when a tokenizer was added to the cache (Download Tokenizer): problems are re-checked. */
  readonly onDidChangeTokenizers = this.tokenizersChangedEmitter.event;
  /** Fires when the target server may have changed: settings, secrets, local start/stop, deploy. */
  readonly onDidChangeServer = this.serverChanged.event;
  private readonly disposables: vscode.Disposable[] = [];
  /** A prompt the user typed whose sending failed: offered again, never lost. */
  draftPrompt?: string;
  /** What the open graph editors show (set when the graph editor registers). */
  graphEditorState?: (uri?: vscode.Uri) => GraphEditorState | undefined;

  constructor(readonly extension: vscode.ExtensionContext) {
    this.output = vscode.window.createOutputChannel(OUTPUT_CHANNEL_NAME);
    this.prompts = new PromptOutput(this.output);
    this.secrets = new ServerSecrets(extension.secrets);
    this.storage = new StoragePaths(extension);
    this.localServer = new LocalServerHost(this.storage);
    this.disposables.push(
      this.output,
      this.connections,
      this.answers,
      this.localServer,
      this.buildProblems,
      this.serverChanged,
      this.tokenizersChangedEmitter,
      this.localServer.onDidChange(() => this.serverChanged.fire()),
      this.secrets.onDidChange(() => {
        this.connections.reset();
        this.serverChanged.fire();
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('tritonStudio')) {
          this.connections.reset();
          this.serverChanged.fire();
        }
      }),
    );
  }

  tokenizersChanged(): void {
    this.tokenizersChangedEmitter.fire();
  }

  /** Something outside the context changed what the server serves (a deploy, a load or unload). */
  serverContentsChanged(): void {
    this.serverChanged.fire();
  }

  /**
   * The server to talk to. `serverUrl` overrides the choice (a `.prompt` file's front matter);
   * remote servers get the TLS files and headers from the settings plus the secret headers.
   */
  async server(scope?: vscode.ConfigurationScope, serverUrl?: string): Promise<ServerTarget> {
    const local = this.localServer.running;
    if (local && (serverUrl === undefined || serverUrl === local.grpcUrl)) {
      return {
        url: local.grpcUrl,
        local: true,
        client: this.connections.client(local.grpcUrl),
        metricsUrl: local.metricsUrl,
      };
    }
    const url = serverUrl ?? readServerUrl(scope);
    const options = readConnectionSettings(scope);
    const secret = await this.secrets.headers(url);
    const headers = { ...options.headers, ...secret };
    return { url, local: false, client: this.connections.client(url, { ...options, headers }) };
  }

  /** The repository Generate wrote last (Build, Deploy and Start Local Server default to it). */
  get lastRepository(): string | undefined {
    return this.extension.workspaceState.get<string>(LAST_REPOSITORY);
  }

  set lastRepository(path: string | undefined) {
    void this.extension.workspaceState.update(LAST_REPOSITORY, path);
  }

  log(line: string): void {
    this.output.appendLine(line);
  }

  dispose(): void {
    for (const d of this.disposables.reverse()) d.dispose();
  }
}
