/**
 * What deploy's safety costs on the gpt2-sim sample: a first deploy loads every model twice (a
 * trial under candidate names, probed with a real request, then the served names, probed again);
 * deploying the same build again loads nothing and only probes. Prints the total, the replace
 * phase's loads alone (what a single-pass deploy costs) and the unchanged redeploy.
 *
 *   nice -n 10 node --import tsx bench/deploy/trial-cost.ts [deploys per mode, default 4]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { deployRepository } from '../../client/deploy/index.js';
import { TritonClient } from '../../client/grpc/client.js';
import { startLocalServer } from '../../client/server/localServer.js';
import { buildRepository } from '../../generator/build/index.js';
import { generateRepository } from '../../generator/index.js';

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 4);
  const work = mkdtempSync(join(tmpdir(), 'bench-deploy-'));
  const repo = join(work, 'repo');
  try {
    generateRepository({
      pipelinePath: resolve(__dirname, '../../samples/gpt2-sim/gpt2-sim.pipeline.json'),
      outDir: repo,
    });
    await buildRepository(repo);
    for (const mode of ['remote', 'local'] as const) {
      for (let i = 0; i < runs; i++) {
        // A fresh server each time: every model is new to it, so the deploy tries and replaces all.
        const server = await startLocalServer({
          modelRepository: mode === 'local' ? repo : mkdtempSync(join(work, 'empty-')),
        });
        const client = new TritonClient(server.grpcUrl);
        try {
          const start = performance.now();
          const result = await deployRepository(client, { repository: repo, mode });
          const total = performance.now() - start;
          const replace = result.models.reduce((n, m) => n + m.loadMs, 0);
          const again = performance.now();
          const unchanged = await deployRepository(client, { repository: repo, mode });
          const unchangedMs = performance.now() - again;
          console.log(
            `${mode} #${i + 1}: ${result.outcome}, total ${total.toFixed(0)} ms, replace-phase loads ${replace.toFixed(0)} ms, ` +
              `probes ${result.probes.map((p) => p.ms).join(' / ')} ms; same build again: ${unchanged.outcome} in ${unchangedMs.toFixed(0)} ms`,
          );
        } finally {
          client.close();
          await server.stop();
        }
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

void main();
