/**
 * The llama.cpp model step (backend `llama_cpp`, backends/llama-cpp): its library and llama.cpp's
 * prebuilt ones, from a llama folder (the checkout's `.cache/llama/`, or an install's). A built
 * repository carries them in the model's version folder beside libtriton_llama_cpp.so, which finds them there (RUNPATH $ORIGIN) and loads ggml's CPU variants
 * from that folder. llama.cpp's release ships prebuilt libraries for both server CPUs (table below),
 * so the step cross-builds for aarch64 against the aarch64 ones.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { hostArchitecture, type Architecture, type TargetArch } from './architectures.js';
import { LLAMA_CPP_ARCHES, LLAMA_CPP_PACKAGES, LLAMA_CPP_VERSION, WEIGHT_SOURCES } from '../tokenizers/sources.js';
import { libllamaFile, llamaCppLibDir, llamaHeaderFile } from '../tokenizers/fetchLlamaCpp.js';
import { weightsFile } from '../tokenizers/fetchWeights.js';
import { BuildError } from './run.js';

export const LLAMA_CPP_BACKEND = 'llama_cpp';
export const LLAMA_CPP_TARGET = 'triton_llama_cpp';

/**
 * The checkout's llama folder, where scripts/fetch-llama.sh (part of `npm run setup`) puts
 * llama.cpp's libraries (bins/, bins-aarch64/), headers (include/) and models/. An installed
 * extension has its own with the same layout (fetchModel.ts fills it); builds take either.
 */
export function llamaCacheDir(projectRoot: string): string {
  return join(projectRoot, '.cache', 'llama');
}

/** The SmolLM2-135M-Instruct GGUF in the checkout's llama folder. */
export function smolLm2Gguf(projectRoot: string): string {
  return weightsFile(llamaCacheDir(projectRoot), WEIGHT_SOURCES['smollm2-135m-instruct-q4_1']);
}

/** How to get llama.cpp's libraries for each server CPU into a checkout, for error messages. */
const FETCH_HINT: Record<TargetArch, string> = {
  x86_64: '`npm run setup` (or bash scripts/fetch-llama.sh)',
  aarch64: '`npm run setup -- --cross aarch64` (or bash scripts/fetch-llama.sh aarch64)',
};

/** The folder of `llamaDir` holding llama.cpp's prebuilt libraries for `arch`. */
export function llamaBinsDir(llamaDir: string, arch: Architecture): string {
  return llamaCppLibDir(llamaDir, arch.arch);
}

/** libtriton_llama_cpp.so inside a backends build tree. */
export function llamaCppLibrary(buildDir: string): string {
  return join(buildDir, 'llama-cpp', 'libtriton_llama_cpp.so');
}

/** The step's headers and `arch`'s (default this machine's) libraries are in `llamaDir`, or a BuildError saying how to get them. */
export function checkLlamaCppFetched(llamaDir: string, arch: Architecture = hostArchitecture()): void {
  if (!existsSync(llamaHeaderFile(llamaDir)) || !existsSync(libllamaFile(llamaDir, arch.arch))) {
    const npm = LLAMA_CPP_PACKAGES[LLAMA_CPP_ARCHES[arch.arch].npmArch];
    throw new BuildError(
      `llama.cpp's headers or ${arch.arch} libraries are missing from ${llamaDir}: run ` +
        `\`triton-studio fetch-model\` (or in the extension, Download Model), or in a checkout ${FETCH_HINT[arch.arch]}; ` +
        `they come from npm (${npm.name}, node-llama-cpp ${LLAMA_CPP_VERSION})`,
    );
  }
}

/** The libraries the step loads at run time: libllama, ggml and every ggml CPU variant (not llama-common). */
export function llamaRuntimeLibraries(llamaDir: string, arch: Architecture = hostArchitecture()): string[] {
  const bins = llamaBinsDir(llamaDir, arch);
  return readdirSync(bins)
    .filter((f) => /^lib(llama\.|ggml)[^/]*\.so$/.test(f))
    .sort()
    .map((f) => join(bins, f));
}
