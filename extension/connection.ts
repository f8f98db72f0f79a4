/** ServerConnections: one gRPC client per server address and options, reused across commands. */
import type * as vscode from 'vscode';
import { TritonClient, type TritonClientOptions } from '../client/index.js';

/**
 * One gRPC client per server address and connection options, reused across commands (a channel
 * is costly to set up) and replaced when the settings or secrets change.
 */
export class ServerConnections implements vscode.Disposable {
  private readonly clients = new Map<string, TritonClient>();

  client(serverUrl: string, options: TritonClientOptions = {}): TritonClient {
    const key = `${serverUrl}\n${JSON.stringify(options)}`;
    let client = this.clients.get(key);
    if (!client) {
      client = new TritonClient(serverUrl, options);
      this.clients.set(key, client);
    }
    return client;
  }

  /**
   * Drops the clients of an address that could not be reached: grpc-js backs off before it
   * retries a failed channel, so a server started a moment later would still look down.
   */
  forget(serverUrl: string): void {
    for (const [key, client] of this.clients) {
      if (key.startsWith(`${serverUrl}\n`)) {
        client.close();
        this.clients.delete(key);
      }
    }
  }

  /** Settings or secrets changed: every client is rebuilt on next use. */
  reset(): void {
    for (const client of this.clients.values()) client.close();
    this.clients.clear();
  }

  dispose(): void {
    this.reset();
  }
}
