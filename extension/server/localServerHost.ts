/**
 * LocalServerHost: the shared local tritonserver as every VS Code window sees it, through its
 * state file.
 */
import * as vscode from 'vscode';
import {
  sharedServerStatus,
  startSharedServer,
  stopSharedServer,
  type SharedServerStart,
  type SharedServerState,
} from '../../client/index.js';
import { readLocalServerSettings } from '../settings.js';
import type { StoragePaths } from '../setup/storage.js';
import { chooseTritonserver } from '../setup/tritonserverBinary.js';

/** How often the state file is read again: a server the CLI started or stopped shows within this. */
const POLL_MS = 2_000;

/**
 * The shared local tritonserver (client/server/sharedServer.ts): the one server that
 * `triton-studio server start|stop|status|logs` manages, found through its state file, so the CLI
 * and every VS Code window use one tritonserver. It outlives the window (Stop Local Server or
 * `triton-studio server stop` ends it); one the CLI starts or stops is noticed within POLL_MS.
 */
export class LocalServerHost implements vscode.Disposable {
  private server: SharedServerState | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly timer: ReturnType<typeof setInterval>;
  /** Fires when the shared server starts or stops (here, from the CLI, or by crashing). */
  readonly onDidChange = this.changed.event;
  /** The log of the last server seen, kept after it stopped so Show Server Log still finds it. */
  lastLogFile: string | undefined;

  constructor(private readonly storage: StoragePaths) {
    this.timer = setInterval(() => void this.refresh(), POLL_MS);
    void this.refresh();
  }

  /** The shared server as last seen running (its process alive, whether or not it answered ready). */
  get running(): SharedServerState | undefined {
    return this.server;
  }

  /**
   * Reads the state file now. A live server that is not ready (Triton answers not-ready while a
   * deploy loads models, or a loaded box delays the answer) is still the shared server: dropping
   * it sent the next command to `tritonStudio.serverUrl` mid-workflow. Only a stopped or exited
   * server is gone.
   */
  async refresh(): Promise<SharedServerState | undefined> {
    const status = await sharedServerStatus().catch(() => undefined);
    const alive = status?.state === 'running' || status?.state === 'not-ready';
    this.set(alive ? status.server : undefined);
    return this.server;
  }

  private set(next: SharedServerState | undefined): void {
    if (next?.pid === this.server?.pid) return;
    this.server = next;
    if (next) this.lastLogFile = next.logFile;
    this.changed.fire();
  }

  /** Starts the shared server on `modelRepository`, or finds the one already running (`started: false`). */
  async start(modelRepository: string): Promise<SharedServerStart> {
    const { grpcPort, httpPort, metricsPort } = readLocalServerSettings();
    const { binary: tritonserver } = chooseTritonserver(this.storage);
    const start = await startSharedServer({ modelRepository, tritonserver, grpcPort, httpPort, metricsPort });
    this.set(start.server);
    return start;
  }

  /** Install Local Server put a tritonserver into global storage: views that offer it refresh. */
  changedInstall(): void {
    this.changed.fire();
  }

  async stop(): Promise<boolean> {
    const { outcome } = await stopSharedServer();
    this.set(undefined);
    return outcome === 'stopped';
  }

  dispose(): void {
    clearInterval(this.timer);
    this.changed.dispose();
  }
}
