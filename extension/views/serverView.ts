/**
 * The server at a glance: a status bar item (local or remote, up or down, how many models ready)
 * and the "Models" tree in the Triton Studio view: every model of the server's repository with
 * its version and state, with inline load / unload / statistics actions.
 */
import * as vscode from 'vscode';
import type { RepositoryModel } from '../../client/index.js';
import type { Ctx } from '../context.js';

export interface ServerState {
  url?: string;
  local: boolean;
  up: boolean;
  models: RepositoryModel[];
  error?: string;
}

/** Polls the target server while the window is open; refreshes at once when Ctx says it changed. */
const POLL_MS = 10_000;

export class ServerView implements vscode.TreeDataProvider<RepositoryModel>, vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(
    'tritonStudio.server',
    vscode.StatusBarAlignment.Left,
    50,
  );
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private state: ServerState = { local: false, up: false, models: [] };
  private readonly disposables: vscode.Disposable[] = [];
  private timer: ReturnType<typeof setInterval>;
  private refreshing: { generation: number; state: Promise<ServerState> } | undefined;
  /** Counts the changes of target, settings or secrets: a query from before one is stale. */
  private generation = 0;

  constructor(private readonly ctx: Ctx) {
    this.item.name = 'Triton Studio Server';
    this.item.command = 'tritonStudio.focusServerView';
    this.disposables.push(
      this.item,
      this.changed,
      vscode.window.registerTreeDataProvider('tritonStudio.models', this),
      ctx.onDidChangeServer(() => {
        this.generation++;
        void this.refresh();
      }),
    );
    this.timer = setInterval(() => void this.refresh(), POLL_MS);
    this.item.show();
    void this.refresh();
  }

  get current(): ServerState {
    return this.state;
  }

  /**
   * Asks the server again; concurrent callers share one round trip, unless the settings changed
   * after it started (a poll with the old TLS settings must not answer for the new ones).
   */
  refresh(): Promise<ServerState> {
    if (this.refreshing?.generation !== this.generation) {
      const refreshing = { generation: this.generation, state: this.query(this.generation) };
      this.refreshing = refreshing;
      void refreshing.state.finally(() => {
        if (this.refreshing === refreshing) this.refreshing = undefined;
      });
    }
    return this.refreshing.state;
  }

  private async query(generation: number): Promise<ServerState> {
    let state: ServerState;
    try {
      const target = await this.ctx.server();
      try {
        const up = await target.client.serverLive();
        const models = up ? await target.client.repositoryIndex() : [];
        state = { url: target.url, local: target.local, up, models };
      } catch (error) {
        state = {
          url: target.url,
          local: target.local,
          up: false,
          models: [],
          error: error instanceof Error ? error.message : String(error),
        };
        // A server started later must not wait out grpc-js's reconnect back-off. A stale query
        // leaves the clients alone: the current one may be using them.
        if (generation === this.generation) this.ctx.connections.forget(target.url);
      }
    } catch (error) {
      state = {
        local: false,
        up: false,
        models: [],
        error: error instanceof Error ? error.message : String(error),
      };
    }
    if (generation !== this.generation) return state; // a later query owns the view
    this.state = state;
    this.render();
    this.changed.fire();
    return state;
  }

  private render(): void {
    const { url, local, up, models } = this.state;
    const ready = models.filter((m) => m.state === 'READY').length;
    const where = local ? 'local' : (url ?? 'no server');
    this.item.text = up
      ? `$(server) Triton ${where}: ${ready} ready`
      : `$(debug-disconnect) Triton ${where}: down`;
    this.item.tooltip = new vscode.MarkdownString(
      up
        ? `**Triton server** ${local ? '(local, started by this window)' : ''}\n\n\`${url}\` · ${ready} of ${models.length} models ready`
        : `**Triton server** \`${url ?? '?'}\` is not answering${this.state.error ? `: ${this.state.error.split('\n')[0]}` : ''}.\n\nStart the local server or set \`tritonStudio.serverUrl\`.`,
    );
    this.item.backgroundColor = up ? undefined : new vscode.ThemeColor('statusBarItem.warningBackground');
  }

  getChildren(element?: RepositoryModel): RepositoryModel[] {
    return element ? [] : [...this.state.models].sort((a, b) => a.name.localeCompare(b.name));
  }

  getTreeItem(model: RepositoryModel): vscode.TreeItem {
    const item = new vscode.TreeItem(model.name, vscode.TreeItemCollapsibleState.None);
    const state = model.state || 'NOT LOADED';
    item.description = `${model.version ? `v${model.version} · ` : ''}${state}`;
    item.tooltip = model.reason ? `${state}: ${model.reason}` : state;
    item.iconPath = new vscode.ThemeIcon(
      model.state === 'READY' ? 'pass-filled' : model.state === 'UNAVAILABLE' ? 'error' : 'circle-outline',
      model.state === 'READY' ? new vscode.ThemeColor('testing.iconPassed') : undefined,
    );
    item.contextValue = model.state === 'READY' ? 'model.ready' : 'model.unloaded';
    return item;
  }

  dispose(): void {
    clearInterval(this.timer);
    for (const d of this.disposables) d.dispose();
  }
}
