/** What a deploy is asked (DeployOptions) and what it answers (DeployResult, per model and as one outcome). */
import type { Architecture } from '../../generator/index.js';
import type { ModelConfig } from '../grpc/types.js';
import type { ProbeResult } from './readinessProbe.js';

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

export interface PreviousState {
  /** READY before the deploy, with the config it served. */
  config?: ModelConfig;
}

/** How a model's error begins when the server died loading it (later models are then skipped). */
export const SERVER_STOPPED = 'the server stopped answering';

export function candidateName(model: string): string {
  return `${model}${CANDIDATE_SUFFIX}`;
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
