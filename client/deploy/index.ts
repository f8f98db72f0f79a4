import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { hostArchitecture, stepSourcesDir, type Architecture } from '../../generator/index.js';
import {
  DIGEST_PARAMETER,
  modelDigest,
  modelPayload,
  removeStaleCopies,
  versionedLibrary,
} from './payload.js';
import { TritonError } from '../grpc/errors.js';
import type { TritonClient } from '../grpc/client.js';
import type { ModelConfig } from '../grpc/types.js';
import { libraryProblem, unresolvedProblem } from './libraryCheck.js';
import { probeModel, type ProbeResult } from './readinessProbe.js';
import { readRepository, versionFiles, type RepositoryModelEntry } from '../repository.js';
import { serverVersionNotes } from '../serverVersion.js';
import { defaultUploadCacheDir, recallUpload, rememberUpload } from './uploadCache.js';

export type DeployMode = 'local' | 'remote';

/** Models loaded to try a deploy out carry this suffix; they are unloaded again. */
export const CANDIDATE_SUFFIX = '__ts_candidate';

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
  /**
   * Remote mode: where the files of each build this machine uploaded are kept, so a failed
   * replacement can upload the build that served before again (client/uploadCache.ts).
   * Default: `uploads/` in the shared server's state folder.
   */
  uploadCacheDir?: string;
  /**
   * The CPU the server runs on, which every library must be built for. Default: this machine's
   * (a local server runs here); a remote Grace (GH200, GB200) server needs `aarch64`.
   */
  serverArch?: Architecture;
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
  /** The backend library the server loads for it (`libtriton_<backend>-<content hash>.so`). */
  library?: string;
  /** Already serving this exact build (same config and files): not loaded again. */
  unchanged?: boolean;
  /** Remote mode: the files uploaded with the config. */
  uploadedFiles?: string[];
  uploadedBytes?: number;
}

/**
 * - `deployed`: every model loaded and every ensemble answered a real request.
 * - `refused`: a check before sending anything failed; the server was not contacted for loading.
 * - `unchanged`: the new models failed their trial (loaded under candidate names); what the
 *   server served is untouched.
 * - `rolled-back`: replacing the served models failed; each is back at its previous config.
 * - `rollback-incomplete`: as above, but some model could not be put back (`actions` says which).
 * - `server-lost`: the server stopped answering during the deploy (it crashed loading or running a
 *   model); nothing could be restored, and what it served is gone with it.
 */
export type DeployOutcome =
  'deployed' | 'refused' | 'unchanged' | 'rolled-back' | 'rollback-incomplete' | 'server-lost';

export interface DeployResult {
  ok: boolean;
  outcome: DeployOutcome;
  server: string;
  mode: DeployMode;
  repository: string;
  models: ModelDeployStatus[];
  /** The models clients call (ensembles and native orchestrators), ready to take prompts when `ok`. */
  ensembles: string[];
  /** The real requests sent to check readiness (candidates first, then the served ensembles). */
  probes: ProbeResult[];
  /** What deploy did to the server, in order, in words (loads, unloads, restores). */
  actions: string[];
  /** Known faults of the server's version (see `serverVersionWarning`), said whatever the outcome. */
  warnings?: string[];
}

interface PreviousState {
  /** READY before the deploy, with the config it served. */
  config?: ModelConfig;
}

/**
 * Deploys a repository without ever leaving the server worse than it found it:
 * 1. every backend library is checked (ELF, architecture, symbols); nothing is sent if one is bad;
 * 2. trial: every model is loaded under a candidate name (`<name>__ts_candidate`, the ensemble
 *    wired to the candidate steps), steps before ensembles, and each candidate ensemble answers
 *    a real request; the candidates are then unloaded. A failure here leaves what serves untouched;
 * 3. the models are loaded under their own names (Triton keeps a model's previous version serving
 *    when its reload fails), and each ensemble answers a real request again;
 * 4. if that fails, every model this deploy replaced returns to the config that served before
 *    (or is unloaded if it was not loaded), and `actions` says exactly what happened.
 * Libraries reach the server under content-derived names (see deployPayload.ts), so a rebuilt
 * step always runs its new code. What no check can stop, a library that crashes the server when
 * Triton calls it, ends the deploy as `server-lost`, saying so (not "cannot reach Triton").
 */
export async function deployRepository(client: TritonClient, options: DeployOptions): Promise<DeployResult> {
  const entries = readRepository(options.repository);
  const broken = brokenLibraries(entries, options.serverArch ?? hostArchitecture());
  if (broken.size > 0) return refuseBrokenLibraries(client, options, entries, broken);
  if (options.mode === 'local') await checkServerServes(client, options.repository, entries);
  // Reach the repository endpoint before loading anything: a refused TLS handshake or a
  // restricted endpoint is then one error that says what to pass, not one failure per model.
  else await client.repositoryIndex();

  const result: DeployResult = {
    ok: false,
    outcome: 'unchanged',
    server: client.url,
    mode: options.mode,
    repository: options.repository,
    models: [],
    ensembles: entries.filter((e) => e.callable).map((e) => e.name),
    probes: [],
    actions: [],
  };
  const { warnings } = await serverVersionNotes(client);
  if (warnings.length > 0) result.warnings = warnings;
  const previous = await previousStates(client, entries);
  const changed = changedModels(entries, previous);

  // 2. Trial under candidate names.
  const trial = await loadAll(client, entries, options, result, 'candidate', changed);
  for (const entry of trial.loaded.filter((e) => e.callable)) {
    const probe = await probeModel(client, candidateName(entry.name));
    result.probes.push(probe);
    if (!probe.ok) trial.failures.push(probeFailure(entry, probe, result.models, options));
  }
  // A server that died loading or running a candidate has nothing left to unload or keep.
  if (trial.failures.length > 0 && (await serverLost(client, trial.failures, result))) {
    return finish(result, options);
  }
  for (const entry of [...trial.loaded].reverse()) {
    await client.unloadModel(candidateName(entry.name)).catch(() => undefined);
    result.actions.push(`unloaded candidate ${candidateName(entry.name)}`);
  }
  if (trial.failures.length > 0 || options.signal?.aborted) {
    result.actions.push('the models the server served were not touched');
    return finish(result, options);
  }

  // 3. Replace the served models.
  result.models = [];
  const promoted = await loadAll(client, entries, options, result, 'serve', changed);
  if (promoted.failures.length === 0 && options.mode === 'local') {
    promoted.failures.push(...(await reassertOverrides(client, entries, options, result)));
  }
  if (promoted.failures.length === 0) {
    for (const entry of entries.filter((e) => e.callable)) {
      const probe = await probeModel(client, entry.name);
      result.probes.push(probe);
      if (!probe.ok) promoted.failures.push(probeFailure(entry, probe, result.models, options));
    }
  }
  if (promoted.failures.length === 0) {
    result.ok = true;
    result.outcome = 'deployed';
    if (options.mode === 'local') {
      for (const entry of entries) {
        removeStaleCopies(entry, result.models.find((m) => m.model === entry.name)?.library);
      }
    }
    return finish(result, options);
  }

  if (await serverLost(client, promoted.failures, result)) return finish(result, options);

  // 4. Put back what was replaced.
  result.outcome = (await rollBack(client, promoted.loaded, previous, options, result.actions))
    ? 'rolled-back'
    : 'rollback-incomplete';
  return finish(result, options);
}

/**
 * A config as the gRPC client decodes it carries, for each oneof, a field naming the member that
 * is set (`scheduling_choice: "dynamic_batching"`); Triton's JSON parser refuses such a field.
 */
function withoutOneofMarkers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutOneofMarkers);
  if (value === null || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(object)
      .filter(([key, v]) => !(typeof v === 'string' && v !== key && v in object && key.endsWith('_choice')))
      .map(([key, v]) => [key, withoutOneofMarkers(v)]),
  );
}

/** One sentence for what a failed deploy left on the server (CLI, workflow and editor say the same). */
export function deployOutcomeText(result: DeployResult): string {
  return {
    deployed: 'every model is serving the new build',
    refused: 'nothing was sent to the server',
    unchanged: 'the trial failed; the models the server serves were not touched',
    'rolled-back': 'replacing failed; every replaced model is back at the config it served before',
    'rollback-incomplete': 'replacing failed and some models could not be put back (see what deploy did)',
    'server-lost':
      'the server stopped answering during the deploy (it most likely crashed: its log says why); ' +
      'what it served is gone with it: restart it and deploy a build that works',
  }[result.outcome];
}

/** How a model's error begins when the server died loading it (later models are then skipped). */
const SERVER_STOPPED = 'the server stopped answering';

function candidateName(model: string): string {
  return `${model}${CANDIDATE_SUFFIX}`;
}

/**
 * After a failure: is the server gone (crashed loading or running a model)? Then there is nothing
 * to unload or restore, and saying "the served models were not touched" would be wrong.
 */
async function serverLost(
  client: TritonClient,
  failures: ModelDeployStatus[],
  result: DeployResult,
): Promise<boolean> {
  if (await client.serverLive().catch(() => false)) return false;
  result.outcome = 'server-lost';
  const during = failures[0] ? ` during '${failures[0].model}'` : '';
  result.actions.push(
    `${SERVER_STOPPED}${during}: it most likely crashed in that model's backend library ` +
      '(its log names the cause); nothing could be unloaded or restored',
  );
  return true;
}

function finish(result: DeployResult, options: DeployOptions): DeployResult {
  if (options.signal?.aborted && !result.ok) result.actions.push('cancelled');
  return result;
}

/**
 * Local mode: when a model reloads, Triton reloads the ensembles that use it, and they re-poll
 * their other steps from the repository folder; a step whose files changed on disk (regenerated,
 * rebuilt) is then reloaded from its plain config.pbtxt, without the versioned library name, and
 * a library path the server has loaded before runs its old code. Every model must serve this
 * build's config (its digest); one that does not is loaded again with it.
 */
async function reassertOverrides(
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

/** Models whose served config does not carry this build's digest (or that are not served). */
function changedModels(entries: RepositoryModelEntry[], previous: Map<string, PreviousState>): Set<string> {
  return new Set(
    entries
      .filter(
        (e) => previous.get(e.name)?.config?.parameters?.[DIGEST_PARAMETER]?.string_value !== modelDigest(e),
      )
      .map((e) => e.name),
  );
}

/** Which of the repository's models the server serves now, and with which config. */
async function previousStates(
  client: TritonClient,
  entries: RepositoryModelEntry[],
): Promise<Map<string, PreviousState>> {
  // By name: the repository index lists only the server's own folders, not uploaded models.
  const states = new Map<string, PreviousState>();
  for (const entry of entries) {
    const ready = await client.modelReady(entry.name).catch(() => false);
    states.set(entry.name, ready ? { config: await client.modelConfig(entry.name) } : {});
  }
  return states;
}

/**
 * Loads every entry in dependency order, as candidates (always uploaded, ensembles wired to the
 * candidate steps) or under their own names. A model whose dependency failed is skipped.
 */
async function loadAll(
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

function probeFailure(
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

/** Every model replaced goes back to the config that served before, or away if none did; true when all did. */
async function rollBack(
  client: TritonClient,
  replaced: RepositoryModelEntry[],
  previous: Map<string, PreviousState>,
  options: DeployOptions,
  actions: string[],
): Promise<boolean> {
  let complete = true;
  // Ensembles first (they depend on the steps), each restored or unloaded.
  for (const entry of [...replaced].reverse()) {
    const before = previous.get(entry.name)?.config;
    try {
      if (!before) {
        await client.unloadModel(entry.name);
        actions.push(`unloaded ${entry.name} (it was not loaded before)`);
      } else if (entry.isEnsemble || options.mode === 'local') {
        // An ensemble needs no files; in local mode the previous library is still in the folder.
        const files: Record<string, Buffer> =
          options.mode === 'remote'
            ? {
                [`${entry.versions[0] ?? '1'}/.triton-studio`]: Buffer.from(
                  'restored by triton-studio deploy\n',
                ),
              }
            : {};
        await client.loadModel(entry.name, { config: JSON.stringify(withoutOneofMarkers(before)), files });
        actions.push(`restored ${entry.name} to the config it served before`);
      } else {
        // Uploaded: its previous files come from this machine's copy of that upload, if any.
        const cacheDir = options.uploadCacheDir ?? defaultUploadCacheDir();
        const digest = before.parameters?.[DIGEST_PARAMETER]?.string_value;
        const files = digest ? recallUpload(cacheDir, entry.name, digest) : undefined;
        if (files) {
          await client.loadModel(entry.name, { config: JSON.stringify(withoutOneofMarkers(before)), files });
          actions.push(
            `restored ${entry.name} to the config it served before (its files uploaded again from ${cacheDir})`,
          );
        } else {
          complete = false;
          actions.push(
            `could not restore ${entry.name}: it was uploaded, and its previous files are not on this machine; ` +
              'deploy the previous repository again',
          );
        }
      }
    } catch (error) {
      const text =
        error instanceof TritonError && error.serverMessage ? error.serverMessage : errorText(error);
      if (
        entry.isEnsemble &&
        /failed to poll from model repository/.test(text) &&
        (await client.modelReady(entry.name).catch(() => false))
      ) {
        actions.push(`restored ${entry.name} to the config it served before`);
        continue;
      }
      complete = false;
      actions.push(`could not restore ${entry.name}: ${text}`);
    }
  }
  return complete;
}

/** Each model whose version folders hold a library the server could not load (or would crash on). */
function brokenLibraries(entries: RepositoryModelEntry[], serverArch: Architecture): Map<string, string> {
  const broken = new Map<string, string>();
  // Symbols resolve against this machine's libraries: a check that means something only when the
  // server runs on this architecture; for another, the server's load is the check.
  const resolveHere = serverArch.arch === hostArchitecture().arch;
  for (const entry of entries) {
    for (const [path, bytes] of Object.entries(versionFiles(entry))) {
      if (!/\.so(\.\d+)*$/.test(path)) continue;
      const file = join(entry.dir, path);
      const problem =
        libraryProblem(file, bytes, serverArch) ?? (resolveHere ? unresolvedProblem(file, bytes) : undefined);
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
    outcome: 'refused',
    probes: [],
    actions: ['nothing was sent to the server: a library is broken'],
    server: client.url,
    mode: options.mode,
    repository: options.repository,
    models,
    ensembles: entries.filter((e) => e.callable).map((e) => e.name),
  };
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
