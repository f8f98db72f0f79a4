/** The `tritonStudio.*` settings: their keys, and the checked values a prompt needs. */
import { readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import { normalizeUrl, type TritonClientOptions } from '../client/index.js';
import {
  repositoryTargetArch,
  resolveTargetArch,
  type Architecture,
  type TargetArchSource,
} from '../generator/index.js';

/** The `tritonStudio.*` settings a prompt needs, checked. */
export interface PromptSettings {
  /** `host:port` of the server's gRPC endpoint. */
  serverUrl: string;
  model: string;
  maxTokens: number;
}

/** Every setting the extension reads, by its full key (package.json `contributes.configuration`). */
export const SETTING = {
  serverUrl: 'tritonStudio.serverUrl',
  model: 'tritonStudio.model',
  maxTokens: 'tritonStudio.maxTokens',
  headers: 'tritonStudio.headers',
  tlsRootCertificate: 'tritonStudio.tls.rootCertificate',
  tlsClientCertificate: 'tritonStudio.tls.clientCertificate',
  tlsClientKey: 'tritonStudio.tls.clientKey',
  tlsServerName: 'tritonStudio.tls.serverName',
  localGrpcPort: 'tritonStudio.localServer.grpcPort',
  localHttpPort: 'tritonStudio.localServer.httpPort',
  localMetricsPort: 'tritonStudio.localServer.metricsPort',
  tritonserver: 'tritonStudio.localServer.tritonserver',
  repositoryDir: 'tritonStudio.repositoryDir',
  buildType: 'tritonStudio.build.type',
  buildJobs: 'tritonStudio.build.jobs',
  buildArch: 'tritonStudio.build.arch',
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

function section(scope?: vscode.ConfigurationScope): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(undefined, scope);
}

/** `tritonStudio.serverUrl`, normalized; throws a SettingError saying what to set when malformed. */
export function readServerUrl(scope?: vscode.ConfigurationScope): string {
  const rawUrl = section(scope).get<string>(SETTING.serverUrl, '').trim();
  try {
    return normalizeUrl(rawUrl);
  } catch {
    throw new SettingError(
      SETTING.serverUrl,
      `Setting ${SETTING.serverUrl} is '${rawUrl}': set it to HOST:PORT of the Triton server's gRPC endpoint, e.g. 127.0.0.1:8001.`,
    );
  }
}

/**
 * Reads the prompt settings for `scope` (a document, so folder settings apply) and checks them.
 * What the caller knows already (a lens knows its pipeline's model) is taken over the settings,
 * and a setting it replaces is not required.
 */
export function readPromptSettings(
  scope?: vscode.ConfigurationScope,
  serverUrl?: string,
  given: { model?: string; maxTokens?: number } = {},
): PromptSettings {
  const config = section(scope);
  const model = given.model?.trim() || config.get<string>(SETTING.model, '').trim();
  if (model === '') {
    throw new SettingError(
      SETTING.model,
      `Setting ${SETTING.model} is empty: set it to the name of the ensemble that takes prompts (e.g. gpt2_sim).`,
    );
  }
  const maxTokens = given.maxTokens ?? config.get<number>(SETTING.maxTokens, 16);
  if (!Number.isInteger(maxTokens) || maxTokens < 1) {
    throw new SettingError(
      SETTING.maxTokens,
      `Setting ${SETTING.maxTokens} is ${String(maxTokens)}: set it to a whole number of tokens, 1 or more.`,
    );
  }
  return { serverUrl: serverUrl ?? readServerUrl(scope), model, maxTokens };
}

/**
 * Connection options from the settings: plain headers and TLS files. Secret headers (tokens)
 * come from SecretStorage (secrets.ts) and are merged in by the caller.
 */
export function readConnectionSettings(scope?: vscode.ConfigurationScope): TritonClientOptions {
  const config = section(scope);
  const headers = config.get<Record<string, unknown>>(SETTING.headers, {});
  for (const [key, value] of Object.entries(headers)) {
    if (typeof value !== 'string') {
      throw new SettingError(
        SETTING.headers,
        `Setting ${SETTING.headers}: the value of '${key}' must be a string.`,
      );
    }
  }
  const file = (key: SettingKey): Buffer | undefined => {
    const path = config.get<string>(key, '').trim();
    if (path === '') return undefined;
    try {
      return readFileSync(path);
    } catch (error) {
      throw new SettingError(
        key,
        `Setting ${key} names '${path}', which cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}): set it to a PEM file, or clear it.`,
      );
    }
  };
  const rootCertificate = file(SETTING.tlsRootCertificate);
  const clientCertificate = file(SETTING.tlsClientCertificate);
  const clientKey = file(SETTING.tlsClientKey);
  if ((clientCertificate === undefined) !== (clientKey === undefined)) {
    throw new SettingError(
      clientKey ? SETTING.tlsClientCertificate : SETTING.tlsClientKey,
      `Settings ${SETTING.tlsClientCertificate} and ${SETTING.tlsClientKey} go together: set both (mutual TLS) or neither.`,
    );
  }
  const serverName = config.get<string>(SETTING.tlsServerName, '').trim() || undefined;
  const tls =
    rootCertificate || clientCertificate || serverName
      ? { rootCertificate, clientCertificate, clientKey, serverName }
      : undefined;
  return { headers: headers as Record<string, string>, tls };
}

/** The local server's fixed ports (0: a free one each start) and tritonserver binary. */
export interface LocalServerSettings {
  grpcPort?: number;
  httpPort?: number;
  metricsPort?: number;
  tritonserver?: string;
}

export function readLocalServerSettings(scope?: vscode.ConfigurationScope): LocalServerSettings {
  const config = section(scope);
  const port = (key: SettingKey) => {
    const value = config.get<number>(key, 0);
    if (!Number.isInteger(value) || value < 0 || value > 65535) {
      throw new SettingError(
        key,
        `Setting ${key} is ${String(value)}: set it to a port (1–65535), or 0 for a free one.`,
      );
    }
    return value === 0 ? undefined : value;
  };
  const tritonserver = config.get<string>(SETTING.tritonserver, '').trim();
  return {
    grpcPort: port(SETTING.localGrpcPort),
    httpPort: port(SETTING.localHttpPort),
    metricsPort: port(SETTING.localMetricsPort),
    tritonserver: tritonserver === '' ? undefined : tritonserver,
  };
}

export type BuildType = 'Release' | 'RelWithDebInfo' | 'Debug';

/**
 * Build settings for `repository`: its architecture is the pipeline's `target.arch` (recorded in
 * the generated repository) over `tritonStudio.build.arch` over this machine (resolveTargetArch).
 */
export function readBuildSettings(
  repository?: string,
  scope?: vscode.ConfigurationScope,
): {
  type: BuildType;
  jobs?: number;
  arch: Architecture;
  archFrom: TargetArchSource;
} {
  const config = section(scope);
  const jobs = config.get<number>(SETTING.buildJobs, 0);
  const { arch, from } = resolveTargetArch({
    pipeline: repository ? repositoryTargetArch(repository) : undefined,
    setting: config.get<string>(SETTING.buildArch, 'auto'),
  });
  return {
    type: config.get<BuildType>(SETTING.buildType, 'Release'),
    jobs: jobs > 0 ? jobs : undefined,
    arch,
    archFrom: from,
  };
}

/**
 * Where Generate writes a pipeline's repository: `tritonStudio.repositoryDir` with `${name}`
 * (the pipeline's file name without `.pipeline.json`) and `${workspaceFolder}` filled in.
 */
export function repositoryDirFor(pipelineFile: vscode.Uri): string {
  const folder = vscode.workspace.getWorkspaceFolder(pipelineFile)?.uri.fsPath;
  const name = pipelineFile.path
    .split('/')
    .pop()!
    .replace(/\.pipeline\.json$/, '');
  const template = section(pipelineFile).get<string>(
    SETTING.repositoryDir,
    '${workspaceFolder}/.triton-studio/${name}',
  );
  const base = folder ?? pipelineFile.fsPath.replace(/\/[^/]*$/, '');
  return template.replaceAll('${workspaceFolder}', base).replaceAll('${name}', name);
}
