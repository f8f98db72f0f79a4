import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { modelConfigToJson, stepSourcesDir } from '../generator/index.js';
import { TritonError } from './grpc/errors.js';
import type { TritonClient } from './grpc/client.js';
import { libraryProblem } from './libraryCheck.js';
import { readRepository, versionFiles, type RepositoryModelEntry } from './repository.js';

export type DeployMode = 'local' | 'remote';

export interface DeployOptions {
  /** The model repository folder (generated and built). */
  repository: string;
  /**
   * `local`: the server was started on this repository and loads each model from it by name.
   * `remote`: each model's config (as JSON) and version files, `.so` included, are uploaded
   * through the repository API, so the server needs no access to this machine's disk.
   */
  mode: DeployMode;
  /** Called after each model, in load order. */
  onModel?: (status: ModelDeployStatus) => void;
  /** How long to wait for each ensemble to report ready after loading; default 60 s. */
  readyTimeoutMs?: number;
  /** Stops before the next model once aborted (a load in progress is not interrupted). */
  signal?: AbortSignal;
}

export interface ModelDeployStatus {
  model: string;
  isEnsemble: boolean;
  state: 'ready' | 'failed' | 'skipped';
  /** Why it failed or was skipped; a server error is quoted verbatim. */
  error?: string;
  /** Something the server said that did not stop the model from becoming ready. */
  warning?: string;
  /** What to do about `error`, when the cause is known. */
  hint?: string;
  loadMs: number;
  /** Remote mode: the files uploaded with the config. */
  uploadedFiles?: string[];
  uploadedBytes?: number;
}

export interface DeployResult {
  ok: boolean;
  server: string;
  mode: DeployMode;
  repository: string;
  models: ModelDeployStatus[];
  /** The ensembles, ready to take prompts when `ok`. */
  ensembles: string[];
}

/**
 * Loads every model of a repository into a running server, steps before the ensembles that use
 * them, and waits for the ensembles to be ready. A model whose dependency failed is skipped
 * (its error names the dependency); the server's own error text is kept for the one that failed.
 */
export async function deployRepository(client: TritonClient, options: DeployOptions): Promise<DeployResult> {
  const entries = readRepository(options.repository);
  const broken = brokenLibraries(entries);
  if (broken.size > 0) return refuseBrokenLibraries(client, options, entries, broken);
  if (options.mode === 'local') await checkServerServes(client, options.repository, entries);
  // Reach the repository endpoint before loading anything: a refused TLS handshake or a
  // restricted endpoint is then one error that says what to pass, not one failure per model.
  else await client.repositoryIndex();

  const statuses: ModelDeployStatus[] = [];
  const failed = new Set<string>();
  for (const entry of entries) {
    if (options.signal?.aborted) {
      statuses.push({
        model: entry.name,
        isEnsemble: entry.isEnsemble,
        state: 'skipped',
        loadMs: 0,
        error: 'cancelled',
      });
      continue;
    }
    const status = await deployModel(client, entry, options, failed);
    if (status.state !== 'ready') failed.add(entry.name);
    statuses.push(status);
    options.onModel?.(status);
  }
  return {
    ok: statuses.every((s) => s.state === 'ready'),
    server: client.url,
    mode: options.mode,
    repository: options.repository,
    models: statuses,
    ensembles: entries.filter((e) => e.isEnsemble).map((e) => e.name),
  };
}

/** Each model whose version folders hold a library the server could not load (or would crash on). */
function brokenLibraries(entries: RepositoryModelEntry[]): Map<string, string> {
  const broken = new Map<string, string>();
  for (const entry of entries) {
    for (const [path, bytes] of Object.entries(versionFiles(entry))) {
      if (!/\.so(\.\d+)*$/.test(path)) continue;
      const problem = libraryProblem(join(entry.dir, path), bytes);
      if (problem) broken.set(entry.name, problem);
    }
  }
  return broken;
}

/** Nothing is sent to the server when a library is broken: what serves now keeps serving. */
function refuseBrokenLibraries(
  client: TritonClient,
  options: DeployOptions,
  entries: RepositoryModelEntry[],
  broken: Map<string, string>,
): DeployResult {
  const models = entries.map((entry): ModelDeployStatus => {
    const problem = broken.get(entry.name);
    return {
      model: entry.name,
      isEnsemble: entry.isEnsemble,
      state: problem ? 'failed' : 'skipped',
      loadMs: 0,
      error: problem ?? `not loaded: ${[...broken.keys()].join(', ')} has a broken library`,
      ...(problem && { hint: 'nothing was sent to the server: the models it serves are unchanged' }),
    };
  });
  for (const status of models) options.onModel?.(status);
  return {
    ok: false,
    server: client.url,
    mode: options.mode,
    repository: options.repository,
    models,
    ensembles: entries.filter((e) => e.isEnsemble).map((e) => e.name),
  };
}

async function deployModel(
  client: TritonClient,
  entry: RepositoryModelEntry,
  options: DeployOptions,
  failed: ReadonlySet<string>,
): Promise<ModelDeployStatus> {
  const base = { model: entry.name, isEnsemble: entry.isEnsemble };
  const brokenDependency = entry.dependencies.find((d) => failed.has(d));
  if (brokenDependency) {
    return {
      ...base,
      state: 'skipped',
      loadMs: 0,
      error: `not loaded: its step '${brokenDependency}' failed to load`,
    };
  }
  const start = performance.now();
  let upload: { files: Record<string, Buffer>; names: string[]; bytes: number } | undefined;
  try {
    if (options.mode === 'remote') {
      upload = remoteFiles(entry);
      await client.loadModel(entry.name, {
        config: modelConfigToJson({ ...entry.config, name: entry.name }),
        files: upload.files,
      });
    } else {
      await client.loadModel(entry.name);
    }
    if (entry.isEnsemble) await waitReady(client, entry.name, options.readyTimeoutMs ?? 60_000);
    return {
      ...base,
      state: 'ready',
      loadMs: round1(performance.now() - start),
      ...(upload && { uploadedFiles: upload.names, uploadedBytes: upload.bytes }),
    };
  } catch (error) {
    const message =
      error instanceof TritonError && error.serverMessage ? error.serverMessage : errorText(error);
    const loadMs = round1(performance.now() - start);
    // Triton re-polls an ensemble's steps from its own repository folders, where uploaded steps
    // never are: the load reports that poll failure although the ensemble is loaded and serving.
    if (upload && entry.isEnsemble && /failed to poll from model repository/.test(message)) {
      if (await client.modelReady(entry.name).catch(() => false)) {
        return {
          ...base,
          state: 'ready',
          loadMs,
          warning: `server said "${message}" (it cannot re-poll uploaded steps); the ensemble is ready`,
          uploadedFiles: upload.names,
          uploadedBytes: upload.bytes,
        };
      }
    }
    return { ...base, state: 'failed', loadMs, error: message, ...hintFor(entry, message) };
  }
}

/** The one load failure with a known cause: a missing backend library (ours unbuilt, or a backend not installed). */
function hintFor(entry: RepositoryModelEntry, message: string): { hint?: string } {
  if (!/unable to find backend library/.test(message)) return {};
  const builtByUs =
    existsSync(join(stepSourcesDir(dirname(entry.dir)), entry.name, 'CMakeLists.txt')) ||
    entry.config.backend === 'sim_llm';
  if (builtByUs) return { hint: 'its backend library is not built: run `triton-studio build REPO` first' };
  return {
    hint:
      `this server has no '${entry.config.backend ?? ''}' backend: deploy to a Triton server that ships it ` +
      '(e.g. a GPU server, with --url HOST:PORT)',
  };
}

/**
 * Files to upload for one model. Triton only creates the model folder from `file:` parameters,
 * so a model whose version folder is empty (an ensemble) gets a marker file to make `1/` exist.
 */
function remoteFiles(entry: RepositoryModelEntry): {
  files: Record<string, Buffer>;
  names: string[];
  bytes: number;
} {
  const files = versionFiles(entry);
  if (Object.keys(files).length === 0) {
    const version = entry.versions[0] ?? '1';
    files[`${version}/.triton-studio`] = Buffer.from('uploaded by triton-studio deploy\n');
  }
  const names = Object.keys(files).sort();
  return { files, names, bytes: names.reduce((n, f) => n + files[f]!.length, 0) };
}

/** In local mode the server must already see this repository; say so plainly when it does not. */
async function checkServerServes(
  client: TritonClient,
  repository: string,
  entries: RepositoryModelEntry[],
): Promise<void> {
  const index = await client.repositoryIndex();
  const known = new Set(index.map((m) => m.name));
  const missing = entries.filter((e) => !known.has(e.name)).map((e) => e.name);
  if (missing.length > 0) {
    throw new TritonError(
      `the server at ${client.url} does not serve ${repository} (its repository lacks ${missing.join(', ')}): ` +
        'deploy without --local to upload the models, or start a server on it with `triton-studio serve REPO`',
      undefined,
      'RepositoryIndex',
    );
  }
}

async function waitReady(client: TritonClient, model: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await client.modelReady(model)) return;
    if (Date.now() > deadline) {
      throw new Error(`'${model}' loaded but did not report ready within ${timeoutMs / 1000} s`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}
