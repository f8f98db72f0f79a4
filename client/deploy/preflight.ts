/**
 * What a deploy reads and checks before it sends anything: each backend library (ELF, architecture,
 * symbols; a broken one refuses the whole deploy), whether a local server sees this repository,
 * and what the server serves now (to skip unchanged models and to roll back to).
 */
import { join } from 'node:path';
import { hostArchitecture, type Architecture } from '../../generator/index.js';
import type { TritonClient } from '../grpc/client.js';
import { TritonError } from '../grpc/errors.js';
import { versionFiles, type RepositoryModelEntry } from '../repository.js';
import { libraryProblem, unresolvedProblem } from './libraryCheck.js';
import { DIGEST_PARAMETER, modelDigest } from './payload.js';
import {
  type DeployOptions,
  type DeployResult,
  type ModelDeployStatus,
  type PreviousState,
} from './types.js';

/** Models whose served config does not carry this build's digest (or that are not served). */
export function changedModels(
  entries: RepositoryModelEntry[],
  previous: Map<string, PreviousState>,
): Set<string> {
  return new Set(
    entries
      .filter(
        (e) => previous.get(e.name)?.config?.parameters?.[DIGEST_PARAMETER]?.string_value !== modelDigest(e),
      )
      .map((e) => e.name),
  );
}

/** Which of the repository's models the server serves now, and with which config. */
export async function previousStates(
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

/** Each model whose version folders hold a library the server could not load (or would crash on). */
export function brokenLibraries(
  entries: RepositoryModelEntry[],
  serverArch: Architecture,
): Map<string, string> {
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
export function refuseBrokenLibraries(
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

/** In local mode the server must already see this repository; say so plainly when it does not. */
export async function checkServerServes(
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
