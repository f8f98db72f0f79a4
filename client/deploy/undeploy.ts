/**
 * `triton-studio undeploy ENSEMBLE`: unloads an ensemble and the steps it uses, except steps
 * another loaded ensemble still uses (those are named in the result and stay).
 */
import type { TritonClient } from '../grpc/client.js';
import { TritonError } from '../grpc/errors.js';
import { serverStatus } from '../serverStatus.js';

export interface UndeployResult {
  ok: boolean;
  server: string;
  ensemble: string;
  /** Unloaded, ensemble first. */
  unloaded: string[];
  /** Steps left loaded because another ensemble uses them. */
  kept: { model: string; usedBy: string[] }[];
  /** A model the server failed to unload, with its words. */
  failed: { model: string; error: string }[];
}

export async function undeployEnsemble(client: TritonClient, ensemble: string): Promise<UndeployResult> {
  const status = await serverStatus(client);
  const target = status.models.find((m) => m.name === ensemble && m.versions.length > 0);
  if (!target) {
    const loaded = status.models.filter((m) => m.kind === 'ensemble').map((m) => m.name);
    throw new TritonError(
      `'${ensemble}' is not loaded on ${client.url}` +
        (loaded.length ? ` (loaded ensembles: ${loaded.join(', ')})` : ' (no ensemble is loaded)'),
      undefined,
      'RepositoryModelUnload',
    );
  }
  if (target.kind !== 'ensemble') {
    throw new TritonError(
      `'${ensemble}' is not an ensemble (${target.runtime ?? 'a model'}): undeploy takes the ensemble that uses it`,
      undefined,
      'RepositoryModelUnload',
    );
  }
  const others = status.models.filter(
    (m) => m.kind === 'ensemble' && m.name !== ensemble && m.versions.length,
  );
  const result: UndeployResult = {
    ok: true,
    server: client.url,
    ensemble,
    unloaded: [],
    kept: [],
    failed: [],
  };
  const unload = async (model: string) => {
    try {
      await client.unloadModel(model);
      result.unloaded.push(model);
    } catch (error) {
      result.ok = false;
      const text = error instanceof TritonError && error.serverMessage ? error.serverMessage : String(error);
      result.failed.push({ model, error: text });
    }
  };
  await unload(ensemble);
  for (const step of target.steps ?? []) {
    const usedBy = others.filter((o) => o.steps?.includes(step)).map((o) => o.name);
    if (usedBy.length > 0) result.kept.push({ model: step, usedBy });
    else if (status.models.some((m) => m.name === step && m.versions.length > 0)) await unload(step);
  }
  return result;
}
