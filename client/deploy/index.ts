/**
 * `deployRepository`: a repository onto a server without ever leaving the server worse than it
 * found it — preflight checks (preflight.ts), a trial under candidate names, the models replaced
 * (load.ts), and a roll-back when replacing fails (rollback.ts). Libraries travel under
 * content-derived names (payload.ts); the outcome is one of DeployOutcome (types.ts).
 */
import { hostArchitecture } from '../../generator/index.js';
import type { TritonClient } from '../grpc/client.js';
import { readRepository } from '../repository.js';
import { loadAll, probeFailure, reassertOverrides } from './load.js';
import { removeStaleCopies } from './payload.js';
import {
  brokenLibraries,
  changedModels,
  checkServerServes,
  previousStates,
  refuseBrokenLibraries,
} from './preflight.js';
import { probeModel } from './readinessProbe.js';
import { rollBack } from './rollback.js';
import { serverVersionNotes } from '../serverVersion.js';
import {
  candidateName,
  SERVER_STOPPED,
  type DeployOptions,
  type DeployResult,
  type ModelDeployStatus,
} from './types.js';

export {
  CANDIDATE_SUFFIX,
  type DeployMode,
  type DeployOptions,
  type DeployOutcome,
  type DeployResult,
  type ModelDeployStatus,
} from './types.js';

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
