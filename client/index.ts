/**
 * Triton Studio's client: everything that talks to a running Triton server (local or remote).
 * The extension and the CLI import from here. No VS Code, no generator internals beyond types.
 */
export { packageRoot, fromPackageRoot } from './paths.js';
export {
  startLocalServer,
  locateTritonServer,
  freePort,
  portIsFree,
  LocalServerError,
  TRITONSERVER_ENV,
  type LocalServer,
  type LocalServerOptions,
  type TritonInstallation,
} from './server/localServer.js';
export {
  startSharedServer,
  stopSharedServer,
  sharedServerStatus,
  sharedServerLogs,
  sharedStateDir,
  STATE_DIR_ENV,
  type SharedServerState,
  type SharedServerStatus,
  type SharedServerStart,
  type SharedServerStartOptions,
  type SharedServerStop,
} from './server/sharedServer.js';
export {
  TritonClient,
  InferResult,
  bytesInput,
  numericInput,
  normalizeUrl,
  type TritonClientOptions,
  type InferInput,
  type InferOptions,
  type LoadOptions,
  type ModelFiles,
  type OutputTensor,
} from './grpc/client.js';
export { TritonError } from './grpc/errors.js';
export { readTlsFiles, TlsFileError, type TlsFiles, type TlsOptions } from './grpc/tls.js';
export { readLogTail } from './server/logTail.js';
export type * from './grpc/types.js';
export type { TensorDataType } from './grpc/tensors.js';
export {
  deployRepository,
  deployOutcomeText,
  type DeployMode,
  type DeployOptions,
  type DeployResult,
  type ModelDeployStatus,
} from './deploy/index.js';
export { serverStatus, type ServerStatus, type ModelStatus } from './serverStatus.js';
export {
  containerTagWarning,
  FIRST_FIXED_SERVER,
  serverVersionNotes,
  serverVersionWarning,
} from './serverVersion.js';
export { undeployEnsemble, type UndeployResult } from './deploy/undeploy.js';
export { probeModel, type ProbeResult } from './deploy/readinessProbe.js';
export { readRepository, RepositoryError, type RepositoryModelEntry } from './repository.js';
export {
  sendPrompt,
  promptInputs,
  type PromptOptions,
  type ChatPromptInputs,
  type PromptResult,
} from './prompt.js';
export {
  encoderKind,
  isClassifier,
  sendClassify,
  sendEmbed,
  sendRerank,
  type ClassifyResult,
  type EmbedResult,
  type EncoderKind,
  type RerankResult,
} from './encoderPrompt.js';
export {
  createTransport,
  ENDPOINTS,
  OPENAI_ENDPOINTS,
  UNARY_ENDPOINTS,
  GrpcTransport,
  TritonHttpTransport,
  OpenAiTransport,
  EndpointError,
  isUnavailable,
  type Endpoint,
  type PromptRequest,
  type PromptSession,
  type SessionOptions,
  type PromptTransport,
  type TransportOptions,
} from './transports/index.js';
export { NativeTokenizer } from './tokenizer/nativeTokenizer.js';
export {
  renderChat,
  renderChats,
  renderChatTool,
  ChatRenderError,
  type ChatRenderFailure,
  type ChatRenderRequest,
  type ChatTemplateSource,
} from './chat/renderChat.js';
export { ChatRenderer } from './chat/chatRenderer.js';
export { openNativeTokenizer, repositoryTokenizer, tokenizeTool } from './tokenizer/repositoryTokenizer.js';
export {
  OPENAI_DEFAULT_LIMITS,
  startOpenAiServer,
  type OpenAiServer,
  type OpenAiServerOptions,
} from './openai/server.js';
export { chatPrompt } from './openai/protocol.js';
export {
  previewChat,
  markSpecialTokens,
  specialTokens,
  type ChatPreview,
  type ChatPreviewRequest,
  type TextSegment,
} from './tokenizer/chatPreview.js';
export {
  runLatencyTest,
  PERF_ENGINES,
  type LatencyTestOptions,
  type PerfEngine,
  type PerfReport,
} from './perf/latencyTest.js';
export { formatPerfReport, formatSweepReport, writePerfReport } from './perf/report/textReport.js';
export {
  runSweep,
  type SweepOptions,
  type SweepProgress,
  type SweepReport,
  type SweepPoint,
  type ConfidenceInterval,
} from './perf/sweep.js';
export {
  StabilityMonitor,
  PERF_ANALYZER_WINDOWS,
  type WindowSpec,
  type MeasurementWindow,
  type StabilityResult,
} from './perf/metrics/windows.js';
export { readInputDataset, type RequestInput } from './perf/inputs/dataset.js';
export {
  syntheticInputs,
  withOutputLengths,
  drawLength,
  type SyntheticSpec,
  type LengthDistribution,
  type TokenCodec,
} from './perf/inputs/synthetic.js';
export { chunkTokens, type TokenCounter } from './perf/inputs/tokenCounts.js';
export { profileExport, profileCsv, sweepCsv, reportCsv, writeReportFile } from './perf/report/export.js';
export { renderHtmlReport, asSweep, REPORT_CSP, type HtmlReportOptions } from './perf/report/htmlReport.js';
export { chartJsSource, escapeHtml, jsonForHtml } from './perf/report/htmlPage.js';
export {
  REPORT_CHARTS,
  reportCharts,
  reportDocument,
  reportTitle,
  loadLabel,
  type ChartSpec,
  type ChartSeries,
  type LabelledReport,
  type ReportDocument,
  type RunDocument,
} from './perf/report/reportCharts.js';
export {
  compareReports,
  asComparable,
  formatComparison,
  type Comparison,
  type MetricDelta,
} from './perf/report/compare.js';
export { runLoad } from './perf/load/loadGenerator.js';
export {
  runBatchingStudy,
  studyModelConfig,
  studyFindings,
  SCHEDULING_MODES,
  DEFAULT_STUDY_MODEL,
  type SchedulingMode,
  type StudyModel,
  type BatchingStudyOptions,
  type BatchingStudyReport,
  type StudyProgress,
  type StudyStep,
  type StudyModeResult,
  type StudyFinding,
  type StudyTarget,
} from './study/batching.js';
export {
  llamaStudyTarget,
  llamaStudyConfig,
  LLAMA_STUDY_MODES,
  type LlamaStudyOptions,
} from './study/llamaTarget.js';
export { formatStudyReport, renderStudyHtml } from './study/batchingReport.js';
export type { ConcurrencyLoad, RequestRateLoad, LoadSpec } from './perf/load/loadSpec.js';
export {
  METRICS,
  METRIC_ALIASES,
  metric,
  parseSlos,
  computeMetrics,
  isDistribution,
  type Metric,
  type RecordMetric,
  type RunMetric,
  type MetricUnit,
  type MetricContext,
  type MetricResult,
  type MetricResults,
  type DistributionResult,
  type RequestRecord,
} from './perf/metrics/metricTable.js';
export { ARRIVAL_DISTRIBUTIONS, seededRandom, type ArrivalDistribution } from './perf/load/schedule.js';
export type { LatencySummary } from './perf/metrics/summary.js';
export { statisticsDelta, type ServerModelBreakdown } from './perf/metrics/serverStats.js';
export {
  runWorkflow,
  WORKFLOW_STAGES,
  type WorkflowOptions,
  type WorkflowResult,
  type WorkflowServer,
  type WorkflowStage,
  type WorkflowStageEvent,
} from './workflow.js';
