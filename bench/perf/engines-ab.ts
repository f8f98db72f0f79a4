/**
 * perf's two engines A/B at one open-loop rate, interleaved (native, node, native, node) on one
 * server: what each serves, its latency and send lateness, and the Node process's own CPU (the
 * native engine's driver is a child process and not in that figure).
 *
 *   nice -n -5 node --import tsx bench/perf/engines-ab.ts [RATE=4000]
 *
 * Uses the `fast` gpt2-sim repository that bench/perf/vs-perf-analyzer.ts generates and builds
 * (.cache/bench/perf-vs-pa/fast/repo: sim-llm at 5 µs a prompt token + 20 µs a step, 16 tokens);
 * run that once first (`--only max` is enough).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { deployRepository } from '../../client/deploy/index.js';
import { TritonClient } from '../../client/grpc/client.js';
import { runLatencyTest } from '../../client/perf/latencyTest.js';
import { startLocalServer } from '../../client/server/localServer.js';

const repo = join(resolve(__dirname, '../..'), '.cache/bench/perf-vs-pa/fast/repo');

async function main(): Promise<void> {
  if (!existsSync(repo))
    throw new Error(`${repo} missing: run bench/perf/vs-perf-analyzer.ts --only max first`);
  const rate = Number(process.argv[2] ?? 4000);
  const server = await startLocalServer({ modelRepository: repo });
  const client = new TritonClient(server.grpcUrl);
  try {
    if (!(await deployRepository(client, { repository: repo, mode: 'local' })).ok)
      throw new Error('deploy failed');
    for (const engine of ['native', 'node', 'native', 'node'] as const) {
      const before = process.cpuUsage();
      const r = await runLatencyTest(client, {
        engine,
        model: 'gpt2_sim_fast',
        prompt: 'The quick brown fox jumps over the lazy dog',
        maxTokens: 16,
        load: { mode: 'request-rate', rate, distribution: 'constant', durationS: 3, warmupRequests: 200 },
      });
      const cpu = process.cpuUsage(before);
      console.log(
        `${engine}: served ${r.results.requestsPerSecond}/s of ${rate}, p50 ${r.results.latency.p50Ms} ms, ` +
          `p99 ${r.results.latency.p99Ms} ms, send lag p50 ${r.results.sendLag?.p50Ms} / p99 ${r.results.sendLag?.p99Ms} ms, ` +
          `Node CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms`,
      );
    }
  } finally {
    client.close();
    await server.stop();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
