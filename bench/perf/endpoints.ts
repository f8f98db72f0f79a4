/**
 * The same load over every `--endpoint`, on one server and one model, back to back: p50 request
 * latency, p50 TTFT (streamed), request throughput and the client's CPU per request, so the cost of
 * each protocol (and of the OpenAI front's extra hop) is seen side by side.
 *
 *   nice -n -5 node --import tsx bench/perf/endpoints.ts [--requests 400]
 *
 * Model: the gpt2-sim ensembles of the perf-endpoints test (tokenize → sim-llm → detokenize), sim-llm
 * at 50 µs prefill per token and 500 µs per generated token, 16 tokens, 2 instances, no batching;
 * `_stream` is decoupled (one response per token), `_plain` answers once (the unary endpoints need it).
 * The OpenAI front runs as its own process (`triton-studio openai-serve`), so it does not share the
 * measuring process's event loop. Client CPU = user + system time of this process over the run
 * (`process.cpuUsage`) / requests.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { deployRepository } from '../../client/deploy/index.js';
import { TritonClient } from '../../client/grpc/client.js';
import { runLatencyTest } from '../../client/perf/latencyTest.js';
import { startLocalServer } from '../../client/server/localServer.js';
import { createTransport, type Endpoint } from '../../client/transports/index.js';
import { timedSimLlmRepository } from '../../test/fixtures/perf/timedSimLlm.js';

const ROOT = resolve(__dirname, '../..');
const args = process.argv.slice(2);
const requestsArg = args.indexOf('--requests');
const REQUESTS = requestsArg >= 0 ? Number(args[requestsArg + 1]) : 400;
const MAX_TOKENS = 16;
const PROMPT = 'The quick brown fox jumps over the lazy dog';

async function main(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'ts-bench-endpoints-'));
  const fixture = await timedSimLlmRepository(scratch, 'bench', {
    prefillUsPerToken: 50,
    decodeUsPerStep: 500,
  });
  const server = await startLocalServer({ modelRepository: fixture.repo });
  const grpc = new TritonClient(server.grpcUrl);
  const front = spawn(
    process.execPath,
    [
      join(ROOT, 'bin/triton-studio.js'),
      'openai-serve',
      '--url',
      server.grpcUrl,
      '--tokenizer',
      'gpt2',
      '--port',
      '0',
      '--json',
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    const deployed = await deployRepository(grpc, { repository: fixture.repo, mode: 'local' });
    if (!deployed.ok) throw new Error(`deploy failed: ${JSON.stringify(deployed)}`);
    const frontUrl = await new Promise<string>((done, fail) => {
      let out = '';
      front.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('}')) done((JSON.parse(out) as { url: string }).url);
      });
      front.on('exit', (code) => fail(new Error(`openai-serve exited with ${code}`)));
    });
    const cases: { endpoint: Endpoint; stream: boolean; url: string; model: string }[] = [
      { endpoint: 'grpc-stream', stream: true, url: server.grpcUrl, model: fixture.stream },
      { endpoint: 'generate', stream: true, url: server.httpUrl, model: fixture.stream },
      { endpoint: 'completions', stream: true, url: frontUrl, model: fixture.stream },
      { endpoint: 'chat', stream: true, url: frontUrl, model: fixture.stream },
      { endpoint: 'grpc-stream', stream: false, url: server.grpcUrl, model: fixture.plain },
      { endpoint: 'grpc-infer', stream: false, url: server.grpcUrl, model: fixture.plain },
      { endpoint: 'http-infer', stream: false, url: server.httpUrl, model: fixture.plain },
      { endpoint: 'generate', stream: false, url: server.httpUrl, model: fixture.plain },
      { endpoint: 'completions', stream: false, url: frontUrl, model: fixture.plain },
    ];
    const rows: Record<string, unknown>[] = [];
    console.log(
      '| endpoint | stream | concurrency | p50 latency ms | p50 TTFT ms | requests/s | client CPU µs/request |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const concurrency of [1, 16]) {
      for (const c of cases) {
        const transport = createTransport(c.endpoint, c.url);
        const cpu = process.cpuUsage();
        const report = await runLatencyTest(transport, {
          model: c.model,
          prompt: PROMPT,
          maxTokens: MAX_TOKENS,
          stream: c.stream,
          load: { mode: 'concurrency', concurrency, requests: REQUESTS, warmupRequests: 2 * concurrency },
        }).finally(() => transport.close());
        const used = process.cpuUsage(cpu);
        const m = report.metrics;
        const row = {
          endpoint: c.endpoint,
          stream: c.stream,
          concurrency,
          p50: m.request_latency!.p50,
          ttft: m.time_to_first_token?.p50,
          throughput: m.request_throughput!.avg,
          cpuUs: Math.round((used.user + used.system) / (REQUESTS + 2 * concurrency)),
          errors: report.results.errors,
        };
        rows.push(row);
        console.log(
          `| ${row.endpoint} | ${row.stream ? 'yes' : 'no'} | ${concurrency} | ${row.p50} | ${row.ttft ?? '—'} | ${row.throughput} | ${row.cpuUs} |` +
            (row.errors ? ` ${row.errors} errors` : ''),
        );
      }
    }
    mkdirSync(join(ROOT, '.cache/bench'), { recursive: true });
    writeFileSync(join(ROOT, '.cache/bench/perf-endpoints.json'), `${JSON.stringify(rows, null, 2)}\n`);
  } finally {
    front.kill('SIGINT');
    grpc.close();
    await server.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
