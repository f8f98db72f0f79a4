/**
 * A step's `files` are copied into its version folder `1/`: each must name a file, not one the
 * generator or the build writes there, and no two may land on the same name. Each must lie in the
 * pipeline's folder (or a folder the user allows): `generate` copies it into the repository that
 * `deploy` uploads, so `/etc/passwd` or `../../.ssh/id_rsa` would leave the machine. Whether the
 * file exists yet, and where a symbolic link really leads, is the environment's question
 * (`../environment.ts`).
 */
import { basename, delimiter, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { projectRoot } from '../projectRoot.js';
import type { ResolvedStep } from '../resolve.js';
import { hasControlChars, isNative, type CheckContext } from './context.js';

export interface VersionFile {
  index: number;
  entry: string;
  /** Absolute path it is copied from (relative entries are relative to the pipeline file). */
  source: string;
  /** Its name in `<model>/1/`. */
  name: string;
  /** Why it cannot be copied; undefined when it can. */
  problem?: string;
  code?: 'TS-E055' | 'TS-E059';
}

/** Folders outside the pipeline's own that `files` may name: the user's allow-list. */
export const FILES_ALLOW_ENV = 'TRITON_STUDIO_FILES_ALLOW';

/**
 * The folders a pipeline's `files` may come from: its own folder, Triton Studio's `.cache/` (where
 * set-up fetches models, e.g. the demo's GGUF), then those in `TRITON_STUDIO_FILES_ALLOW`.
 */
export function fileRoots(pipelineFile: string): string[] {
  const allowed = (process.env[FILES_ALLOW_ENV] ?? '').split(delimiter).filter((d) => isAbsolute(d));
  const root = projectRoot();
  return [
    dirname(resolve(pipelineFile)),
    ...(root ? [join(root, '.cache')] : []),
    ...allowed.map((d) => resolve(d)),
  ];
}

/** Whether `path` lies inside `root` (lexically; links are the environment's to follow). */
export function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/** The message of a `files` entry that leads outside the allowed folders. */
export function outsideMessage(entry: string, where: string, roots: readonly string[]): string {
  return (
    `"${entry}" ${where} outside the pipeline's folder ${roots[0]}, Triton Studio's .cache/` +
    ` and the folders in ${FILES_ALLOW_ENV}` +
    ": generate would copy it into the repository that deploy uploads. Move the file into the pipeline's " +
    `folder, or allow its folder with ${FILES_ALLOW_ENV}=/its/folder.`
  );
}

export function checkFiles(ctx: CheckContext): void {
  for (const step of ctx.steps) {
    for (const f of versionFiles(step, ctx.source.file)) {
      if (f.problem) ctx.report([...step.path, 'files', f.index], f.code ?? 'TS-E055', f.problem);
    }
  }
}

export function versionFiles(step: ResolvedStep, pipelineFile: string): VersionFile[] {
  const seen = new Map<string, number>();
  const roots = fileRoots(pipelineFile);
  return step.files.map((entry, index): VersionFile => {
    const source = isAbsolute(entry) ? entry : resolve(dirname(resolve(pipelineFile)), entry);
    const name = basename(source);
    const file = { index, entry, source, name };
    if (name === '' || name === '.' || name === '..' || hasControlChars(name)) {
      return {
        ...file,
        problem: `"${entry}" does not name a file or folder to copy; give a path such as "weights/model.onnx".`,
      };
    }
    if (reservedVersionFile(name, step)) {
      return {
        ...file,
        problem: `"${name}" is a name the generator or the build writes into ${step.name}/1/; rename the file.`,
      };
    }
    const before = seen.get(name);
    if (before !== undefined) {
      return {
        ...file,
        problem: `files[${before}] and files[${index}] both land in ${step.name}/1/${name}; rename one of them.`,
      };
    }
    seen.set(name, index);
    if (!roots.some((root) => isInside(source, root))) {
      return { ...file, code: 'TS-E059', problem: outsideMessage(entry, 'is', roots) };
    }
    return file;
  });
}

/** Names a step's `files` may not take: what the generator or the build puts in `1/`. */
function reservedVersionFile(name: string, step: ResolvedStep): boolean {
  return (isNative(step) && name === 'tokenizer.json') || /^libtriton_.*\.so$/.test(name);
}
