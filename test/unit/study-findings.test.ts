/**
 * The batching study's findings: which claims the measurements support, and saying when one does
 * not hold.
 */
import { describe, expect, it } from 'vitest';
import {
  studyFindings,
  type BatchingStudyReport,
  type SchedulingMode,
  type StudyModeResult,
} from '../../client/study/batching.js';

/** A mode that ran at the given rates with the given peak throughput, per-token latency and requests. */
function mode(
  name: SchedulingMode,
  rates: number[],
  peak: number,
  perTokenMs: number,
  requests: { requestedTokens: number; latencyMs: number }[],
): StudyModeResult {
  return {
    mode: name,
    model: `ts_study_${name}`,
    peakRequestsPerSecond: peak,
    peakOutputTokensPerSecond: peak * 100,
    steps: rates.map((rate) => ({
      rate,
      saturated: rate === rates.at(-1),
      metrics: {
        request_latency_per_output_token: { tag: 'x', header: 'x', unit: 'ms', avg: perTokenMs },
      },
      requests: requests.map((r) => ({ ...r, outputTokens: r.requestedTokens })),
    })),
  };
}

function report(modes: StudyModeResult[]): BatchingStudyReport {
  return {
    kind: 'triton-studio.batching-study',
    formatVersion: 1,
    server: 'x',
    startedAt: '',
    cancelled: false,
    workload: {
      seed: 1,
      startRate: 1,
      stepS: 8,
      minTokens: 1,
      maxTokens: 200,
      promptWords: 16,
      arrivals: 'poisson',
    },
    model: {
      prefillUsPerToken: 20,
      decodeUsPerStep: 2000,
      batchCostFactor: 0.05,
      maxBatch: 8,
      staticTimeoutUs: 500000,
      maxQueueDelayUs: 0,
    },
    modes,
    findings: [],
  };
}

describe('the batching study findings', () => {
  it('compare peak throughput over the ramp, and per-token and short-request latency at the highest rate all modes ran', () => {
    const findings = studyFindings(
      report([
        mode('dynamic', [1, 2, 4], 3, 9, [
          { requestedTokens: 5, latencyMs: 400 },
          { requestedTokens: 150, latencyMs: 500 },
        ]),
        mode('inflight', [1, 2, 4, 8], 7, 2, [
          { requestedTokens: 20, latencyMs: 30 },
          { requestedTokens: 21, latencyMs: 900 }, // not short: 1–20 is the lowest tenth of 1–200
        ]),
      ]),
    );
    expect(findings.map((f) => [f.holds, f.values])).toEqual([
      [true, { dynamic: 3, inflight: 7 }],
      [true, { dynamic: 9, inflight: 2 }],
      [true, { dynamic: 400, inflight: 30 }],
    ]);
    expect(findings[2]!.basis).toBe('mean latency of requests asking for 1–20 tokens at 4 requests/s');
  });

  it('says when a claim does not hold, and finds nothing without in-flight batching to compare', () => {
    const short = [{ requestedTokens: 3, latencyMs: 10 }];
    const [throughput] = studyFindings(
      report([mode('dynamic', [1, 2], 9, 1, short), mode('inflight', [1, 2], 8, 2, short)]),
    );
    expect(throughput!.holds).toBe(false);
    expect(studyFindings(report([mode('none', [1], 1, 1, short), mode('static', [1], 1, 1, short)]))).toEqual(
      [],
    );
  });
});
