/**
 * Test helpers for settings: an unreachable server address, and a workspace setting changed for
 * one test.
 */
import { createServer } from 'node:net';
import * as vscode from 'vscode';

/** A loopback address nothing listens on (a port taken from the OS, then released). */
export function unreachableServerUrl(): Promise<string> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(`127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`));
    });
  });
}

/** Changes a `tritonStudio.*` workspace setting for the duration of `body`, then restores it. */
export async function withWorkspaceSetting<T>(
  key: 'serverUrl' | 'model' | 'maxTokens',
  value: string | number,
  body: () => Promise<T>,
): Promise<T> {
  const original = vscode.workspace.getConfiguration('tritonStudio').inspect(key)?.workspaceValue;
  await vscode.workspace
    .getConfiguration('tritonStudio')
    .update(key, value, vscode.ConfigurationTarget.Workspace);
  try {
    return await body();
  } finally {
    await vscode.workspace
      .getConfiguration('tritonStudio')
      .update(key, original, vscode.ConfigurationTarget.Workspace);
  }
}
