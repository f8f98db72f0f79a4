/**
 * The latency test's metrics, defined once: each row names a metric, its unit, its formula in
 * words and the record fields it reads, and computes it (AIPerf's one class per metric, as one
 * table). Reports, the terminal view, the HTML charts, `perf compare` and the docs read this table
 * rather than restating any formula. Definitions follow perf_analyzer / GenAI-Perf / AIPerf (their
 * published metric definitions; docs/BENCHMARKS.md shows where the numbers agree).
 */
import { LatencyRecorder, round3, type DistributionStats } from './summary.js';

/** What one measured request gives the metrics (AIPerf's parsed response record). */
export interface RequestRecord {
  /** Request start, ms after the start of measurement. */
  startMs: number;
  /** Request start → final response (or failure), ms. */
  latencyMs: number;
  /** Open loop: how late the send was against its schedule, ms. */
  lagMs?: number;
  /** Why the request failed; absent when it succeeded. */
  error?: string;
  /** Arrival of each response that carried output, ms after the request start. */
  responseMs: number[];
  /** Output tokens carried by each of those responses (a chunk may carry several). */
  responseTokens: number[];
  /** Prompt tokens, when counted. */
  inputTokens?: number;
}

export type MetricUnit = 'ms' | 's' | 'tokens' | 'tokens/s' | 'requests' | 'requests/s';

/** Which runs a metric applies to. */
export interface MetricContext {
  /** Streamed responses (one per token or group of tokens). */
  stream: boolean;
  /** Open loop (request rate), where send lateness exists. */
  openLoop: boolean;
  /** Output tokens were counted (by a tokenizer, or one per streamed chunk). */
  outputTokens: boolean;
  /** Input tokens were counted. */
  inputTokens: boolean;
  /** Service-level objectives for goodput: metric tag → upper bound in the metric's unit. */
  slos?: Record<string, number>;
}

interface MetricBase {
  /** Stable identifier, GenAI-Perf / AIPerf's name where one exists. */
  tag: string;
  header: string;
  unit: MetricUnit;
  formula: string;
  /** Record fields (record metrics) or other metrics' tags (run metrics) it is computed from. */
  inputs: readonly string[];
  applies: (context: MetricContext) => boolean;
}

/** A value per successful request, reported as a distribution. */
export interface RecordMetric extends MetricBase {
  kind: 'record';
  /** Failed requests count too (what describes the client, not the answer). */
  includeFailed?: boolean;
  /** undefined: not defined for this request (e.g. ITL of a one-token answer). */
  value: (record: RequestRecord) => number | undefined;
}

/** One value for the whole run. */
export interface RunMetric extends MetricBase {
  kind: 'run';
  value: (run: RunInputs) => number;
}

export type Metric = RecordMetric | RunMetric;

export interface RunInputs {
  records: readonly RequestRecord[];
  /** Start of measurement → last response, s. */
  durationS: number;
  context: MetricContext;
}

const always = () => true;
const streaming = (c: MetricContext) => c.stream;
const counted = (c: MetricContext) => c.outputTokens;
const ok = (r: RequestRecord) => r.error === undefined;
const outputTokens = (r: RequestRecord) => r.responseTokens.reduce((a, b) => a + b, 0);
const ttft = (r: RequestRecord) => r.responseMs[0];
const itl = (r: RequestRecord) => {
  const tokens = outputTokens(r);
  const first = ttft(r);
  return tokens > 1 && first !== undefined ? (r.latencyMs - first) / (tokens - 1) : undefined;
};
const perSecond = (n: number, s: number) => (s > 0 ? n / s : 0);

/** Every metric, in report order. */
export const METRICS: readonly Metric[] = [
  {
    kind: 'record',
    tag: 'time_to_first_token',
    header: 'Time to first token',
    unit: 'ms',
    formula: 'first response carrying output − request start',
    inputs: ['responseMs'],
    applies: streaming,
    value: ttft,
  },
  {
    kind: 'record',
    tag: 'time_to_second_token',
    header: 'Time to second token',
    unit: 'ms',
    formula: 'second response carrying output − first one',
    inputs: ['responseMs'],
    applies: streaming,
    value: (r) => (r.responseMs.length > 1 ? r.responseMs[1]! - r.responseMs[0]! : undefined),
  },
  {
    kind: 'record',
    tag: 'inter_token_latency',
    header: 'Inter-token latency',
    unit: 'ms',
    formula: '(request latency − TTFT) / (output tokens − 1), requests with 2+ output tokens',
    inputs: ['latencyMs', 'responseMs', 'responseTokens'],
    applies: streaming,
    value: itl,
  },
  {
    kind: 'record',
    tag: 'request_latency',
    header: 'Request latency',
    unit: 'ms',
    formula: 'final response − request start',
    inputs: ['latencyMs'],
    applies: always,
    value: (r) => r.latencyMs,
  },
  {
    kind: 'record',
    tag: 'request_latency_per_output_token',
    header: 'Latency per output token',
    unit: 'ms',
    formula: "request latency / output tokens (Orca's normalized latency), requests with 1+ output tokens",
    inputs: ['latencyMs', 'responseTokens'],
    applies: counted,
    value: (r) => {
      const tokens = outputTokens(r);
      return tokens > 0 ? r.latencyMs / tokens : undefined;
    },
  },
  {
    kind: 'record',
    tag: 'output_token_throughput_per_user',
    header: 'Output token throughput per user',
    unit: 'tokens/s',
    formula: '1000 / inter-token latency (ms)',
    inputs: ['inter_token_latency'],
    applies: (c) => c.stream && c.outputTokens,
    value: (r) => {
      const gap = itl(r);
      return gap !== undefined && gap > 0 ? 1000 / gap : undefined;
    },
  },
  {
    kind: 'record',
    tag: 'output_sequence_length',
    header: 'Output sequence length',
    unit: 'tokens',
    formula: 'Σ output tokens of the responses (the prompt never counts)',
    inputs: ['responseTokens'],
    applies: counted,
    value: outputTokens,
  },
  {
    kind: 'record',
    tag: 'input_sequence_length',
    header: 'Input sequence length',
    unit: 'tokens',
    formula: "prompt tokens, counted by the pipeline's tokenizer",
    inputs: ['inputTokens'],
    applies: (c) => c.inputTokens,
    value: (r) => r.inputTokens,
  },
  {
    kind: 'record',
    tag: 'send_lag',
    header: 'Send lag',
    unit: 'ms',
    formula: 'actual send − scheduled send (open loop; large means the client fell behind)',
    inputs: ['lagMs'],
    applies: (c) => c.openLoop,
    includeFailed: true,
    value: (r) => r.lagMs,
  },
  {
    kind: 'run',
    tag: 'request_count',
    header: 'Request count',
    unit: 'requests',
    formula: 'successful measured requests',
    inputs: ['error'],
    applies: always,
    value: (run) => run.records.filter(ok).length,
  },
  {
    kind: 'run',
    tag: 'error_request_count',
    header: 'Error request count',
    unit: 'requests',
    formula: 'failed measured requests',
    inputs: ['error'],
    applies: always,
    value: (run) => run.records.length - run.records.filter(ok).length,
  },
  {
    kind: 'run',
    tag: 'benchmark_duration',
    header: 'Benchmark duration',
    unit: 's',
    formula: 'start of measurement → last response',
    inputs: ['startMs', 'latencyMs'],
    applies: always,
    value: (run) => run.durationS,
  },
  {
    kind: 'run',
    tag: 'request_throughput',
    header: 'Request throughput',
    unit: 'requests/s',
    formula: 'request count / benchmark duration',
    inputs: ['request_count', 'benchmark_duration'],
    applies: always,
    value: (run) => perSecond(run.records.filter(ok).length, run.durationS),
  },
  {
    kind: 'run',
    tag: 'output_token_throughput',
    header: 'Output token throughput',
    unit: 'tokens/s',
    formula: 'Σ output sequence length / benchmark duration',
    inputs: ['output_sequence_length', 'benchmark_duration'],
    applies: counted,
    value: (run) =>
      perSecond(
        run.records.filter(ok).reduce((n, r) => n + outputTokens(r), 0),
        run.durationS,
      ),
  },
  {
    kind: 'run',
    tag: 'goodput',
    header: 'Goodput',
    unit: 'requests/s',
    formula: 'successful requests meeting every SLO / benchmark duration',
    inputs: ['request_latency', 'time_to_first_token', 'inter_token_latency', 'benchmark_duration'],
    applies: (c) => c.slos !== undefined && Object.keys(c.slos).length > 0,
    value: (run) =>
      perSecond(run.records.filter((r) => ok(r) && meetsSlos(r, run.context)).length, run.durationS),
  },
];

/** Short names accepted for SLOs (`--goodput ttft:50,itl:5`). */
export const METRIC_ALIASES: Readonly<Record<string, string>> = {
  ttft: 'time_to_first_token',
  ttst: 'time_to_second_token',
  itl: 'inter_token_latency',
  latency: 'request_latency',
};

export function metric(tag: string): Metric {
  const found = METRICS.find((m) => m.tag === (METRIC_ALIASES[tag] ?? tag));
  if (!found) throw new Error(`unknown metric '${tag}' (known: ${METRICS.map((m) => m.tag).join(', ')})`);
  return found;
}

/** Parses `ttft:50,itl:5` into SLOs keyed by metric tag; only record metrics in ms can be SLOs. */
export function parseSlos(text: string): Record<string, number> {
  const slos: Record<string, number> = {};
  for (const part of text.split(/[,\s]+/).filter(Boolean)) {
    const [name, bound, extra] = part.split(':');
    const m = metric(name ?? '');
    const value = Number(bound);
    if (extra !== undefined || bound === undefined || !(value > 0)) {
      throw new Error(`SLO '${part}' must be METRIC:BOUND with a bound > 0, e.g. ttft:50`);
    }
    if (m.kind !== 'record' || m.unit !== 'ms') throw new Error(`'${m.tag}' is not a per-request time in ms`);
    slos[m.tag] = value;
  }
  return slos;
}

function meetsSlos(record: RequestRecord, context: MetricContext): boolean {
  return Object.entries(context.slos ?? {}).every(([tag, bound]) => {
    const m = metric(tag);
    const value = m.kind === 'record' ? m.value(record) : undefined;
    return value === undefined || value <= bound;
  });
}

/** The percentiles every distribution reports, in order (GenAI-Perf / AIPerf's export fields). */
export const PERCENTILE_FIELDS = ['p1', 'p5', 'p10', 'p25', 'p50', 'p75', 'p90', 'p95', 'p99'] as const;

/** A distribution (record metric) or one value (run metric), in GenAI-Perf / AIPerf's export shape. */
export interface MetricResult extends Partial<DistributionStats> {
  tag: string;
  header: string;
  unit: MetricUnit;
  avg: number;
}

export type MetricResults = Record<string, MetricResult>;

/** A record metric's result: every statistic present. */
export type DistributionResult = MetricResult & Required<Omit<MetricResult, 'tag' | 'header' | 'unit'>>;

export function isDistribution(result: MetricResult): result is DistributionResult {
  return result.count !== undefined;
}

/** Every metric that applies to the run, from its per-request records. */
export function computeMetrics(run: RunInputs): MetricResults {
  const results: MetricResults = {};
  const succeeded = run.records.filter(ok);
  for (const m of METRICS) {
    if (!m.applies(run.context)) continue;
    const head = { tag: m.tag, header: m.header, unit: m.unit };
    if (m.kind === 'run') {
      results[m.tag] = { ...head, avg: round3(m.value(run)) };
      continue;
    }
    const source = m.includeFailed ? run.records : succeeded;
    const recorder = new LatencyRecorder();
    for (const r of source) {
      const value = m.value(r);
      if (value !== undefined) recorder.record(value);
    }
    results[m.tag] = { ...head, ...recorder.stats() };
    recorder.destroy();
  }
  return results;
}
