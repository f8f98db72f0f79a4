/**
 * `runLatencyTest`: one measured run against an ensemble — warm-up, then closed-loop concurrency or
 * open-loop request rate (load/), through the node engine or the native one (ts-perf-driver),
 * over any prompt transport — and its `PerfReport`: the metric table's results (metrics/), the
 * server's own statistics for the run, stability windows and, on request, every record.
 */
import { TritonClient } from '../grpc/client.js';
import type { ModelStatistics } from '../grpc/types.js';
import type { PromptResult } from '../prompt.js';
import { isUnavailable } from '../transports/errors.js';
import { GrpcTransport } from '../transports/grpc.js';
import type { Endpoint, PromptTransport } from '../transports/types.js';
import { cycle, type RequestInput } from './inputs/dataset.js';
import { PendingSampler, type PendingRequests } from './metrics/pendingRequests.js';
import { chunkTokens, promptCounter, reconcile, type TokenCounter } from './inputs/tokenCounts.js';
import {
  runLoad,
  type LoadHooks,
  type LoadRun,
  type LoadSpec,
  type RequestOutcome,
} from './load/loadGenerator.js';
import { nativeDriver, runNativeLoad } from './load/nativeEngine.js';
import { grpcNativeTarget, nativeCapable } from './load/nativeTarget.js';
import {
  computeMetrics,
  isDistribution,
  type MetricContext,
  type MetricResults,
  type RequestRecord,
} from './metrics/metricTable.js';
import { statisticsDelta, type ServerModelBreakdown } from './metrics/serverStats.js';
import { latencySummary, type LatencySummary, round3 } from './metrics/summary.js';
import { StabilityMonitor, type StabilityResult, type WindowSpec } from './metrics/windows.js';

export interface LatencyTestOptions {
  model: string;
  /** Prompt text sent with every request… */
  prompt: string;
  /** …unless a dataset is given: its prompts are sent in turn. */
  inputs?: RequestInput[];
  maxTokens?: number;
  /** Streamed requests also report time to first token. */
  stream?: boolean;
  load: LoadSpec;
  /** Per-request deadline; default none. */
  timeoutMs?: number;
  /** Goodput's service-level objectives: metric tag → bound in ms (see `parseSlos`). */
  slos?: Record<string, number>;
  /**
   * Measure in windows until the last few agree (perf_analyzer's stability rule) instead of a
   * fixed count or duration; the report covers the last `stableWindows` windows.
   */
  windows?: WindowSpec;
  /** Keep every request's record in the report (`records`). */
  keepRecords?: boolean;
  /** Each measured request as it completes (live progress). */
  onRecord?: (record: RequestRecord) => void;
  /**
   * Counts input and output tokens after the run (the pipeline's native tokenizer). Without it
   * only streamed chunks are counted, one token each, and input tokens only where the inputs carry them.
   */
  tokenizer?: TokenCounter;
  /**
   * Without a tokenizer: take token counts from the server's answer where it reports them (OpenAI's
   * `usage`; AIPerf's `--use-server-token-count`).
   */
  serverTokenCounts?: boolean;
  /**
   * What sends the requests: `native` (ts-perf-driver, C++ over nghttp2; the gRPC endpoints over plaintext),
   * `node` (Node's event loop; every endpoint), or `auto`: native where it applies, else node (the
   * CLI's default). Default node, so a caller without a native build (the editor) needs none.
   */
  engine?: PerfEngine | 'auto';
  /** The ts-perf-driver binary for the native engine; default: built on first use. */
  nativeDriver?: string;
  /** Triton's Prometheus metrics (`http://host:8002/metrics`): pending requests per model, sampled through the run. */
  metricsUrl?: string;
  signal?: AbortSignal;
}

/** The JSON a latency test exports (`triton-studio perf --export FILE`). */
export interface PerfReport {
  kind: 'triton-studio.perf';
  /** 2 added `metrics` and `records`; every version-1 field keeps its meaning. */
  formatVersion: 2;
  model: string;
  server: string;
  /** How requests were sent (`--endpoint`); reports before it was added used grpc-stream. */
  endpoint?: Endpoint;
  /** What sent them (`--engine`); reports before it was added used node. */
  engine?: PerfEngine;
  startedAt: string;
  load: LoadSpec;
  stream: boolean;
  maxTokens?: number;
  prompt: string;
  /** The tokenizer that counted input and output tokens; absent: streamed chunks were counted. */
  tokenizer?: string;
  results: {
    /** Measured requests (warm-up excluded), failed ones included. */
    requests: number;
    errors: number;
    /** Why the run ended before its planned amount: the server became unreachable, or it was cancelled. */
    stoppedEarly?: string;
    /** Up to five distinct error messages. */
    errorMessages: string[];
    durationS: number;
    /** Successful requests per second. */
    requestsPerSecond: number;
    /** End-to-end request latency of successful requests. */
    latency: LatencySummary;
    /** Time to first non-empty text_output (streamed requests only). */
    ttft?: LatencySummary;
    /**
     * Inter-token latency of streamed requests, (latency − TTFT) / (chunks − 1), where each
     * non-empty text_output chunk is one generated token (a decoupled step sends one per token).
     */
    itl?: LatencySummary;
    /** Streamed requests: non-empty text chunks (≈ output tokens) per second over the run. */
    outputChunksPerSecond?: number;
    /** Request-rate mode: how late sends were against the schedule (client overload if large). */
    sendLag?: LatencySummary;
    /** Mean responses per request (≈ tokens per request for streaming steps). */
    responsesPerRequest: number;
  };
  /** Every metric of the metric table that applies, in GenAI-Perf / AIPerf's export shape. */
  metrics: MetricResults;
  /** Measurement windows and whether the run became stable (when measured in windows). */
  stability?: StabilityResult;
  /** Per-request records, when asked for (`keepRecords`). */
  records?: RequestRecord[];
  /**
   * The server's own per-model breakdown (queue, compute, batch sizes) over the measured run, with
   * pending requests from Prometheus when a metrics URL was given.
   */
  serverBreakdown: ServerModelBreakdown[];
  /** Why the pending request counts are missing though a metrics URL was given. */
  metricsError?: string;
}

/**
 * First mode of the latency test: a fixed number of prompts in flight, for N requests or a
 * duration, warm-up excluded; end-to-end latency (and TTFT when streaming) into HDR histograms,
 * plus the server's statistics over the same window.
 */
export async function runLatencyTest(
  target: TritonClient | PromptTransport,
  options: LatencyTestOptions,
): Promise<PerfReport> {
  const transport = target instanceof TritonClient ? new GrpcTransport(target) : target;
  const engine = chooseEngine(transport, options.engine);
  const driveLoad = await loadDriver(transport, engine, options);
  const startedAt = new Date().toISOString();
  const statsBefore = await transport.statistics();
  const settled = (after: ModelStatistics[] | undefined, sent: number) =>
    settledStatistics(
      transport,
      options.model,
      after && requestCount(after, options.model) + sent,
      options.signal,
    );
  const sampler = options.metricsUrl === undefined ? undefined : new PendingSampler(options.metricsUrl);
  // Warm-up is inside runLoad; take the "before" snapshot after it to exclude it.
  let statsAfterWarmup: ModelStatistics[] | undefined;
  const monitor = options.windows && new StabilityMonitor(options.windows);
  const load: LoadSpec = monitor
    ? { ...options.load, requests: undefined, durationS: monitor.spec.windowS * monitor.spec.maxWindows }
    : options.load;
  // A server that went away (or never answered) ends the run at once: more sends would only fail.
  let stoppedBecause: string | undefined;
  let run: LoadRun<Sent>;
  try {
    run = await driveLoad.run(load, {
      signal: options.signal,
      afterWarmup: async () => {
        sampler?.start();
        statsAfterWarmup = await settled(statsBefore, options.load.warmupRequests);
        monitor?.start();
      },
      shouldStop: () => stoppedBecause !== undefined || (monitor?.shouldStop() ?? false),
      onOutcome: (outcome) => {
        if (outcome.error && isUnavailable(outcome.error)) stoppedBecause ??= outcome.error.message;
        if (!monitor && !options.onRecord) return;
        const record = promptRecord(outcome);
        monitor?.record(record);
        options.onRecord?.(record);
      },
    });
  } finally {
    driveLoad.close();
  }
  const pending = await sampler?.stop();
  const statsAfter = await settled(statsAfterWarmup ?? statsBefore, run.outcomes.length);

  const stream = options.stream ?? false;
  const counted = await countedRecords(run.outcomes, options.tokenizer, options.serverTokenCounts ?? false);
  const { records, durationS } = monitor
    ? lastWindows(counted, monitor)
    : { records: counted, durationS: run.durationS };
  const stability = monitor?.result();
  const metrics = computeMetrics({ records, durationS, context: metricContext(options, records) });
  return {
    kind: 'triton-studio.perf',
    formatVersion: 2,
    model: options.model,
    server: transport.url,
    endpoint: transport.endpoint,
    engine,
    startedAt,
    load,
    stream,
    maxTokens: options.maxTokens,
    prompt: options.prompt,
    tokenizer: options.tokenizer?.tokenizer,
    results: runResults(metrics, records, run.outcomes, durationS, stream, {
      stoppedEarly: stoppedBecause ?? (options.signal?.aborted ? 'cancelled' : undefined),
    }),
    metrics,
    stability,
    records: options.keepRecords ? records : undefined,
    serverBreakdown: withPending(breakdown(statsAfterWarmup ?? statsBefore, statsAfter), pending),
    metricsError: sampler?.failure,
  };
}

/** What the metrics of a run can be computed from: streaming, open loop, token counts, SLOs. */
function metricContext(options: LatencyTestOptions, records: RequestRecord[]): MetricContext {
  const stream = options.stream ?? false;
  return {
    stream,
    openLoop: options.load.mode === 'request-rate',
    outputTokens: stream || options.tokenizer !== undefined || (options.serverTokenCounts ?? false),
    inputTokens: records.some((r) => r.inputTokens !== undefined),
    slos: options.slos,
  };
}

/** Like perf_analyzer, the last windows only: the requests that completed inside them, and their span. */
function lastWindows(
  records: RequestRecord[],
  monitor: StabilityMonitor,
): { records: RequestRecord[]; durationS: number } {
  const span = monitor.reportedSpan();
  const inside = (r: RequestRecord) => {
    const endS = (r.startMs + r.latencyMs) / 1000;
    return endS >= span.startS && endS < span.endS;
  };
  return { records: records.filter(inside), durationS: span.endS - span.startS };
}

/** The report's `results`: counts, rates and the latency summaries of the run's metrics. */
function runResults(
  metrics: MetricResults,
  records: RequestRecord[],
  outcomes: RequestOutcome<Sent>[],
  durationS: number,
  stream: boolean,
  { stoppedEarly }: { stoppedEarly: string | undefined },
): PerfReport['results'] {
  const summary = (tag: string) => {
    const result = metrics[tag];
    return result && isDistribution(result) ? latencySummary(result) : undefined;
  };
  const errorMessages = [...new Set(records.flatMap((r) => (r.error ? [r.error] : [])))].slice(0, 5);
  const succeeded = outcomes.filter((o) => o.value && !o.error);
  const responses = succeeded.reduce((n, o) => n + o.value!.responses, 0);
  return {
    requests: records.length,
    errors: metrics.error_request_count!.avg,
    stoppedEarly,
    errorMessages,
    durationS: round3(durationS),
    requestsPerSecond: metrics.request_throughput!.avg,
    latency: summary('request_latency')!,
    ttft: summary('time_to_first_token'),
    itl: summary('inter_token_latency'),
    sendLag: summary('send_lag'),
    outputChunksPerSecond: stream ? metrics.output_token_throughput!.avg : undefined,
    responsesPerRequest: succeeded.length > 0 ? round3(responses / succeeded.length) : 0,
  };
}

/** A prompt's result and the input it was sent for. */
type Sent = PromptResult & { input: RequestInput };

/** What sends a latency test's requests (see LatencyTestOptions.engine). */
export type PerfEngine = 'native' | 'node';

export const PERF_ENGINES: readonly PerfEngine[] = ['native', 'node'];

/** The engine a test runs with: the one asked for (refused where it cannot drive the endpoint), or the best that can. */
export function chooseEngine(transport: PromptTransport, asked: PerfEngine | 'auto' | undefined): PerfEngine {
  const grpc = transport instanceof GrpcTransport;
  if (asked === undefined || asked === 'node') return 'node';
  if (asked === 'native') {
    if (!grpc) {
      throw new Error(
        `perf's native engine drives Triton's gRPC endpoints (grpc-stream, grpc-infer), not ${transport.endpoint}: use --engine node`,
      );
    }
    return 'native';
  }
  if (asked !== 'auto') {
    throw new Error(`engine must be one of ${PERF_ENGINES.join(', ')}, auto (got '${String(asked)}')`);
  }
  return grpc && nativeCapable(transport) ? 'native' : 'node';
}

interface LoadDriver {
  run(load: LoadSpec, hooks: LoadHooks<Sent>): Promise<LoadRun<Sent>>;
  close(): void;
}

/** Prepares the engine: the Node engine's prompt session, or the native driver's encoded requests. */
async function loadDriver(
  transport: PromptTransport,
  engine: PerfEngine,
  options: LatencyTestOptions,
): Promise<LoadDriver> {
  const inputs = options.inputs ?? [{ text: options.prompt }];
  const stream = options.stream ?? false;
  if (engine === 'native') {
    const target = await grpcNativeTarget(transport as GrpcTransport, {
      driver: options.nativeDriver ?? (await nativeDriver()),
      model: options.model,
      inputs,
      maxTokens: options.maxTokens,
      stream,
      timeoutMs: options.timeoutMs,
    });
    return { run: (load, hooks) => runNativeLoad(load, target, inputs, hooks), close: () => undefined };
  }
  const next = cycle(inputs);
  // No signal: cancelling ends the run by not sending more, never by cancelling streams in
  // flight (concurrent stream cancellations crash Triton 2.51, see TRITON.md).
  const sender = await transport.prepare(options.model, { stream, timeoutMs: options.timeoutMs });
  const send = async (): Promise<Sent> => {
    const input = next();
    const result = await sender.send({ text: input.text, maxTokens: input.maxTokens ?? options.maxTokens });
    return Object.assign(result, { input });
  };
  return { run: (load, hooks) => runLoad<Sent>(load, send, hooks), close: () => sender.close() };
}

/**
 * Records with tokens: counted by the tokenizer when there is one (input tokens as the inputs
 * carry them otherwise); without one, each streamed chunk is one token.
 */
async function countedRecords(
  outcomes: readonly RequestOutcome<Sent>[],
  tokenizer: TokenCounter | undefined,
  serverCounts: boolean,
): Promise<RequestRecord[]> {
  const countPrompt = tokenizer && promptCounter(tokenizer);
  return Promise.all(
    outcomes.map(async (outcome) => {
      const record = promptRecord(outcome);
      const sent = outcome.value;
      if (record.error !== undefined || !sent) return record;
      const inputTokens = sent.input.inputTokens ?? (await countPrompt?.(sent.input.text));
      if (inputTokens !== undefined) record.inputTokens = inputTokens;
      if (tokenizer) {
        record.responseTokens = await chunkTokens(tokenizer, sent.chunks);
      } else if (serverCounts && sent.usage) {
        const { promptTokens, completionTokens } = sent.usage;
        if (promptTokens !== undefined) record.inputTokens = promptTokens;
        // The server counts the whole answer: one token per chunk, the rest on the last.
        if (completionTokens !== undefined)
          record.responseTokens = reconcile(record.responseTokens, completionTokens);
      }
      return record;
    }),
  );
}

/** A prompt's outcome as the metrics see it: each non-empty text chunk one response carrying output. */
function promptRecord(outcome: RequestOutcome<PromptResult>): RequestRecord {
  const record: RequestRecord = {
    startMs: outcome.startMs,
    // The prompt's own clock starts at the send, after the inputs are built (as perf_analyzer's).
    latencyMs: outcome.value?.latencyMs ?? outcome.latencyMs,
    responseMs: outcome.value?.chunkMs ?? [],
    responseTokens: outcome.value?.chunks.map(() => 1) ?? [],
  };
  if (outcome.lagMs !== undefined) record.lagMs = outcome.lagMs;
  if (outcome.error || !outcome.value) record.error = outcome.error?.message ?? 'no result';
  return record;
}

/** Pending request counts joined to the statistics rows (models that saw traffic). */
function withPending(
  rows: ServerModelBreakdown[],
  pending: PendingRequests[] | undefined,
): ServerModelBreakdown[] {
  if (!pending) return rows;
  return rows.map((row) => {
    const p = pending.find((x) => x.model === row.model && x.version === row.version);
    return p ? { ...row, pendingRequests: { avg: p.avg, max: p.max } } : row;
  });
}

function breakdown(before?: ModelStatistics[], after?: ModelStatistics[]): ServerModelBreakdown[] {
  return before && after ? statisticsDelta(before, after) : [];
}

/**
 * Triton counts a request in a model's statistics only after sending its final response, so a
 * snapshot taken the moment the client has its last answer can miss it (an ensemble was seen
 * one request short, which moved that request into the next window). Polls until the model has
 * counted `expected` requests, for at most a second (requests the client gave up on may never
 * be counted).
 */
async function settledStatistics(
  transport: PromptTransport,
  model: string,
  expected: number | undefined,
  signal?: AbortSignal,
): Promise<ModelStatistics[] | undefined> {
  const deadline = Date.now() + 1000;
  for (;;) {
    const stats = await transport.statistics();
    if (!stats || expected === undefined || signal?.aborted) return stats;
    if (requestCount(stats, model) >= expected || Date.now() >= deadline) return stats;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Requests the server has counted for a model, successful or not, over all its versions. */
function requestCount(stats: ModelStatistics[], model: string): number {
  return stats
    .filter((s) => s.name === model)
    .reduce(
      (n, s) => n + (s.inference_stats?.success?.count ?? 0) + (s.inference_stats?.fail?.count ?? 0),
      0,
    );
}
