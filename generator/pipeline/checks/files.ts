/**
 * A step's `files` are copied into its version folder `1/`: each must name a file, not one the
 * generator or the build writes there, and no two may land on the same name. Whether the file
 * exists yet is the environment's question (`../environment.ts`).
 */
import { basename, dirname, isAbsolute, resolve } from 'node:path';
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
}

export function checkFiles(ctx: CheckContext): void {
  for (const step of ctx.steps) {
    for (const f of versionFiles(step, ctx.source.file)) {
      if (f.problem) ctx.report([...step.path, 'files', f.index], 'TS-E055', f.problem);
    }
  }
}

export function versionFiles(step: ResolvedStep, pipelineFile: string): VersionFile[] {
  const seen = new Map<string, number>();
  return step.files.map((entry, index) => {
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
    return file;
  });
}

/** Names a step's `files` may not take: what the generator or the build puts in `1/`. */
function reservedVersionFile(name: string, step: ResolvedStep): boolean {
  return (isNative(step) && name === 'tokenizer.json') || /^libtriton_.*\.so$/.test(name);
}
