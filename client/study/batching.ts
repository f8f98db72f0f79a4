/**
 * The batching study (issue 10, item 8; the effective-batching experiment, after Orca): one mixed
 * workload — Poisson arrivals from about 1 request/s doubling until the model saturates, requested
 * tokens drawn uniformly from 1–200, all seeded — sent to sim-llm under each scheduling mode
 * (none, static, dynamic, inflight; backends/sim-llm/batch_scheduler.h) on one server, measured
 * with perf's load generator and metric table. The report says whether in-flight batching came
 * out best on throughput and latency per output token and fairest to short requests. The same
 * workload runs against a real model too: the llama.cpp step's modes (none, dynamic, inflight;
 * `llamaStudyTarget` in llamaTarget.ts).
 */
import { readFileSync } from 'node:fs';
import { buildBackends, simLlmLibrary } from '../../generator/build/index.js';
import type { TritonClient } from '../grpc/client.js';
import type { ModelConfig } from '../grpc/types.js';
import { runLoad } from '../perf/load/loadGenerator.js';
import type { RequestOutcome } from '../perf/load/loadSpec.js';
import { computeMetrics, type MetricResults, type RequestRecord } from '../perf/metrics/metricTable.js';
import { seededRandom } from '../perf/load/schedule.js';
import { round3 } from '../perf/metrics/summary.js';
import { sendPrompt } from '../prompt.js';

export const SCHEDULING_MODES = ['none', 'static', 'dynamic', 'inflight'] as const;
export type SchedulingMode = (typeof SCHEDULING_MODES)[number];

/** sim-llm's cost model and batch limits for the study's models (docs/decisions/contracts.md, sim-llm). */
export interface StudyModel {
  prefillUsPerToken: number;
  decodeUsPerStep: number;
  batchCostFactor: number;
  maxBatch: number;
  /** static: a batch not full by then starts anyway. */
  staticTimeoutUs: number;
  /** dynamic: how long a batch waits for more requests (Triton's max_queue_delay_microseconds). */
  maxQueueDelayUs: number;
}

export const DEFAULT_STUDY_MODEL: StudyModel = {
  prefillUsPerToken: 20,
  decodeUsPerStep: 2000,
  batchCostFactor: 0.05,
  maxBatch: 8,
  staticTimeoutUs: 500_000,
  maxQueueDelayUs: 0,
};

export interface BatchingStudyOptions {
  modes?: readonly SchedulingMode[];
  /** First offered rate, requests/s (default 1); each step doubles it. */
  startRate?: number;
  /** At most this many rate steps per mode (default 8). */
  maxSteps?: number;
  /** Seconds of arrivals per step (default 8; at least 8 requests). */
  stepS?: number;
  /** Requested tokens are drawn uniformly from this range (default 1–200). */
  minTokens?: number;
  maxTokens?: number;
  /** Words per prompt (sim-llm's text interface counts a word as a token; default 16). */
  promptWords?: number;
  seed?: number;
  model?: Partial<StudyModel>;
  /** libtriton_sim_llm.so to upload; default built from this checkout's backends/. */
  library?: string;
  /** What runs the workload; default sim-llm with `model` and `library`. */
  target?: StudyTarget;
  timeoutMs?: number;
  signal?: AbortSignal;
  onProgress?: (progress: StudyProgress) => void;
}

export interface StudyProgress {
  mode: SchedulingMode;
  rate: number;
  /** Requests of this step completed, and planned. */
  completed: number;
  total: number;
  errors: number;
  /** The step just ended (its result). */
  step?: StudyStep;
}

/** One offered rate against one mode. */
export interface StudyStep {
  rate: number;
  /** perf's metrics over the step (latency, latency per output token, throughputs). */
  metrics: MetricResults;
  /** Served below 80% of the offered rate: the mode's saturation; its ramp ends here. */
  saturated: boolean;
  /** Each request: the tokens it asked for and got, and its latency (failed ones left out). */
  requests: { requestedTokens: number; outputTokens: number; latencyMs: number }[];
}

export interface StudyModeResult {
  mode: SchedulingMode;
  model: string;
  steps: StudyStep[];
  /** The highest request throughput any step reached. */
  peakRequestsPerSecond: number;
  peakOutputTokensPerSecond: number;
}

export interface StudyFinding {
  claim: string;
  holds: boolean;
  /** The numbers behind it, per mode. */
  values: Partial<Record<SchedulingMode, number>>;
  unit: string;
  /** What was compared, and where. */
  basis: string;
}

/** One request's result: the tokens it asked for and got, and its latency. */
export type StudyAnswer = { requestedTokens: number; outputTokens: number; latencyMs: number };

/** What the study loads once per mode and sends each request to. */
export interface StudyTarget {
  engine: 'sim-llm' | 'llama-cpp';
  /** The modes it can run, in the study's order. */
  modes: readonly SchedulingMode[];
  /** What the report says about it (the model, its settings). */
  description: Record<string, string | number>;
  /** Loads (or reloads) model `name` scheduling in `mode`. */
  load(client: TritonClient, name: string, mode: SchedulingMode): Promise<void>;
  /** Sends one request asking for `requestedTokens` and resolves when its answer is complete. */
  send(client: TritonClient, name: string, requestedTokens: number, timeoutMs?: number): Promise<StudyAnswer>;
}

export interface BatchingStudyReport {
  kind: 'triton-studio.batching-study';
  formatVersion: 1;
  server: string;
  startedAt: string;
  cancelled: boolean;
  workload: {
    seed: number;
    startRate: number;
    stepS: number;
    minTokens: number;
    maxTokens: number;
    promptWords: number;
    arrivals: 'poisson';
  };
  /** sim-llm's cost model (the sim-llm target). */
  model: StudyModel;
  /** What ran the workload (reports before it was recorded: sim-llm). */
  target?: { engine: StudyTarget['engine'] } & Record<string, string | number>;
  modes: StudyModeResult[];
  /** The original study's three claims, checked on this run. */
  findings: StudyFinding[];
}

/** Requests at most this share of the token range count as short (fairness). */
const SHORT_SHARE = 0.1;

export async function runBatchingStudy(
  client: TritonClient,
  options: BatchingStudyOptions = {},
): Promise<BatchingStudyReport> {
  const model = { ...DEFAULT_STUDY_MODEL, ...options.model };
  const target =
    options.target ??
    simLlmStudyTarget(
      model,
      readFileSync(options.library ?? simLlmLibrary((await buildBackends()).buildDir)),
      options.promptWords ?? 16,
    );
  const modes = options.modes ?? target.modes;
  for (const mode of modes) {
    if (!target.modes.includes(mode))
      throw new Error(
        `scheduling mode '${mode}' is not one of ${target.engine}'s: ${target.modes.join(', ')}`,
      );
  }
  const workload = studyWorkload(options);
  const maxSteps = options.maxSteps ?? 8;
  if (!Number.isInteger(maxSteps) || maxSteps < 1)
    throw new Error(`steps must be a whole number ≥ 1 (got ${maxSteps})`);
  const report: BatchingStudyReport = {
    kind: 'triton-studio.batching-study',
    formatVersion: 1,
    server: client.url,
    startedAt: new Date().toISOString(),
    cancelled: false,
    workload,
    model,
    target: { engine: target.engine, ...target.description },
    modes: [],
    findings: [],
  };
  for (const mode of modes) {
    if (options.signal?.aborted) break;
    const name = `ts_study_${mode}`;
    await target.load(client, name, mode);
    try {
      const result: StudyModeResult = {
        mode,
        model: name,
        steps: [],
        peakRequestsPerSecond: 0,
        peakOutputTokensPerSecond: 0,
      };
      report.modes.push(result);
      await rampMode(result, (tokens) => target.send(client, name, tokens, options.timeoutMs), {
        ...options,
        workload,
        maxSteps,
      });
    } finally {
      await client.unloadModel(name).catch(() => undefined);
    }
  }
  report.cancelled = options.signal?.aborted ?? false;
  report.findings = studyFindings(report);
  return report;
}

function studyWorkload(options: BatchingStudyOptions): BatchingStudyReport['workload'] {
  const workload = {
    seed: options.seed ?? 1,
    startRate: options.startRate ?? 1,
    stepS: options.stepS ?? 8,
    minTokens: options.minTokens ?? 1,
    maxTokens: options.maxTokens ?? 200,
    promptWords: options.promptWords ?? 16,
    arrivals: 'poisson' as const,
  };
  if (!(workload.startRate > 0))
    throw new Error(`start rate must be more than 0 (got ${workload.startRate})`);
  if (!(workload.stepS > 0)) throw new Error(`step length must be more than 0 s (got ${workload.stepS})`);
  if (
    !Number.isInteger(workload.minTokens) ||
    !Number.isInteger(workload.maxTokens) ||
    workload.minTokens < 1 ||
    workload.maxTokens < workload.minTokens
  ) {
    throw new Error(
      `requested tokens must be whole numbers with 1 ≤ min ≤ max (got ${workload.minTokens}–${workload.maxTokens})`,
    );
  }
  return workload;
}

/** One mode's ramp: the offered rate doubles each step until the mode saturates (or maxSteps). */
async function rampMode(
  result: StudyModeResult,
  send: (requestedTokens: number) => Promise<StudyAnswer>,
  options: BatchingStudyOptions & { workload: BatchingStudyReport['workload']; maxSteps: number },
): Promise<void> {
  const { workload, mode } = { ...options, mode: result.mode };
  for (let step = 0, rate = workload.startRate; step < options.maxSteps; step++, rate *= 2) {
    if (options.signal?.aborted) break;
    const total = Math.max(8, Math.round(rate * workload.stepS));
    // The same seeds for every mode: each sees the same arrivals and the same requests (the
    // tokens from a stream of their own, so they do not follow the gaps).
    const draw = seededRandom((workload.seed + step) ^ 0x5eed);
    const span = workload.maxTokens - workload.minTokens + 1;
    let completed = 0;
    let errors = 0;
    options.onProgress?.({ mode, rate, completed, total, errors });
    const run = await runLoad(
      {
        mode: 'request-rate',
        rate,
        distribution: 'poisson',
        seed: workload.seed + step,
        requests: total,
        warmupRequests: 0,
      },
      () => send(workload.minTokens + Math.floor(draw() * span)),
      {
        signal: options.signal,
        onOutcome: (outcome) => {
          completed++;
          if (outcome.error) errors++;
          options.onProgress?.({ mode, rate, completed, total, errors });
        },
      },
    );
    const stepResult = summarizeStep(rate, run.outcomes, run.durationS);
    result.steps.push(stepResult);
    result.peakRequestsPerSecond = Math.max(
      result.peakRequestsPerSecond,
      stepResult.metrics.request_throughput!.avg,
    );
    result.peakOutputTokensPerSecond = Math.max(
      result.peakOutputTokensPerSecond,
      stepResult.metrics.output_token_throughput!.avg,
    );
    options.onProgress?.({ mode, rate, completed, total, errors, step: stepResult });
    if (stepResult.saturated) break;
  }
}

/** sim-llm under `model`'s cost model: every mode, a prompt of `promptWords` words over the text interface. */
export function simLlmStudyTarget(model: StudyModel, library: Buffer, promptWords: number): StudyTarget {
  const prompt = Array.from({ length: promptWords }, (_, i) => `w${i}`).join(' ');
  const configs = new Map<string, ModelConfig>();
  return {
    engine: 'sim-llm',
    modes: SCHEDULING_MODES,
    description: {},
    async load(client, name, mode) {
      await client.loadModel(name, {
        config: studyModelConfig(name, mode, model),
        files: { '1/libtriton_sim_llm.so': library },
      });
      configs.set(name, await client.modelConfig(name));
    },
    async send(client, name, requestedTokens, timeoutMs) {
      const answer = await sendPrompt(client, {
        model: name,
        text: prompt,
        maxTokens: requestedTokens,
        config: configs.get(name),
        timeoutMs,
      });
      // The answer is the prompt, then one word per generated token.
      const outputTokens = wordCount(answer.text) - promptWords;
      return { requestedTokens, outputTokens, latencyMs: answer.latencyMs };
    },
  };
}

/** sim-llm's text interface (vLLM's) with `max_tokens`, decoupled, one scheduler per model. */
export function studyModelConfig(name: string, mode: SchedulingMode, model: StudyModel): object {
  const parameter = (value: number | string) => ({ string_value: String(value) });
  return {
    name,
    backend: 'sim_llm',
    max_batch_size: 0,
    input: [
      { name: 'text_input', data_type: 'TYPE_STRING', dims: [1] },
      { name: 'max_tokens', data_type: 'TYPE_INT32', dims: [1] },
    ],
    output: [{ name: 'text_output', data_type: 'TYPE_STRING', dims: [-1] }],
    model_transaction_policy: { decoupled: true },
    instance_group: [{ count: 1, kind: 'KIND_CPU' }],
    parameters: {
      scheduling: parameter(mode),
      prefill_us_per_token: parameter(model.prefillUsPerToken),
      decode_us_per_step: parameter(model.decodeUsPerStep),
      batch_cost_factor: parameter(model.batchCostFactor),
      max_batch: parameter(model.maxBatch),
      static_timeout_us: parameter(model.staticTimeoutUs),
      max_queue_delay_us: parameter(model.maxQueueDelayUs),
    },
  };
}

function summarizeStep(rate: number, outcomes: RequestOutcome<StudyAnswer>[], durationS: number): StudyStep {
  // One response carrying every output token: perf's records of a non-streamed request.
  const records: RequestRecord[] = outcomes.map((o) => ({
    startMs: o.startMs,
    latencyMs: o.value?.latencyMs ?? o.latencyMs,
    responseMs: o.value ? [o.value.latencyMs] : [],
    responseTokens: o.value ? [o.value.outputTokens] : [],
    ...(o.lagMs !== undefined ? { lagMs: o.lagMs } : {}),
    ...(o.error || !o.value ? { error: o.error?.message ?? 'no result' } : {}),
  }));
  const metrics = computeMetrics({
    records,
    durationS,
    context: { stream: false, openLoop: true, outputTokens: true, inputTokens: false },
  });
  const requests = outcomes.flatMap((o) => (o.value && !o.error ? [o.value] : []));
  return { rate, metrics, saturated: metrics.request_throughput!.avg < 0.8 * rate, requests };
}

function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/**
 * The original study's claims on this run. Throughput: the peak request throughput of each mode.
 * Latency per output token and short requests: at the highest rate every mode was measured at
 * (the step where the first mode saturated), mean latency per output token over all requests,
 * and mean latency of the requests asking for the fewest tokens (the lowest tenth of the range).
 */
export function studyFindings(report: BatchingStudyReport): StudyFinding[] {
  const modes = report.modes.filter((m) => m.steps.length > 0);
  if (!modes.some((m) => m.mode === 'inflight') || modes.length < 2) return [];
  const commonRate = Math.min(...modes.map((m) => m.steps.at(-1)!.rate));
  const at = (m: StudyModeResult) => m.steps.find((s) => s.rate === commonRate)!;
  const { minTokens, maxTokens } = report.workload;
  const shortLimit = minTokens + Math.max(0, Math.floor((maxTokens - minTokens + 1) * SHORT_SHARE) - 1);
  const finding = (
    claim: string,
    unit: string,
    basis: string,
    value: (m: StudyModeResult) => number | undefined,
    best: 'max' | 'min',
  ): StudyFinding => {
    const values: Partial<Record<SchedulingMode, number>> = {};
    for (const m of modes) {
      const v = value(m);
      if (v !== undefined) values[m.mode] = round3(v);
    }
    const inflight = values.inflight;
    const others = Object.entries(values).filter(([mode]) => mode !== 'inflight');
    const holds =
      inflight !== undefined && others.every(([, v]) => (best === 'max' ? inflight > v! : inflight < v!));
    return { claim, holds, values, unit, basis };
  };
  return [
    finding(
      'in-flight batching serves the most requests per second',
      'requests/s',
      'peak request throughput over the ramp',
      (m) => m.peakRequestsPerSecond,
      'max',
    ),
    finding(
      'in-flight batching has the lowest latency per output token',
      'ms/token',
      `mean latency per output token at ${commonRate} requests/s`,
      (m) => at(m).metrics.request_latency_per_output_token?.avg,
      'min',
    ),
    finding(
      'in-flight batching is fairest to short requests',
      'ms',
      `mean latency of requests asking for ${minTokens}–${shortLimit} tokens at ${commonRate} requests/s`,
      (m) =>
        mean(
          at(m)
            .requests.filter((r) => r.requestedTokens <= shortLimit)
            .map((r) => r.latencyMs),
        ),
      'min',
    ),
  ];
}

function mean(xs: number[]): number | undefined {
  return xs.length > 0 ? xs.reduce((a, b) => a + b, 0) / xs.length : undefined;
}
