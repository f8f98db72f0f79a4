/**
 * The llama.cpp model step (backend `llama_cpp`, backends/llama-cpp): its library and llama.cpp's
 * prebuilt ones, which scripts/fetch-llama.sh (part of `npm run setup`) unpacks into
 * `.cache/llama/`. A built repository carries them in the model's version folder beside
 * libtriton_llama_cpp.so, which finds them there (RUNPATH $ORIGIN) and loads ggml's CPU variants
 * from that folder.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BuildError } from './run.js';

export const LLAMA_CPP_BACKEND = 'llama_cpp';
export const LLAMA_CPP_TARGET = 'triton_llama_cpp';

/** Where scripts/fetch-llama.sh puts llama.cpp's libraries (bins/), headers (include/) and models/. */
export function llamaCacheDir(projectRoot: string): string {
  return join(projectRoot, '.cache', 'llama');
}

/** The SmolLM2-135M-Instruct GGUF the fetch script checks and unpacks. */
export function smolLm2Gguf(projectRoot: string): string {
  return join(llamaCacheDir(projectRoot), 'models', 'SmolLM2-135M-Instruct.Q4_1.gguf');
}

/** libtriton_llama_cpp.so inside a backends build tree. */
export function llamaCppLibrary(buildDir: string): string {
  return join(buildDir, 'llama-cpp', 'libtriton_llama_cpp.so');
}

/** The step's headers and libraries are present, or a BuildError saying how to get them. */
export function checkLlamaCppFetched(projectRoot: string): void {
  const dir = llamaCacheDir(projectRoot);
  if (!existsSync(join(dir, 'include', 'llama.h')) || !existsSync(join(dir, 'bins', 'libllama.v0.5.0.so'))) {
    throw new BuildError(
      `llama.cpp's libraries and headers are missing from ${dir}: run \`npm run setup\` (or bash scripts/fetch-llama.sh), ` +
        'which fetches them from npm (@node-llama-cpp/linux-x64, node-llama-cpp 3.22.1)',
    );
  }
}

/** The libraries the step loads at run time: libllama, ggml and every ggml CPU variant (not llama-common). */
export function llamaRuntimeLibraries(projectRoot: string): string[] {
  const bins = join(llamaCacheDir(projectRoot), 'bins');
  return readdirSync(bins)
    .filter((f) => /^lib(llama\.|ggml)[^/]*\.so$/.test(f))
    .sort()
    .map((f) => join(bins, f));
}
