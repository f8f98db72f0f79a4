import type * as vscode from 'vscode';
import { TritonClient } from '../client/grpc/client.js';

/**
 * One gRPC client per server address, reused across commands (a channel is costly to set up)
 * and replaced when the address setting changes.
 */
export class ServerConnections implements vscode.Disposable {
  private readonly clients = new Map<string, TritonClient>();

  client(serverUrl: string): TritonClient {
    let client = this.clients.get(serverUrl);
    if (!client) {
      client = new TritonClient(serverUrl);
      this.clients.set(serverUrl, client);
    }
    return client;
  }

  /**
   * Drops the client of an address that could not be reached: grpc-js backs off before it
   * retries a failed channel, so a server started a moment later would still look down.
   */
  forget(serverUrl: string): void {
    this.clients.get(serverUrl)?.close();
    this.clients.delete(serverUrl);
  }

  dispose(): void {
    for (const client of this.clients.values()) client.close();
    this.clients.clear();
  }
}
