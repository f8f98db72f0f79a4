/**
 * What one model sends to the server on deploy. Triton keeps a backend library loaded by its path
 * for the life of the process (its backend manager never forgets one), so a rebuilt
 * `libtriton_<backend>.so` at a path the server has loaded before would keep running the old code.
 * Each library therefore reaches the server under a name derived from its content,
 * `libtriton_<backend>-<sha256 prefix>.so`, which the model's config names in `runtime`: a changed
 * build is a path the server has never loaded, an unchanged one changes nothing.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { modelConfigToJson, ORCHESTRATES_PARAMETER, type ModelConfig } from '../../generator/index.js';
import { versionFiles, type RepositoryModelEntry } from '../repository.js';

/** `libtriton_<backend>-<12 hex>.so`: a copy deploy makes, never uploaded as a file of its own. */
const VERSIONED = /^libtriton_.+-[0-9a-f]{12}\.so$/;

/**
 * Config parameter carrying a digest of the model's config and version files: a model whose
 * served config carries the same digest is already serving this build and is not loaded again
 * (each load of an uploaded library is a new path, which Triton maps for good).
 */
export const DIGEST_PARAMETER = 'triton_studio_digest';

/** sha256 (first 16 hex) of the model's config and every version file, names and bytes. */
export function modelDigest(entry: RepositoryModelEntry): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify(modelConfigToJson({ ...entry.config, name: entry.name })));
  const files = versionFiles(entry);
  for (const path of Object.keys(files).sort()) {
    if (VERSIONED.test(path.split('/').pop()!)) continue;
    hash.update(`\0${path}\0`);
    hash.update(files[path]!);
  }
  return hash.digest('hex').slice(0, 16);
}

export interface ModelPayload {
  /** The config sent with the load (protobuf JSON), `runtime` naming the versioned library. */
  config: Record<string, unknown>;
  /** `file:` parameters (remote), keyed `1/name`. */
  files: Record<string, Buffer>;
  /** The library name the server loads, when the model has one of ours. */
  library?: string;
}

/** The backend library the model's version folders hold (`libtriton_<backend>.so`), with its versioned name. */
export function versionedLibrary(
  entry: RepositoryModelEntry,
): { plain: string; versioned: string } | undefined {
  const backend = entry.config.backend;
  if (!backend || entry.isEnsemble) return undefined;
  const plain = `libtriton_${backend}.so`;
  const files = versionFiles(entry);
  const bytes = Object.entries(files).find(([path]) => path.split('/').pop() === plain)?.[1];
  if (!bytes) return undefined;
  const digest = createHash('sha256').update(bytes).digest('hex').slice(0, 12);
  return { plain, versioned: `libtriton_${backend}-${digest}.so` };
}

/**
 * The config and files for loading `entry` as `name` (the model's own name, or a staging name).
 * `upload`: send the version files (the server need not see the repository); else the server
 * reads them from the repository folder, where the versioned copy is put beside the plain one.
 */
export function modelPayload(
  entry: RepositoryModelEntry,
  name: string,
  options: { upload: boolean; renameSteps?: Map<string, string> },
): ModelPayload {
  const library = versionedLibrary(entry);
  const config: ModelConfig = {
    ...entry.config,
    name,
    parameters: { ...entry.config.parameters, [DIGEST_PARAMETER]: { string_value: modelDigest(entry) } },
  };
  if (library) config.runtime = library.versioned;
  if (entry.isEnsemble && options.renameSteps && entry.config.ensemble_scheduling) {
    const rename = options.renameSteps;
    config.ensemble_scheduling = {
      ...entry.config.ensemble_scheduling,
      step: entry.config.ensemble_scheduling.step.map((s) => ({
        ...s,
        model_name: rename.get(s.model_name) ?? s.model_name,
      })),
    };
  }
  // A native orchestrator calls the model step its "orchestrates" parameter names: a staged copy
  // calls the staged step.
  const target = entry.config.parameters?.[ORCHESTRATES_PARAMETER]?.string_value;
  const stagedTarget = target !== undefined ? options.renameSteps?.get(target) : undefined;
  if (stagedTarget !== undefined) {
    config.parameters = { ...config.parameters, [ORCHESTRATES_PARAMETER]: { string_value: stagedTarget } };
  }
  const files: Record<string, Buffer> = {};
  if (options.upload) {
    for (const [path, bytes] of Object.entries(versionFiles(entry))) {
      const parts = path.split('/');
      const file = parts.pop()!;
      if (VERSIONED.test(file)) continue;
      files[library && file === library.plain ? [...parts, library.versioned].join('/') : path] = bytes;
    }
    // Triton only creates the model folder from `file:` parameters, so a model whose version
    // folder is empty (an ensemble) gets a marker file to make `1/` exist.
    if (Object.keys(files).length === 0) {
      files[`${entry.versions[0] ?? '1'}/.triton-studio`] = Buffer.from('uploaded by triton-studio deploy\n');
    }
  } else if (library) {
    placeVersionedCopies(entry, library);
  }
  return {
    config: modelConfigToJson(config) as Record<string, unknown>,
    files,
    ...(library && { library: library.versioned }),
  };
}

/**
 * Local mode: `<version>/libtriton_<backend>-<hash>.so` beside the built library, always a copy of
 * its own. (A hard link shared the served library's inode with the plain file: anything that then
 * rewrote or truncated `libtriton_<backend>.so` in place — `cp`, a truncated download, another
 * build tool — changed the code the server had mapped, and it died with SIGBUS or SIGSEGV.)
 */
function placeVersionedCopies(
  entry: RepositoryModelEntry,
  library: { plain: string; versioned: string },
): void {
  for (const version of entry.versions) {
    const dir = join(entry.dir, version);
    const source = join(dir, library.plain);
    const target = join(dir, library.versioned);
    if (!existsSync(source) || existsSync(target)) continue;
    const temporary = `${target}.tmp-${process.pid}`;
    copyFileSync(source, temporary);
    renameSync(temporary, target);
  }
}

/**
 * After a local deploy: versioned copies other than the ones now serving go (the server keeps
 * what it loaded mapped; the files are not needed again).
 */
export function removeStaleCopies(entry: RepositoryModelEntry, keep: string | undefined): void {
  for (const version of entry.versions) {
    const dir = join(entry.dir, version);
    for (const file of readdirSync(dir)) {
      if (VERSIONED.test(file) && file !== keep) rmSync(join(dir, file), { force: true });
    }
  }
}
