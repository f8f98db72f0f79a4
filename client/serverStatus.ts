/**
 * `triton-studio status`: what a server has loaded, at which versions, and whether each model is
 * ready. The repository index lists only the server's own folders, so models uploaded by deploy
 * come from the statistics (every loaded version) and the index adds what is known but not loaded.
 */
import type { TritonClient } from './grpc/client.js';
import { CANDIDATE_SUFFIX } from './deploy/index.js';
import { serverVersionNotes } from './serverVersion.js';

export interface ModelStatus {
  name: string;
  /** Loaded versions (empty when not loaded). */
  versions: string[];
  /** READY, UNAVAILABLE, … as the server says; NOT LOADED when it only knows the folder. */
  state: string;
  ready: boolean;
  /** The server's reason for UNAVAILABLE. */
  reason?: string;
  kind?: 'ensemble' | 'backend' | 'platform';
  /** The backend or platform name. */
  runtime?: string;
  /** The backend library the server loaded for it (`runtime` in its config), when named. */
  library?: string;
  /** An ensemble's steps. */
  steps?: string[];
  /** Requests answered since the model was loaded. */
  inferenceCount?: number;
  /** A leftover of an interrupted deploy's trial. */
  candidate?: boolean;
}

export interface ServerStatus {
  server: string;
  /** The server's own version (its metadata), when it says. */
  version?: string;
  /** Known faults of that version, and what to run instead. */
  warnings: string[];
  live: boolean;
  ready: boolean;
  models: ModelStatus[];
}

export async function serverStatus(client: TritonClient): Promise<ServerStatus> {
  const live = await client.serverLive();
  const ready = await client.serverReady().catch(() => false);
  const stats = await client.modelStatistics();
  const index = await client.repositoryIndex().catch(() => []);
  const notes = await serverVersionNotes(client);
  const byName = new Map<string, ModelStatus>();
  for (const s of stats) {
    const model = byName.get(s.name) ?? {
      name: s.name,
      versions: [],
      state: 'READY',
      ready: true,
      inferenceCount: 0,
    };
    model.versions.push(s.version);
    model.inferenceCount = (model.inferenceCount ?? 0) + s.inference_count;
    byName.set(s.name, model);
  }
  for (const entry of index) {
    if (byName.has(entry.name)) continue;
    byName.set(entry.name, {
      name: entry.name,
      versions: entry.version && entry.state === 'READY' ? [entry.version] : [],
      state: entry.state || 'NOT LOADED',
      ready: entry.state === 'READY',
      ...(entry.reason && { reason: entry.reason }),
    });
  }
  for (const model of byName.values()) {
    model.versions.sort((a, b) => Number(a) - Number(b));
    if (model.name.endsWith(CANDIDATE_SUFFIX)) model.candidate = true;
    if (!model.ready) continue;
    model.ready = await client.modelReady(model.name).catch(() => false);
    const config = await client.modelConfig(model.name).catch(() => undefined);
    if (!config) continue;
    if (config.platform === 'ensemble') {
      model.kind = 'ensemble';
      model.steps = [...new Set((config.ensemble_scheduling?.step ?? []).map((s) => s.model_name))];
    } else if (config.backend) {
      model.kind = 'backend';
      model.runtime = config.backend;
    } else if (config.platform) {
      model.kind = 'platform';
      model.runtime = config.platform;
    }
    if (config.runtime) model.library = config.runtime;
  }
  return {
    server: client.url,
    ...notes,
    live,
    ready,
    models: [...byName.values()].sort((a, b) => a.name.localeCompare(b.name)),
  };
}
