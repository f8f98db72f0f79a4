import * as vscode from 'vscode';
import { normalizeUrl } from '../client/grpc/client.js';

/** The `tritonStudio.*` settings a prompt needs, checked. */
export interface PromptSettings {
  /** `host:port` of the server's gRPC endpoint. */
  serverUrl: string;
  model: string;
  maxTokens: number;
}

export const SETTING = {
  serverUrl: 'tritonStudio.serverUrl',
  model: 'tritonStudio.model',
  maxTokens: 'tritonStudio.maxTokens',
} as const;

export type SettingKey = (typeof SETTING)[keyof typeof SETTING];

/** A setting is missing or malformed; `setting` is the full key the user has to change. */
export class SettingError extends Error {
  constructor(
    readonly setting: SettingKey,
    message: string,
  ) {
    super(message);
    this.name = 'SettingError';
  }
}

/** Reads the prompt settings for `scope` (a document, so folder settings apply) and checks them. */
export function readPromptSettings(scope?: vscode.ConfigurationScope): PromptSettings {
  const config = vscode.workspace.getConfiguration('tritonStudio', scope);

  const rawUrl = config.get<string>('serverUrl', '').trim();
  let serverUrl: string;
  try {
    serverUrl = normalizeUrl(rawUrl);
  } catch {
    throw new SettingError(
      SETTING.serverUrl,
      `Setting ${SETTING.serverUrl} is '${rawUrl}': set it to HOST:PORT of the Triton server's gRPC endpoint, e.g. 127.0.0.1:8001.`,
    );
  }

  const model = config.get<string>('model', '').trim();
  if (model === '') {
    throw new SettingError(
      SETTING.model,
      `Setting ${SETTING.model} is empty: set it to the name of the ensemble that takes prompts (e.g. gpt2_sim).`,
    );
  }

  const maxTokens = config.get<number>('maxTokens', 16);
  if (!Number.isInteger(maxTokens) || maxTokens < 1) {
    throw new SettingError(
      SETTING.maxTokens,
      `Setting ${SETTING.maxTokens} is ${String(maxTokens)}: set it to a whole number of tokens, 1 or more.`,
    );
  }
  return { serverUrl, model, maxTokens };
}
