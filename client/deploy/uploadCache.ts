/**
 * What remote deploys uploaded, kept on this machine by model and build digest, so a failed
 * replacement can upload the build that served before again: the server offers no way to read an
 * uploaded model's files back, and a rebuilt repository no longer holds them. Only the newest
 * builds of each model are kept (a few libraries of a few MB each).
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { readFiles } from '../repository.js';
import { sharedStateDir } from '../server/sharedServer.js';

/** Builds kept per model; the one serving and the one before it are what a rollback needs. */
const KEEP = 3;

/** Default: `<state dir>/uploads` (the shared server's state folder, `$TRITON_STUDIO_STATE_DIR`). */
export function defaultUploadCacheDir(): string {
  return join(sharedStateDir(), 'uploads');
}

function buildDir(cacheDir: string, model: string, digest: string): string {
  // Model names are folder names in a repository; a digest is hex. Neither can climb out.
  if (!/^[0-9a-f]+$/.test(digest) || model.includes('/') || model.includes('\\') || model.startsWith('.')) {
    throw new Error(`cannot cache '${model}' build '${digest}': not a model name and digest`);
  }
  return join(cacheDir, model, digest);
}

/** Keeps `files` (keyed `1/name`) as build `digest` of `model`; best effort, never fails a deploy. */
export function rememberUpload(
  cacheDir: string,
  model: string,
  digest: string,
  files: Readonly<Record<string, Buffer>>,
): void {
  try {
    const dir = buildDir(cacheDir, model, digest);
    if (existsSync(dir)) return;
    const temporary = `${dir}.tmp-${process.pid}`;
    rmSync(temporary, { recursive: true, force: true });
    const escapes = (path: string) => relative(temporary, join(temporary, path)).split(sep)[0] === '..';
    if (Object.keys(files).some(escapes)) return;
    for (const [path, bytes] of Object.entries(files)) {
      const target = join(temporary, path);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, bytes);
    }
    mkdirSync(temporary, { recursive: true });
    mkdirSync(dirname(dir), { recursive: true });
    renameSync(temporary, dir); // a reader never sees half a build
    prune(join(cacheDir, model));
  } catch {
    // A cache that cannot be written only makes a later rollback incomplete, as before.
  }
}

/** The files build `digest` of `model` was uploaded with, or undefined when not kept here. */
export function recallUpload(
  cacheDir: string,
  model: string,
  digest: string,
): Record<string, Buffer> | undefined {
  let dir: string;
  try {
    dir = buildDir(cacheDir, model, digest);
  } catch {
    return undefined;
  }
  return existsSync(dir) ? readFiles(dir) : undefined;
}

/** Drops all but the newest KEEP builds of one model. */
function prune(modelDir: string): void {
  const builds = readdirSync(modelDir)
    .filter((name) => /^[0-9a-f]+$/.test(name))
    .map((name) => ({ name, at: statSync(join(modelDir, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const old of builds.slice(KEEP)) rmSync(join(modelDir, old.name), { recursive: true, force: true });
}
