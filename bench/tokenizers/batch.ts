/**
 * The tokenize step inside the real tritonserver at dynamic batch 1, 8 and 64 (issue 16, item 4):
 * the GPT-2 preprocessing step of samples/gpt2-sim with max_batch_size 64, loaded alone; waves of
 * 1, 8 and 64 concurrent requests (one corpus prompt each); per-request encode cost from Triton's
 * per-batch-size statistics (compute_infer ÷ executions ÷ batch size), next to the library's own
 * single-thread figure for the same prompts.
 * Run: node --import tsx bench/tokenizers/batch.ts [waves]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { TritonClient, bytesInput, numericInput, startLocalServer } from '../../client/index.js';
import { buildRepository, generateRepository, hasErrors } from '../../generator/index.js';
import { loadCorpus } from '../../scripts/build-corpus.js';
import { ensureNativeTool, repoRoot } from './native.js';

const waves = Number(process.argv[2] ?? 40);
const sizes = [1, 8, 64];

async function main(): Promise<void> {
  const scratch = mkdtempSync(path.join(tmpdir(), 'ts-tok-batch-'));
  const pipeline = JSON.parse(
    readFileSync(path.join(repoRoot, 'samples/gpt2-sim/gpt2-sim.pipeline.json'), 'utf8'),
  );
  pipeline.$schema = undefined;
  pipeline.maxBatchSize = 64;
  for (const step of pipeline.steps) step.maxBatchSize = 64;
  // A queue delay long enough that a wave of 64 requests becomes one execution.
  pipeline.steps[0].dynamicBatching = { maxQueueDelayMicroseconds: 20000 };
  const pipelineFile = path.join(repoRoot, 'samples/gpt2-sim/.batch.pipeline.json');
  writeFileSync(pipelineFile, JSON.stringify(pipeline));
  const repo = path.join(scratch, 'repo');
  try {
    const { diagnostics } = generateRepository({ pipelinePath: pipelineFile, outDir: repo });
    if (hasErrors(diagnostics)) throw new Error(JSON.stringify(diagnostics));
  } finally {
    rmSync(pipelineFile, { force: true });
  }
  await buildRepository(repo, { models: ['preprocessing'] });

  // Prose prompts of the parity corpus, 200–2,000 bytes: typical chat prompts.
  const prompts = loadCorpus()
    .flatMap((e) => ('text' in e && e.text.length >= 200 && e.text.length <= 2000 ? [e.text] : []))
    .slice(0, 64 * waves);
  const bytes = prompts.reduce((n, p) => n + Buffer.byteLength(p), 0) / prompts.length;

  const server = await startLocalServer({ modelRepository: repo });
  const client = new TritonClient(server.grpcUrl);
  try {
    await client.loadModel('preprocessing');
    const send = (text: string) =>
      client.infer('preprocessing', [
        bytesInput('QUERY', [1, 1], [text]),
        numericInput('REQUEST_OUTPUT_LEN', 'INT32', [1, 1], [8]),
      ]);
    for (const size of sizes) {
      for (let w = 0; w < waves; ++w) {
        const wave = prompts.slice(
          (w * size) % (prompts.length - size),
          ((w * size) % (prompts.length - size)) + size,
        );
        await Promise.all(wave.map(send));
      }
    }
    const [stats] = await client.modelStatistics('preprocessing');
    console.log(`prompts: ${prompts.length}, mean ${bytes.toFixed(0)} bytes; ${waves} waves of each size`);
    console.log(
      '| batch size | executions | compute_infer per request (µs) | compute_infer per execution (µs) |',
    );
    console.log('|---:|---:|---:|---:|');
    for (const b of [...stats!.batch_stats].sort((x, y) => x.batch_size - y.batch_size)) {
      const n = b.compute_infer.count;
      const perExec = b.compute_infer.ns / n / 1e3;
      console.log(
        `| ${b.batch_size} | ${n} | ${(perExec / b.batch_size).toFixed(1)} | ${perExec.toFixed(1)} |`,
      );
    }
  } finally {
    client.close();
    await server.stop();
  }

  // The library alone, one thread, on the same prompts.
  const corpus = path.join(scratch, 'prompts.jsonl');
  writeFileSync(corpus, prompts.map((text) => JSON.stringify({ text })).join('\n'));
  const lib = JSON.parse(
    execFileSync(await ensureNativeTool('ts-tokenize-bench'), [
      '--tokenizer',
      path.join(repoRoot, '.cache/tokenizers/gpt2/tokenizer.json'),
      '--corpus',
      corpus,
      '--seconds',
      '2',
    ]).toString(),
  ) as { strings: number; bytes: number; encode_mb_s: number };
  console.log(
    `library alone: ${((lib.bytes / lib.strings / (lib.encode_mb_s * 1e6)) * 1e6).toFixed(1)} µs per prompt`,
  );
  rmSync(scratch, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
