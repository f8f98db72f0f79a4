/**
 * ServerSecrets: secret headers (tokens, API keys) per server in VS Code's SecretStorage, never in
 * settings.
 */
import type * as vscode from 'vscode';

/**
 * Secret headers (tokens, API keys) per server address, in VS Code's SecretStorage (the OS
 * keychain): never in settings.json, where they would end up in a repository or a synced profile.
 */
export class ServerSecrets {
  constructor(private readonly storage: vscode.SecretStorage) {}

  private key(serverUrl: string): string {
    return `tritonStudio.headers:${serverUrl}`;
  }

  async headers(serverUrl: string): Promise<Record<string, string>> {
    const stored = await this.storage.get(this.key(serverUrl));
    if (!stored) return {};
    try {
      return JSON.parse(stored) as Record<string, string>;
    } catch {
      return {};
    }
  }

  async setHeader(serverUrl: string, name: string, value: string): Promise<void> {
    const headers = await this.headers(serverUrl);
    headers[name.toLowerCase()] = value;
    await this.storage.store(this.key(serverUrl), JSON.stringify(headers));
  }

  async clear(serverUrl: string): Promise<void> {
    await this.storage.delete(this.key(serverUrl));
  }

  onDidChange(listener: () => void): vscode.Disposable {
    return this.storage.onDidChange((e) => {
      if (e.key.startsWith('tritonStudio.headers:')) listener();
    });
  }
}
