/**
 * The TypeScript modules steps name (`"hooks"` on tokenize/detokenize, `"source"` on custom):
 * read from disk and compiled once per file version, so the validator can make their declared
 * inputs and outputs ports of the step on every keystroke, and the generator prints the same
 * compilation. A caller (a test, an editor with unsaved buffers) can hand in its own lookup.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { compileModule, type CompiledModule } from '../tscompile/index.js';

export interface StepModule {
  /** The path diagnostics name: the reference joined to the pipeline file's folder. */
  fileName: string;
  /** Absolute path. */
  path: string;
  /** Why the file cannot be read; otherwise `compiled` is set. */
  unreadable?: string;
  compiled?: CompiledModule;
}

export interface StepModules {
  load(ref: string, pipelineFile: string): StepModule;
}

export function stepModulePath(ref: string, pipelineFile: string): { fileName: string; path: string } {
  const fileName = isAbsolute(ref) ? ref : join(dirname(pipelineFile), ref);
  return { fileName, path: resolve(fileName) };
}

/** Per file, the compilation of its latest version (an editor saves a module many times). */
const compiled = new Map<string, { version: string; module: CompiledModule }>();

/** The real file system; compilations are cached per file version (the compiler takes ~100 ms). */
export function nodeStepModules(): StepModules {
  return {
    load(ref, pipelineFile) {
      const { fileName, path } = stepModulePath(ref, pipelineFile);
      let version: string;
      try {
        const st = statSync(path);
        if (!st.isFile()) return { fileName, path, unreadable: 'it is not a file' };
        version = `${st.mtimeMs}\0${st.size}\0${fileName}`;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        return { fileName, path, unreadable: code === 'ENOENT' ? 'no such file' : (e as Error).message };
      }
      const cached = compiled.get(path);
      if (cached?.version === version) return { fileName, path, compiled: cached.module };
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch (e) {
        return { fileName, path, unreadable: (e as Error).message };
      }
      const module = compileModule({ fileName, text });
      compiled.set(path, { version, module });
      return { fileName, path, compiled: module };
    },
  };
}
