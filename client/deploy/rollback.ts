/**
 * Putting back what a failed deploy replaced: each model to the config it served before (an
 * uploaded one with its files from this machine's upload cache), or unloaded if it was not loaded.
 */
import type { TritonClient } from '../grpc/client.js';
import { TritonError } from '../grpc/errors.js';
import type { RepositoryModelEntry } from '../repository.js';
import { DIGEST_PARAMETER } from './payload.js';
import { errorText, type DeployOptions, type PreviousState } from './types.js';
import { defaultUploadCacheDir, recallUpload } from './uploadCache.js';

/** Every model replaced goes back to the config that served before, or away if none did; true when all did. */
export async function rollBack(
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
