import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { startLocalServer, type LocalServer } from '../../client/index.js';
import { readLocalServerSettings } from '../settings.js';

/**
 * The local tritonserver this window started (at most one): explicit model control, loopback,
 * its log under the extension's storage. Stopped with the window, so no server outlives it.
 */
export class LocalServerHost implements vscode.Disposable {
  private server: LocalServer | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when the local server starts or stops (on purpose or not). */
  readonly onDidChange = this.changed.event;
  /** The log of the last server, kept after it stopped so Show Server Log still finds it. */
  lastLogFile: string | undefined;

  constructor(private readonly logDir: string) {}

  get running(): LocalServer | undefined {
    return this.server;
  }

  async start(modelRepository: string): Promise<LocalServer> {
    if (this.server)
      throw new Error(`the local server is already running (pid ${this.server.pid}): stop or restart it`);
    const { tritonserver, grpcPort, httpPort, metricsPort } = readLocalServerSettings();
    mkdirSync(this.logDir, { recursive: true });
    const logFile = join(this.logDir, `tritonserver-${new Date().toISOString().replace(/[:.]/g, '-')}.log`);
    this.lastLogFile = logFile;
    const server = await startLocalServer({
      modelRepository,
      tritonserver,
      grpcPort,
      httpPort,
      metricsPort,
      logFile,
    });
    this.server = server;
    void server.exited.then(() => {
      if (this.server === server) {
        this.server = undefined;
        this.changed.fire();
      }
    });
    this.changed.fire();
    return server;
  }

  async stop(): Promise<boolean> {
    const server = this.server;
    if (!server) return false;
    this.server = undefined;
    await server.stop();
    this.changed.fire();
    return true;
  }

  dispose(): void {
    void this.server?.stop();
    this.server = undefined;
    this.changed.dispose();
  }
}
