/**
 * A custom step written in TypeScript becomes a complete Triton backend: the generated
 * libtriton_<step>.so loads in the real tritonserver, answers batches of rows exactly as the same
 * module answers in Node, batches requests dynamically, and a thrown Error fails only the request
 * that threw.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesInput, numericInput, TritonClient } from '../../client/grpc/client.js';
import { decodeBytesTensor, decodeNumericTensor } from '../../client/grpc/tensors.js';
import { startLocalServer, type LocalServer } from '../../client/server/localServer.js';
import { buildRepository } from '../../generator/build/index.js';
import { compileModule } from '../../generator/index.js';
import { renderCustomStep } from '../../generator/codegen/cpp/customStep.js';
import { writeCustomStep } from '../tscompile/customStepRepo.js';
import fc from 'fast-check';
import { loadInNode, numberArbitrary } from '../tscompile/harness.js';

const ROOT = resolve(__dirname, '../..');
const LABEL = join(ROOT, 'samples/distilbert-onnx/steps/label.ts');
const SHOUT = join(ROOT, 'test/fixtures/ts-steps/shout.ts');

let work: string;
let server: LocalServer;
let client: TritonClient;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'ts-custom-step-'));
  const repo = join(work, 'repo');
  // A queue delay long enough that concurrent requests share one Execute call.
  const batching = 'dynamic_batching { max_queue_delay_microseconds: 200000 }';
  writeCustomStep(repo, 'label', LABEL, { labels: 'NEGATIVE, POSITIVE' }, batching);
  writeCustomStep(repo, 'shout', SHOUT, {}, batching);
  await buildRepository(repo, { stepsBuildDir: join(work, 'steps') });
  server = await startLocalServer({ modelRepository: repo, loadModels: ['label', 'shout'] });
  client = new TritonClient(server.grpcUrl);
});

afterAll(async () => {
  client?.close();
  await server?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('a TypeScript custom step in tritonserver', () => {
  it('derives its ports from the module types', () => {
    const step = renderCustomStep(
      compileModule({ fileName: 'label.ts', text: readFileSync(LABEL, 'utf8') }),
      'label',
    );
    expect(step.inputs).toEqual([{ name: 'logits', dataType: 'FP32', dims: [2] }]);
    expect(step.outputs).toEqual([
      { name: 'label', dataType: 'STRING', dims: [1] },
      { name: 'score', dataType: 'FP32', dims: [1] },
    ]);
    expect(step.parameters).toEqual(['labels']);
  });

  it('the DistilBERT label step answers as the same TS does in Node', async () => {
    const logits = [
      [-1.25, 2.5],
      [3, 0.125],
      [0, 0],
      [-7, -7.5],
    ];
    const r = await client.infer('label', [numericInput('logits', 'FP32', [4, 2], logits.flat())]);
    const labels = decodeBytesTensor(r.output('label').raw).map((b) => b.toString('utf8'));
    const scores = decodeNumericTensor('FP32', r.output('score').raw);
    const node = loadInNode(LABEL).execute!(
      logits.map((l) => ({ logits: Float32Array.from(l) })),
      { labels: 'NEGATIVE, POSITIVE' },
    ) as Array<{ label: string; score: number }>;
    expect(labels).toEqual(node.map((x) => x.label));
    expect(scores).toEqual(node.map((x) => Math.fround(x.score)));
    expect(r.output('label').shape).toEqual([4, 1]);
  });

  it('the label step answers as Node on generated logits (NaN, ±Infinity, -0, huge and tiny values)', async () => {
    const runs = Number(process.env.TS_SERVER_RUNS ?? 40);
    const batches = fc.sample(
      fc.array(fc.tuple(numberArbitrary(), numberArbitrary()), { minLength: 1, maxLength: 8 }),
      {
        numRuns: runs,
        seed: Number(process.env.TS_DIFF_SEED ?? 20261123),
      },
    );
    const execute = loadInNode(LABEL).execute!;
    // Sent all at once: the step's 200 ms queue delay batches them (each request still its own).
    const mismatches: string[] = [];
    await Promise.all(
      batches.map(async (batch) => {
        const rows = batch.map((l) => Float32Array.from(l)); // what crosses the wire is FP32
        const r = await client
          .infer('label', [
            numericInput(
              'logits',
              'FP32',
              [rows.length, 2],
              rows.flatMap((x) => [...x]),
            ),
          ])
          .then(
            (x) => ({
              labels: decodeBytesTensor(x.output('label').raw).map((b) => b.toString('utf8')),
              scores: decodeNumericTensor('FP32', x.output('score').raw),
            }),
            (e: Error) => ({ error: e.message }),
          );
        let node: { labels: string[]; scores: number[] } | { error: string };
        try {
          const out = execute(
            rows.map((logits) => ({ logits })),
            { labels: 'NEGATIVE, POSITIVE' },
          ) as Array<{ label: string; score: number }>;
          node = { labels: out.map((x) => x.label), scores: out.map((x) => Math.fround(x.score)) };
        } catch (e) {
          node = { error: (e as Error).message };
        }
        const same =
          'error' in node
            ? 'error' in r && r.error.includes(node.error)
            : 'labels' in r &&
              JSON.stringify(r.labels) === JSON.stringify(node.labels) &&
              r.scores.every((x, i) => Object.is(x, (node as { scores: number[] }).scores[i]));
        if (!same) mismatches.push(JSON.stringify({ batch, node, served: r }));
      }),
    );
    expect(mismatches).toEqual([]);
  });

  it('batches concurrent requests, and a thrown Error fails only its own request', async () => {
    const send = (text: string, repeat: number) =>
      client.infer('shout', [
        bytesInput('text', [1, 1], [text]),
        numericInput('repeat', 'INT32', [1, 1], [repeat]),
      ]);
    const results = await Promise.allSettled([send('héllo σ', 2), send('boom', 1), send('ß😀', 1)]);
    expect(results[1]).toMatchObject({
      status: 'rejected',
      reason: { message: expect.stringContaining('cannot shout "boom"') },
    });
    const ok = results
      .filter((x) => x.status === 'fulfilled')
      .map((x) => (x as PromiseFulfilledResult<Awaited<ReturnType<typeof send>>>).value);
    expect(ok.map((r) => decodeBytesTensor(r.output('text').raw)[0]!.toString('utf8'))).toEqual([
      'HÉLLO ΣHÉLLO Σ',
      'SS😀',
    ]);
    expect(ok.map((r) => decodeNumericTensor('INT64', r.output('units').raw))).toEqual([[14], [4]]);
    expect(ok.map((r) => decodeNumericTensor('INT32', r.output('codes').raw))).toEqual([
      [72, 14],
      [83, 4],
    ]);
    const [stats] = await client.modelStatistics('shout');
    // Three requests, fewer executions: they shared a batch.
    expect(
      Number(stats!.inference_count ?? 0) + Number(stats!.inference_stats?.fail?.count ?? 0),
    ).toBeGreaterThanOrEqual(2);
    expect(Number(stats!.execution_count)).toBeLessThan(3);
  });
});
