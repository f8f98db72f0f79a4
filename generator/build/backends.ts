/**
 * Building Triton Studio's own native parts (backends/: tokenizer library, TRITONBACKEND glue,
 * step runtimes, sim-llm) once per checkout. Each generated step then compiles only its small
 * step.cc against this prebuilt tree. Up-to-date checks are CMake's own: a second build with
 * nothing changed does no work.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { projectRoot as findProjectRoot } from '../pipeline/projectRoot.js';
import { crossCompileArgs, hostArchitecture, type Architecture } from './architectures.js';
import { libllamaFile, llamaHeaderFile } from '../tokenizers/fetchLlamaCpp.js';
import { llamaCacheDir } from './llamaCpp.js';
import { withDirectoryLock } from './lock.js';
import { BuildError, runOrThrow, type RunOptions } from './run.js';

export interface BuildBackendsOptions {
  /** Triton Studio's package folder (holding backends/); found from this file when omitted. */
  projectRoot?: string;
  /**
   * Where the CMake build tree goes; default `<projectRoot>/build/backends` for this machine's
   * architecture and `<projectRoot>/build/backends-<arch>` for another (cross-built).
   */
  buildDir?: string;
  /** The server CPU to build for; default this machine's (ARCHITECTURES, generator/build/architectures.ts). */
  arch?: Architecture;
  /** Parallel compile jobs; default min(2, CPU count). */
  jobs?: number;
  /**
   * Where third-party sources (Oniguruma's tarball) are downloaded to and looked for; default
   * `<projectRoot>/.cache/deps` (an installed extension passes its own storage).
   */
  dependencySourcesDir?: string;
  /** Folder with the official triton/core/tritonbackend.h to compile against instead of the project's declarations. */
  tritonIncludeDir?: string;
  /**
   * The llama folder the llama.cpp step builds against (include/, bins/, bins-aarch64/); default
   * the checkout's `.cache/llama` (an installed extension passes its own storage's).
   */
  llamaDir?: string;
  /** CMake targets to build; default what native steps and the CPU sample need. */
  targets?: string[];
  onOutput?: RunOptions['onOutput'];
  /** Cancels the build: the running compiler is stopped, nothing is placed. */
  signal?: AbortSignal;
}

export interface BackendsBuild {
  /** The CMake build tree (pass as TRITON_STUDIO_BACKENDS_BUILD to step projects). */
  buildDir: string;
  /** The backends source folder (TRITON_STUDIO_BACKENDS_DIR). */
  sourceDir: string;
  /** The architecture the tree is built for. */
  arch: Architecture;
  /** CMake arguments every project built against this tree must get too (the cross toolchain). */
  cmakeArgs: string[];
}

export const DEFAULT_BACKEND_TARGETS = ['ts_triton_steps', 'triton_sim_llm'];

/** libtriton_sim_llm.so inside a backends build tree. */
export function simLlmLibrary(buildDir: string): string {
  return join(buildDir, 'sim-llm', 'libtriton_sim_llm.so');
}

export function defaultJobs(): number {
  return Math.max(1, Math.min(2, availableParallelism()));
}

export async function buildBackends(opts: BuildBackendsOptions = {}): Promise<BackendsBuild> {
  const root = opts.projectRoot ?? findProjectRoot();
  if (!root) {
    throw new BuildError(
      "cannot find Triton Studio's package folder (holding backends/): set TRITON_STUDIO_ROOT or pass projectRoot",
    );
  }
  const sourceDir = resolve(root, 'backends');
  if (!existsSync(join(sourceDir, 'CMakeLists.txt'))) {
    throw new BuildError(`${sourceDir}/CMakeLists.txt is missing: projectRoot must be Triton Studio's package folder`);
  }
  const arch = opts.arch ?? hostArchitecture();
  const cmakeArgs = crossCompileArgs(arch, sourceDir);
  const defaultDir = arch.arch === hostArchitecture().arch ? 'backends' : `backends-${arch.arch}`;
  const buildDir = resolve(opts.buildDir ?? join(root, 'build', defaultDir));
  mkdirSync(dirname(buildDir), { recursive: true });
  const run = { onOutput: opts.onOutput, signal: opts.signal };

  await withDirectoryLock(`${buildDir}.lock`, 15 * 60_000, async () => {
    const configureArgs = ['-S', sourceDir, '-B', buildDir, '-DCMAKE_BUILD_TYPE=Release', ...cmakeArgs];
    if (opts.tritonIncludeDir) configureArgs.push(`-DTRITON_BACKEND_INCLUDE_DIR=${resolve(opts.tritonIncludeDir)}`);
    if (opts.dependencySourcesDir) configureArgs.push(`-DTS_DEPS_DIR=${resolve(opts.dependencySourcesDir)}`);
    const llamaDir = resolve(opts.llamaDir ?? llamaCacheDir(root));
    configureArgs.push(`-DTS_LLAMA_DIR=${llamaDir}`);
    // Configure once (or when asked for other headers), and again when a CMake file changed since:
    // `cmake --build` re-runs CMake by itself only for targets the tree already knows, so a target
    // added later (ts-perf-driver) would be "No rule to make target" in an older tree.
    if (configureNeeded(sourceDir, buildDir, arch, llamaDir) || opts.tritonIncludeDir) {
      await runOrThrow(
        'cmake',
        configureArgs,
        'Configuring the native backends failed. Check that cmake >= 3.20, g++ and the packages in ' +
          'backends/DEPENDENCIES.txt (nlohmann-json3-dev among them) are ' +
          'installed (`npm run setup` installs them)',
        run,
      );
    }
    const targets = opts.targets ?? DEFAULT_BACKEND_TARGETS;
    await runOrThrow(
      'cmake',
      ['--build', buildDir, '--parallel', String(opts.jobs ?? defaultJobs()), '--target', ...targets],
      'Compiling the native backends failed. This is a bug in backends/ or a missing system package: ' +
        'see the compiler output below',
      run,
    );
  });
  return { buildDir, sourceDir, arch, cmakeArgs };
}

/** No CMakeCache.txt yet, or a CMakeLists.txt / *.cmake file under backends/ newer than it. */
function configureNeeded(sourceDir: string, buildDir: string, arch: Architecture, llamaDir: string): boolean {
  const cache = join(buildDir, 'CMakeCache.txt');
  if (!existsSync(cache)) return true;
  // Another llama folder than the tree was configured with (a checkout's, then an install's).
  if (!readFileSync(cache, 'utf8').includes(`TS_LLAMA_DIR:PATH=${llamaDir}\n`)) return true;
  const configuredAt = statSync(cache).mtimeMs;
  const newer = (dir: string): boolean =>
    readdirSync(dir, { withFileTypes: true }).some((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return newer(path);
      return (
        (entry.name === 'CMakeLists.txt' || entry.name.endsWith('.cmake')) && statSync(path).mtimeMs > configuredAt
      );
    });
  // llama.cpp fetched since (backends/llama-cpp defines its target only when it is there).
  for (const fetched of [llamaHeaderFile(llamaDir), libllamaFile(llamaDir, arch.arch)]) {
    if (existsSync(fetched) && statSync(fetched).mtimeMs > configuredAt) return true;
  }
  return newer(sourceDir);
}
