/**
 * `perf` through the endpoints when something is wrong: each error says what to do (the set-up
 * and its latency model: perf-endpoints-fixture.ts).
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runLatencyTest } from '../../client/perf/latencyTest.js';
import { freePort, type LocalServer } from '../../client/server/localServer.js';
import { createTransport } from '../../client/transports/index.js';
import { cli, MAX_TOKENS, PROMPT, usePerfEndpoints } from './perf-endpoints-fixture.js';

const env = usePerfEndpoints();
let server: LocalServer;
let models: { stream: string; plain: string };
let scratch: string;
beforeAll(() => void ({ server, models, scratch } = env));

describe('endpoint errors say what to do', () => {
  it.each(['http-infer', 'grpc-infer'] as const)(
    '%s refuses a streaming model with a hint, and --stream on it is refused before sending',
    async (endpoint) => {
      const unary = createTransport(endpoint, endpoint === 'grpc-infer' ? server.grpcUrl : server.httpUrl);
      try {
        const session = await unary.prepare(models.stream, { stream: false });
        await expect(session.send({ text: PROMPT, maxTokens: 2 })).rejects.toThrow(
          /decoupled.*use --endpoint grpc-stream or generate/,
        );
        await expect(unary.prepare(models.stream, { stream: true })).rejects.toThrow(/leave out --stream/);
      } finally {
        unary.close();
      }
    },
  );

  it.each(['native', 'node'] as const)(
    'grpc-infer, %s engine: a failed request and a deadline shorter than the answer count as failures, the run goes on',
    async (engine) => {
      const transport = createTransport('grpc-infer', server.grpcUrl);
      const load = { mode: 'concurrency', concurrency: 1, requests: 4, warmupRequests: 0 } as const;
      try {
        const refused = await runLatencyTest(transport, {
          engine,
          model: models.plain,
          prompt: PROMPT,
          // Refused by the tokenize step (unsigned output length).
          inputs: [
            { text: PROMPT, maxTokens: 1 },
            { text: PROMPT, maxTokens: -3 },
          ],
          load,
        });
        expect(refused.results.errors).toBe(2);
        expect(refused.metrics.request_count!.avg).toBe(2);
        expect(refused.results.errorMessages[0]).toMatch(
          /^ModelInfer failed: in ensemble .*does not fit its unsigned data type/,
        );
        const late = await runLatencyTest(transport, {
          engine,
          model: models.plain,
          prompt: PROMPT,
          maxTokens: MAX_TOKENS,
          timeoutMs: 100,
          load,
        });
        expect(late.results.errors).toBe(4);
        expect(late.results.errorMessages[0]).toMatch(
          /did not answer ModelInfer within 100 ms: raise the timeout/,
        );
      } finally {
        transport.close();
      }
    },
    60_000,
  );

  it('generate_stream failing inside the stream: counted as failed requests with the server message', async () => {
    const transport = createTransport('generate', server.httpUrl);
    const report = await runLatencyTest(transport, {
      model: models.stream,
      prompt: PROMPT,
      // Refused by the tokenize step (unsigned output length) after the stream began.
      inputs: [{ text: PROMPT, maxTokens: -3 }],
      stream: true,
      load: { mode: 'concurrency', concurrency: 1, requests: 2, warmupRequests: 0 },
    }).finally(() => transport.close());
    expect(report.results.errors).toBe(2);
    expect(report.results.errorMessages[0]).toMatch(
      /^generate_stream failed \(HTTP 400\): in ensemble .*does not fit its unsigned data type/,
    );
    expect(report.results.stoppedEarly).toBeUndefined();
  }, 60_000);

  it('the CLI: connection refused over HTTP says where it looked, no stack trace', async () => {
    const port = await freePort();
    const run = await cli([
      'perf',
      '--endpoint',
      'generate',
      '--url',
      `127.0.0.1:${port}`,
      '--model',
      'm',
      '--requests',
      '1',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`cannot reach http://127.0.0.1:${port} (connection refused)`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);

  it('the CLI: perf --endpoint generate --stream with the tokenizer, synthetic prompts and pending counts', async () => {
    const profile = join(scratch, 'profile.json');
    const run = await cli([
      'perf',
      '--endpoint',
      'generate',
      '--url',
      server.httpUrl,
      '--model',
      models.stream,
      '--stream',
      '--max-tokens',
      '2',
      '--requests',
      '2',
      '--warmup',
      '0',
      '--tokenizer',
      'gpt2',
      '--synthetic-input-tokens-mean',
      '20',
      '--num-dataset-entries',
      '2',
      '--metrics-url',
      server.metricsUrl,
      '--profile-export',
      profile,
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as {
      endpoint: string;
      metrics: Record<string, { count?: number; avg: number }>;
      serverBreakdown: { model: string; pendingRequests?: { max: number } }[];
    };
    expect(report.endpoint).toBe('generate');
    expect(report.metrics.time_to_first_token?.count).toBe(2);
    expect(report.metrics.input_sequence_length?.avg).toBe(20);
    expect(report.metrics.output_sequence_length?.avg).toBe(2);
    expect(report.serverBreakdown.find((s) => s.model === 'sim_llm_stream')?.pendingRequests?.max).toBe(0);
    const exported = JSON.parse(readFileSync(profile, 'utf8')) as { input_config: Record<string, unknown> };
    expect(exported.input_config).toMatchObject({
      endpoint_type: 'generate',
      service_kind: 'triton',
      streaming: true,
    });
  }, 60_000);
});
