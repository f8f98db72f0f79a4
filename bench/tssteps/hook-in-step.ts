/**
 * What the compiled Llama-2 chat-template hook adds inside the real tokenize step, in
 * tritonserver: two generated tokenize steps on one server, `plain` (no hooks) and `chat` (the
 * sample's llama2-chat.ts, with its system_prompt input). `chat` gets the raw prompt and system
 * prompt; `plain` gets the text the template makes of them, so both encode the same text and the
 * difference in Triton's compute_infer per request is the hook: reading its input, the UTF-8 ↔
 * UTF-16 conversions and the template. Requests alternate between the two, one at a time.
 * Goal (issue 9): a compiled sample hook adds < 5 µs per request.
 * Run: node --import tsx bench/tssteps/hook-in-step.ts [requests per step]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bytesInput, TritonClient } from '../../client/grpc/client.js';
import { startLocalServer } from '../../client/server/localServer.js';
import { buildRepository } from '../../generator/build/index.js';
import { generateRepository, type Pipeline } from '../../generator/index.js';
import { loadInNode } from '../../test/tscompile/harness.js';

const ROOT = path.resolve(__dirname, '../..');
const requests = Number(process.argv[2] ?? 5000);
const CHAT = path.join(ROOT, 'samples/llama2-tensorrt-llm/hooks/llama2-chat.ts');
const PROMPT =
  'Write a short poem about the sea, the wind and the lighthouse keeper who has not slept for three nights. Keep it under eight lines.';
const SYSTEM = 'You are a helpful, respectful and honest assistant. Always answer as helpfully as possible.';

const tokenize = (name: string, hooks?: string): Pipeline['steps'][number] => ({
  name,
  kind: 'tokenize',
  tokenizer: 'llama-2',
  ...(hooks ? { hooks } : {}),
  inputs: [{ name: 'TEXT', dataType: 'STRING', dims: [1], role: 'text' }],
  outputs: [{ name: 'IDS', dataType: 'INT64', dims: [-1], role: 'inputIds' }],
});
const pipeline: Pipeline = {
  version: 1,
  name: 'hook_bench',
  maxBatchSize: 8,
  inputs: [
    { name: 'text_input', dataType: 'STRING', dims: [1] },
    { name: 'templated', dataType: 'STRING', dims: [1] },
    { name: 'system_prompt', dataType: 'STRING', dims: [1], optional: true },
  ],
  outputs: [
    { name: 'ids_chat', dataType: 'INT64', dims: [-1] },
    { name: 'ids_plain', dataType: 'INT64', dims: [-1] },
  ],
  steps: [tokenize('chat', CHAT), tokenize('plain')],
  wires: [
    { from: 'text_input', to: 'chat.TEXT' },
    { from: 'system_prompt', to: 'chat.system_prompt' },
    { from: 'templated', to: 'plain.TEXT' },
    { from: 'chat.IDS', to: 'ids_chat' },
    { from: 'plain.IDS', to: 'ids_plain' },
  ],
};

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(tmpdir(), 'hook-bench-'));
  const file = path.join(work, 'bench.pipeline.json');
  writeFileSync(file, JSON.stringify(pipeline));
  const repo = path.join(work, 'repo');
  const generated = generateRepository({ pipelinePath: file, outDir: repo });
  if (generated.diagnostics.some((d) => d.severity === 'error'))
    throw new Error(JSON.stringify(generated.diagnostics));
  await buildRepository(repo, { stepsBuildDir: path.join(work, 'steps') });
  const server = await startLocalServer({ modelRepository: repo, loadModels: ['chat', 'plain'] });
  const client = new TritonClient(server.grpcUrl);
  const templated = loadInNode(CHAT).beforeEncode!(PROMPT, { system_prompt: SYSTEM }) as string;
  const send = {
    chat: () =>
      client.infer('chat', [
        bytesInput('TEXT', [1, 1], [PROMPT]),
        bytesInput('system_prompt', [1, 1], [SYSTEM]),
      ]),
    plain: () => client.infer('plain', [bytesInput('TEXT', [1, 1], [templated])]),
  };
  try {
    const [a, b] = [await send.chat(), await send.plain()];
    if (JSON.stringify(a.numbers('IDS')) !== JSON.stringify(b.numbers('IDS')))
      throw new Error('the hooked step and the plain step encode different text');
    for (let i = 0; i < 200; i++) await Promise.all([send.chat(), send.plain()]);
    const stats = async () => Object.fromEntries((await client.modelStatistics()).map((s) => [s.name, s]));
    const before = await stats();
    for (let i = 0; i < requests; i++) {
      await send.chat();
      await send.plain();
    }
    const after = await stats();
    const us = (model: string, k: 'compute_infer' | 'compute_output') =>
      (Number(after[model]!.inference_stats![k]!.ns) - Number(before[model]!.inference_stats![k]!.ns)) /
      requests /
      1000;
    const line = (m: string) =>
      `${m}: compute_infer ${us(m, 'compute_infer').toFixed(2)} µs/request, compute_output ${us(m, 'compute_output').toFixed(2)}`;
    console.log(`${requests} requests each, ${a.numbers('IDS').length} tokens`);
    console.log(line('chat'));
    console.log(line('plain'));
    console.log(
      `the hook adds ${(us('chat', 'compute_infer') - us('plain', 'compute_infer')).toFixed(2)} µs/request (mean)`,
    );
  } finally {
    client.close();
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

void main();
