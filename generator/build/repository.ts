/**
 * Building a generated model repository: every native step (a model whose sources folder
 * `REPO.src/<model>/` holds a CMakeLists.txt) is compiled into libtriton_<backend>.so and placed
 * in the model's version folder, where Triton looks for a model's backend library; sim_llm models
 * get the prebuilt libtriton_sim_llm.so the same way. Sources and build trees live outside the
 * repository, so deploying it never ships them.
 */
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { parsePbtxt } from '../pbtxt/index.js';
import { stepSourcesDir } from '../repository/layout.js';
import { projectRoot as findProjectRoot } from '../pipeline/projectRoot.js';
import { hostArchitecture, type Architecture } from './architectures.js';
import {
  buildBackends,
  DEFAULT_BACKEND_TARGETS,
  defaultJobs,
  simLlmLibrary,
  type BackendsBuild,
  type BuildBackendsOptions,
} from './backends.js';
import { compatibilityProblems, containerFloor, requiredFloor } from './containers.js';
import { readElfDynamic } from './elf.js';
import {
  checkLlamaCppFetched,
  llamaCacheDir,
  LLAMA_CPP_BACKEND,
  LLAMA_CPP_TARGET,
  llamaCppLibrary,
  llamaRuntimeLibraries,
} from './llamaCpp.js';
import { checkTargetSymbols, targetTritonLibrary } from './targetSymbols.js';
import { withDirectoryLock } from './lock.js';
import { BuildError, runOrThrow, runTool } from './run.js';

export interface BuildRepositoryOptions extends BuildBackendsOptions {
  /** Where step build trees go; default `<backends build dir>/../steps`. */
  stepsBuildDir?: string;
  /** Only these model folders; default every model in the repository. */
  models?: string[];
  /** The native steps' sources; default `stepSourcesDir(repo)` (`REPO.src`, beside it). */
  sourcesDir?: string;
  /** CMAKE_BUILD_TYPE of the native steps (the shared backends stay Release); default Release. */
  buildType?: 'Release' | 'RelWithDebInfo' | 'Debug';
  /** Called as each stage starts: the shared backends (index 0), then each model built or placed. */
  onStage?: (stage: { name: string; index: number; total: number }) => void;
}

export interface BuiltModel {
  /** Model folder name. */
  model: string;
  /** Absolute path of the backend library placed in the model's version folder(s). */
  library: string;
  /**
   * 'step' when compiled from the model's src/, 'sim_llm' / 'llama_cpp' when that prebuilt backend
   * was copied (llama_cpp with llama.cpp's libraries beside it).
   */
  kind: 'step' | 'sim_llm' | 'llama_cpp';
  /** The CPU architecture it is built for (`x86_64`, `aarch64`). */
  arch: string;
  /** The newest glibc / libstdc++ symbol versions the library needs (what a server must offer). */
  requires: { glibc?: string; glibcxx?: string; cxxabi?: string };
}

export interface RepositoryBuild {
  built: BuiltModel[];
}

export async function buildRepository(repoDir: string, opts: BuildRepositoryOptions = {}): Promise<RepositoryBuild> {
  const repo = resolve(repoDir);
  if (!existsSync(repo) || !statSync(repo).isDirectory()) {
    throw new BuildError(`model repository ${repo} does not exist; generate it first (triton-studio generate)`);
  }
  const models = listModels(repo, opts.models);
  const root = opts.projectRoot ?? findProjectRoot();
  const usesLlama = models.some((m) => configuredBackend(join(repo, m)) === LLAMA_CPP_BACKEND);
  const llamaDir = opts.llamaDir ?? (root ? llamaCacheDir(root) : undefined);
  if (usesLlama && llamaDir) checkLlamaCppFetched(llamaDir, opts.arch ?? hostArchitecture());
  const total = 1 + models.length;
  opts.onStage?.({ name: 'the shared native backends', index: 0, total });
  const backends = await buildBackends(
    usesLlama && !opts.targets ? { ...opts, targets: [...DEFAULT_BACKEND_TARGETS, LLAMA_CPP_TARGET] } : opts,
  );
  const stepsRoot = resolve(opts.stepsBuildDir ?? join(dirname(backends.buildDir), 'steps'));
  const sourcesRoot = resolve(opts.sourcesDir ?? stepSourcesDir(repo));
  const built: BuiltModel[] = [];
  // A library built for another CPU: every undefined symbol resolved against that CPU's libraries.
  const cross = backends.arch.arch !== hostArchitecture().arch;
  const tritonLibrary = cross && root ? targetTritonLibrary(root, backends.arch) : undefined;
  const checkCrossBuilt = (model: string, libraries: string[]) => {
    if (cross) for (const library of libraries) checkTargetSymbols(model, library, backends.arch, tritonLibrary);
  };

  for (const [i, model] of models.entries()) {
    opts.onStage?.({ name: model, index: i + 1, total });
    const modelDir = join(repo, model);
    const backend = configuredBackend(modelDir);
    const src = join(sourcesRoot, model);
    if (existsSync(join(src, 'CMakeLists.txt'))) {
      const library = await buildStep(model, src, stepsRoot, backends, opts);
      // ldd runs the library's own dynamic loader: only for this machine's architecture (a
      // cross-built one is resolved from its ELF tables once placed, below).
      if (backends.arch.arch === hostArchitecture().arch) await checkSymbolsResolve(model, library);
      const requires = checkContainers(model, library, backends.arch);
      const produced = basename(library);
      if (backend !== undefined && produced !== `libtriton_${backend}.so`) {
        throw new BuildError(
          `${model}: config.pbtxt says backend "${backend}" but its sources (${src}) build ${produced}; ` +
            'regenerate the repository so the config and the step source agree',
        );
      }
      const placed = placeInVersionFolders(library, modelDir);
      checkCrossBuilt(model, [placed]);
      built.push({ model, library: placed, kind: 'step', arch: backends.arch.arch, requires });
    } else if (backend === 'sim_llm') {
      const library = simLlmLibrary(backends.buildDir);
      if (!existsSync(library)) {
        throw new BuildError(`${library} is missing after building the backends; rebuild with the triton_sim_llm target`);
      }
      const requires = checkContainers(model, library, backends.arch);
      const placed = placeInVersionFolders(library, modelDir);
      checkCrossBuilt(model, [placed]);
      built.push({
        model,
        library: placed,
        kind: 'sim_llm',
        arch: backends.arch.arch,
        requires,
      });
    } else if (backend === LLAMA_CPP_BACKEND && llamaDir) {
      built.push(placeLlamaCpp(model, modelDir, backends, llamaDir, checkCrossBuilt));
    }
  }
  return { built };
}

/** The llama.cpp step's library and llama.cpp's own from `llamaDir`, placed in the model's version folder(s). */
function placeLlamaCpp(
  model: string,
  modelDir: string,
  backends: BackendsBuild,
  llamaDir: string,
  checkCrossBuilt: (model: string, libraries: string[]) => void,
): BuiltModel {
  const library = llamaCppLibrary(backends.buildDir);
  if (!existsSync(library)) {
    throw new BuildError(`${library} is missing after building the backends; rebuild with the ${LLAMA_CPP_TARGET} target`);
  }
  const requires = checkContainers(model, library, backends.arch);
  const runtimes = llamaRuntimeLibraries(llamaDir, backends.arch).map((runtime) => placeInVersionFolders(runtime, modelDir));
  const placed = placeInVersionFolders(library, modelDir);
  checkCrossBuilt(model, [placed, ...runtimes]);
  return { model, library: placed, kind: 'llama_cpp', arch: backends.arch.arch, requires };
}

/** Model folders: sub-folders holding a config.pbtxt. */
function listModels(repo: string, only: string[] | undefined): string[] {
  const all = readdirSync(repo, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(repo, e.name, 'config.pbtxt')))
    .map((e) => e.name)
    .sort();
  if (!only) return all;
  const missing = only.filter((m) => !all.includes(m));
  if (missing.length) {
    throw new BuildError(`no model folder with a config.pbtxt named ${missing.join(', ')} in ${repo}`);
  }
  return only;
}

function configuredBackend(modelDir: string): string | undefined {
  const file = join(modelDir, 'config.pbtxt');
  const { config, diagnostics } = parsePbtxt(readFileSync(file, 'utf8'), file);
  if (!config) {
    const d = diagnostics[0];
    const where = d ? `:${d.range.start.line + 1}:${d.range.start.column + 1}` : '';
    throw new BuildError(`${file}${where}: ${d?.message ?? 'cannot be parsed'} Fix or regenerate the config.`);
  }
  return typeof config.backend === 'string' && config.backend !== '' ? config.backend : undefined;
}

async function buildStep(
  model: string,
  src: string,
  stepsRoot: string,
  backends: BackendsBuild,
  opts: BuildRepositoryOptions,
): Promise<string> {
  // One build tree per step source folder and architecture: readable name + hash of both.
  const id = createHash('sha256').update(`${src}\0${backends.arch.arch}`).digest('hex').slice(0, 12);
  const safeName = model.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 60);
  const workDir = join(stepsRoot, `${safeName}-${id}`);
  const sources = join(workDir, 'src');
  const buildDir = join(workDir, 'build');
  mkdirSync(workDir, { recursive: true });
  const run = { onOutput: opts.onOutput, signal: opts.signal };

  return withDirectoryLock(`${workDir}.lock`, 15 * 60_000, async () => {
    // Make cannot handle every character a model folder may hold ($, ;, spaces), so CMake gets a
    // copy of the sources under a safe path. Timestamps are kept: unchanged sources rebuild nothing.
    rmSync(sources, { recursive: true, force: true });
    cpSync(src, sources, { recursive: true, preserveTimestamps: true });
    await runOrThrow(
      'cmake',
      [
        '-S',
        sources,
        '-B',
        buildDir,
        `-DCMAKE_BUILD_TYPE=${opts.buildType ?? 'Release'}`,
        `-DTRITON_STUDIO_BACKENDS_DIR=${backends.sourceDir}`,
        `-DTRITON_STUDIO_BACKENDS_BUILD=${backends.buildDir}`,
        ...backends.cmakeArgs,
      ],
      `${model}: configuring the native step failed; regenerate ${src} if it was edited by hand`,
      run,
    );
    await runOrThrow(
      'cmake',
      ['--build', buildDir, '--parallel', String(opts.jobs ?? defaultJobs())],
      `${model}: compiling the native step failed; the compiler output below names the problem ` +
        '(a generated step.cc that was edited by hand can be regenerated)',
      run,
    );
    const libraries = readdirSync(buildDir).filter((f) => /^libtriton_.*\.so$/.test(f));
    if (libraries.length !== 1) {
      throw new BuildError(
        `${model}: expected one libtriton_<name>.so in ${buildDir}, found ${libraries.length ? libraries.join(', ') : 'none'}`,
      );
    }
    return join(buildDir, libraries[0] as string);
  });
}

/**
 * A backend library links even with symbols missing (Triton's own functions must stay undefined),
 * so an inconsistent prebuilt library would only show up as a load failure on the server. The
 * dynamic linker's check (`ldd -r`) finds them now: everything but TRITONSERVER_* / TRITONBACKEND_*
 * must resolve.
 */
async function checkSymbolsResolve(model: string, library: string): Promise<void> {
  let output: string;
  try {
    ({ output } = await runTool('ldd', ['-r', library]));
  } catch {
    return; // no ldd (not a glibc system): the server reports missing symbols at load instead
  }
  const missing = [...output.matchAll(/undefined symbol: (\S+)/g)]
    .map((m) => m[1] as string)
    .filter((symbol) => !/^TRITON(SERVER|BACKEND)_/.test(symbol));
  if (missing.length > 0) {
    throw new BuildError(
      `${model}: ${basename(library)} needs ${missing.length} symbol(s) that no library defines, so Triton could ` +
        `not load it: ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', …' : ''}. If step.cc was edited, ` +
        'regenerate it; otherwise the prebuilt backends are inconsistent: delete build/backends and build again',
    );
  }
}

/**
 * NVIDIA's Triton containers run an older glibc / libstdc++ than a newer build machine: a library
 * needing a symbol version the oldest supported container lacks would fail to load there
 * ("version `GLIBC_2.36' not found"). Refused now, naming the symbol (containers.ts).
 */
function checkContainers(model: string, library: string, arch: Architecture): BuiltModel['requires'] {
  const info = readElfDynamic(readFileSync(library));
  const floor = containerFloor(arch.arch);
  const problems = compatibilityProblems(info, floor);
  if (problems.length > 0) {
    const what = problems
      .map((p) => `${p.version} (${p.symbols.slice(0, 3).join(', ') || 'a needed library'}; they have ${p.offered})`)
      .join(', ');
    throw new BuildError(
      `${model}: ${basename(library)} needs ${what}, so it would not load in NVIDIA's Triton containers ` +
        `${floor.tags} (Ubuntu ${floor.ubuntu}). Build on a system no newer than Ubuntu ${floor.ubuntu} ` +
        '(glibc, libstdc++), or avoid the newer functions named; see docs/GPU.md',
    );
  }
  const floorNeeded = requiredFloor(info);
  return Object.fromEntries(Object.entries(floorNeeded).filter(([, v]) => v !== undefined));
}

/**
 * Copies `library` into every numeric version folder of the model (creating `1/` when there is
 * none). Written under a temporary name and renamed, so a server never sees half a library.
 */
function placeInVersionFolders(library: string, modelDir: string): string {
  let versions = readdirSync(modelDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && /^[0-9]+$/.test(e.name))
    .map((e) => e.name)
    .sort((a, b) => Number(a) - Number(b));
  if (versions.length === 0) versions = ['1'];
  let placed = '';
  for (const version of versions) {
    const dir = join(modelDir, version);
    mkdirSync(dir, { recursive: true });
    const target = join(dir, basename(library));
    const temporary = `${target}.tmp-${process.pid}`;
    try {
      copyFileSync(library, temporary);
      renameSync(temporary, target);
    } catch (err) {
      rmSync(temporary, { force: true });
      throw new BuildError(`cannot place ${basename(library)} into ${dir}: ${(err as Error).message}`);
    }
    placed ||= target;
  }
  return placed;
}
