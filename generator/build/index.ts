/** Compiling native steps and placing backend libraries into a model repository (CMake, no Python). */
export {
  buildBackends,
  simLlmLibrary,
  DEFAULT_BACKEND_TARGETS,
  type BuildBackendsOptions,
  type BackendsBuild,
} from './backends.js';
export { buildRepository, type BuildRepositoryOptions, type BuiltModel, type RepositoryBuild } from './repository.js';
export {
  checkLlamaCppFetched,
  llamaBinsDir,
  llamaCacheDir,
  llamaCppLibrary,
  llamaRuntimeLibraries,
  smolLm2Gguf,
  LLAMA_CPP_BACKEND,
  LLAMA_CPP_TARGET,
} from './llamaCpp.js';
export { BuildError } from './run.js';
export {
  ARCHITECTURES,
  ArchitectureError,
  architecture,
  architectureOfMachine,
  emulationPrefix,
  hostArchitecture,
  libraryArchitecture,
  resolveTargetArch,
  TARGET_ARCH_SOURCES,
  type Architecture,
  type TargetArch,
  type TargetArchSource,
} from './architectures.js';
