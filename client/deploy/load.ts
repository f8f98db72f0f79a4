/**
 * Loading models, as trial candidates (uploaded, ensembles wired to the candidate steps) or under
 * their own names: one model at a time in dependency order, with what failed and why (a missing
 * backend, a server that died in the load, a first request that failed).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { stepSourcesDir } from '../../generator/index.js';
import type { TritonClient } from '../grpc/client.js';
import { TritonError } from '../grpc/errors.js';
import type { RepositoryModelEntry } from '../repository.js';
import { modelDigest, modelPayload, versionedLibrary } from './payload.js';
import { changedModels, previousStates } from './preflight.js';
import type { ProbeResult } from './readinessProbe.js';
import {
  candidateName,
  errorText,
  SERVER_STOPPED,
  type DeployOptions,
  type DeployResult,
  type ModelDeployStatus,
} from './types.js';
import { defaultUploadCacheDir, rememberUpload } from './uploadCache.js';

/**
 * Loads every entry in dependency order, as candidates (always uploaded, ensembles wired to the
 * candidate steps) or under their own names. A model whose dependency failed is skipped.
 */
export async function loadAll(
  client: TritonClient,
  entries: RepositoryModelEntry[],
  options: DeployOptions,
  result: DeployResult,
  as: 'candidate' | 'serve',
  changed: ReadonlySet<string>,
): Promise<{ loaded: RepositoryModelEntry[]; failures: ModelDeployStatus[] }> {
  const loaded: RepositoryModelEntry[] = [];
  const failures: ModelDeployStatus[] = [];
  const failed = new Set<string>();
  // The trial ensemble calls the candidate of each changed step and the served unchanged ones.
  const renameSteps = new Map(
    entries.filter((e) => changed.has(e.name)).map((e) => [e.name, candidateName(e.name)]),
  );
  for (const entry of entries) {
    let status: ModelDeployStatus;
    // An ensemble is tried whenever one of its steps changed (its candidate calls them).
    const tried = changed.has(entry.name) || entry.dependencies.some((d) => changed.has(d));
    if (as === 'candidate' ? !tried : !changed.has(entry.name)) {
      const library = versionedLibrary(entry)?.versioned;
      status = {
        model: entry.name,
        isEnsemble: entry.isEnsemble,
        state: 'ready',
        loadMs: 0,
        unchanged: true,
        ...(library && { library }),
      };
    } else if (options.signal?.aborted) {
      status = {
        model: entry.name,
        isEnsemble: entry.isEnsemble,
        state: 'skipped',
        loadMs: 0,
        error: 'cancelled',
      };
    } else if (failures.some((f) => f.error?.startsWith(SERVER_STOPPED))) {
      status = {
        model: entry.name,
        isEnsemble: entry.isEnsemble,
        state: 'skipped',
        loadMs: 0,
        error: `not loaded: ${SERVER_STOPPED} while it loaded '${failures[0]!.model}'`,
      };
    } else if (failures.length > 0 && as === 'serve') {
      // Nothing more is replaced once one model failed: the rest keep serving as they are.
      status = {
        model: entry.name,
        isEnsemble: entry.isEnsemble,
        state: 'skipped',
        loadMs: 0,
        error: `not loaded: '${failures[0]!.model}' failed`,
      };
    } else {
      const name = as === 'candidate' ? candidateName(entry.name) : entry.name;
      status = await deployModel(
        client,
        entry,
        name,
        options,
        failed,
        as === 'candidate' ? renameSteps : undefined,
      );
      if (status.state === 'ready' && !status.unchanged) {
        loaded.push(entry);
        result.actions.push(`loaded ${name}${status.library ? ` (${status.library})` : ''}`);
      }
    }
    if (status.state !== 'ready') {
      failed.add(entry.name);
      if (status.state === 'failed') failures.push(status);
    }
    if (as === 'serve' && status.unchanged)
      result.actions.push(`kept ${entry.name}: it already serves this build`);
    if (as === 'serve' || status.state !== 'ready') {
      upsertStatus(result.models, status);
      options.onModel?.(status);
    }
  }
  return { loaded, failures };
}

function upsertStatus(models: ModelDeployStatus[], status: ModelDeployStatus): void {
  const at = models.findIndex((m) => m.model === status.model);
  if (at >= 0) models[at] = status;
  else models.push(status);
}

export function probeFailure(
  entry: RepositoryModelEntry,
  probe: ProbeResult,
  models: ModelDeployStatus[],
  options: DeployOptions,
): ModelDeployStatus {
  const status: ModelDeployStatus = {
    model: entry.name,
    isEnsemble: true,
    state: 'failed',
    loadMs: 0,
    error: `loaded, but its first request failed: ${probe.error ?? 'no answer'}`,
    hint: 'a step of this ensemble fails on every request; its server log names the step',
  };
  upsertStatus(models, status);
  options.onModel?.(status);
  return status;
}

/**
 * Local mode: when a model reloads, Triton reloads the ensembles that use it, and they re-poll
 * their other steps from the repository folder; a step whose files changed on disk (regenerated,
 * rebuilt) is then reloaded from its plain config.pbtxt, without the versioned library name, and
 * a library path the server has loaded before runs its old code. Every model must serve this
 * build's config (its digest); one that does not is loaded again with it.
 */
export async function reassertOverrides(
  client: TritonClient,
  entries: RepositoryModelEntry[],
  options: DeployOptions,
  result: DeployResult,
): Promise<ModelDeployStatus[]> {
  for (let pass = 0; pass < 3; pass++) {
    const served = await previousStates(client, entries);
    const stale = [...changedModels(entries, served)];
    if (stale.length === 0) return [];
    for (const name of stale) {
      const entry = entries.find((e) => e.name === name)!;
      const status = await deployModel(client, entry, name, options, new Set(), undefined);
      result.actions.push(
        `loaded ${name} again: the server had reloaded it from its folder without this build's config`,
      );
      if (status.state !== 'ready') {
        upsertStatus(result.models, status);
        return [status];
      }
    }
  }
  const status: ModelDeployStatus = {
    model: entries.find((e) => e.isEnsemble)?.name ?? entries[0]!.name,
    isEnsemble: true,
    state: 'failed',
    loadMs: 0,
    error: 'the server keeps reloading models from its repository folder instead of this build',
  };
  upsertStatus(result.models, status);
  return [status];
}

async function deployModel(
  client: TritonClient,
  entry: RepositoryModelEntry,
  name: string,
  options: DeployOptions,
  failed: ReadonlySet<string>,
  renameSteps: Map<string, string> | undefined,
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
  // Candidates are always uploaded (no such folder in any repository); local ensembles load by name.
  const upload = renameSteps !== undefined || options.mode === 'remote';
  let payload: ReturnType<typeof modelPayload>;
  try {
    payload = modelPayload(entry, name, { upload, renameSteps });
  } catch (error) {
    // The repository changed under the deploy (a folder removed, a file unreadable).
    return { ...base, state: 'failed', loadMs: 0, error: `cannot read its files: ${errorText(error)}` };
  }
  const uploaded = upload
    ? {
        uploadedFiles: Object.keys(payload.files).sort(),
        uploadedBytes: Object.values(payload.files).reduce((n, f) => n + f.length, 0),
      }
    : {};
  const library = payload.library ? { library: payload.library } : {};
  try {
    if (upload) await client.loadModel(name, { config: payload.config, files: payload.files });
    // Local: the files come from the repository folder; the config carries the versioned library
    // name and the digest that tells a later deploy this build is already serving.
    else await client.loadModel(name, { config: payload.config });
    // What now serves under the model's own name can be uploaded again by a later rollback.
    if (upload && name === entry.name) {
      rememberUpload(
        options.uploadCacheDir ?? defaultUploadCacheDir(),
        entry.name,
        modelDigest(entry),
        payload.files,
      );
    }
    if (entry.isEnsemble) await waitReady(client, name, options.readyTimeoutMs ?? 60_000);
    return { ...base, state: 'ready', loadMs: round1(performance.now() - start), ...library, ...uploaded };
  } catch (error) {
    const message =
      error instanceof TritonError && error.serverMessage ? error.serverMessage : errorText(error);
    const loadMs = round1(performance.now() - start);
    // The server answered a moment ago (deploy reached it first): a dropped or refused connection
    // now means it died in this load, not that it is not running.
    if (!(await client.serverLive().catch(() => false))) {
      return {
        ...base,
        state: 'failed',
        loadMs,
        error:
          `${SERVER_STOPPED} while it loaded '${name}': it most likely crashed in this ` +
          "model's backend library (its log names the cause)",
        hint: 'restart the server; fix or rebuild this step before deploying it again',
        ...library,
      };
    }
    // Triton re-polls an ensemble's steps from its own repository folders, where uploaded steps
    // never are: the load reports that poll failure although the ensemble is loaded and serving.
    if (upload && entry.isEnsemble && /failed to poll from model repository/.test(message)) {
      if (await client.modelReady(name).catch(() => false)) {
        return {
          ...base,
          state: 'ready',
          loadMs,
          warning: `server said "${message}" (it cannot re-poll uploaded steps); the ensemble is ready`,
          ...uploaded,
        };
      }
    }
    return { ...base, state: 'failed', loadMs, error: message, ...library, ...hintFor(entry, message) };
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

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}
