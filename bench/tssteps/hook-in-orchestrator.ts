/**
 * What the samples' compiled hooks add inside the native orchestrator, in tritonserver. Four
 * orchestrators generated from the two hooked samples (sim-llm at zero delay standing in for
 * TensorRT-LLM) on one server, each beside a twin without the hook:
 * - `llama_chat` runs the Llama-2 chat template (beforeEncode, with its system_prompt input);
 *   `llama_plain` has no hooks and gets the text the template makes, so both send the model the
 *   same ids. The orchestrator reports the tokenize phase of Execute (inputs read, tokenized, the
 *   model request built) as Triton's compute_input: their difference is the hook.
 * - `gpt2_stop` runs the stop-sequence hook on every streamed delta (startStream, onChunk,
 *   endStream); `gpt2_plain` has none. Both stream the same 32-token answer; the orchestrator
 *   reports from sending the model request to the last response as compute_infer (the model's
 *   own time included), so their difference is the hook plus noise.
 * Requests go one at a time, the four models in turn (the order rotated every round). Goal (issue 9): a compiled sample hook adds
 * < 5 µs per request.
 * Run: node --import tsx bench/tssteps/hook-in-orchestrator.ts [requests per model]
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bytesInput, numericInput, TritonClient, type InferInput } from '../../client/grpc/client.js';
import { startLocalServer } from '../../client/server/localServer.js';
import { buildRepository } from '../../generator/build/index.js';
import { generateRepository, MANIFEST_FILE, type Pipeline } from '../../generator/index.js';
import { loadInNode } from '../../test/tscompile/harness.js';

const ROOT = path.resolve(__dirname, '../..');
const requests = Number(process.argv[2] ?? 3000);
const CHAT = path.join(ROOT, 'samples/llama2-tensorrt-llm/hooks/llama2-chat.ts');
const PROMPT =
  'Write a short poem about the sea, the wind and the lighthouse keeper who has not slept for three nights. Keep it under eight lines.';
const SYSTEM = 'You are a helpful, respectful and honest assistant. Always answer as helpfully as possible.';
const ANSWER = 'The sea is calm tonight.\n\nThe keeper counts the waves, the wind keeps time ##';

interface Variant {
  model: string;
  sample: 'gpt2-tensorrt-llm' | 'llama2-tensorrt-llm';
  hooks: boolean;
}
const VARIANTS: Variant[] = [
  { model: 'llama_chat', sample: 'llama2-tensorrt-llm', hooks: true },
  { model: 'llama_plain', sample: 'llama2-tensorrt-llm', hooks: false },
  { model: 'gpt2_stop', sample: 'gpt2-tensorrt-llm', hooks: true },
  { model: 'gpt2_plain', sample: 'gpt2-tensorrt-llm', hooks: false },
];

/** The sample as it is, with sim-llm at zero delay, its names prefixed, hooks kept or dropped. */
function prepare(work: string, v: Variant): string {
  const dir = path.join(work, v.model);
  cpSync(path.join(ROOT, 'samples', v.sample), dir, { recursive: true });
  const file = path.join(dir, `${v.sample}.pipeline.json`);
  const p = JSON.parse(readFileSync(file, 'utf8')) as Pipeline;
  p.name = v.model;
  const rename = new Map(p.steps.map((s) => [s.name, `${v.model}_${s.name}`]));
  for (const s of p.steps) {
    s.name = rename.get(s.name)!;
    if (s.kind === 'model') {
      s.backend = 'sim_llm';
      s.parameters = { prefill_us_per_token: 0, decode_us_per_step: 0 };
    }
    // Llama-2: only the chat template is compared (answers are streamed, so afterDecode never runs).
    if (!v.hooks || s.kind === 'detokenize') delete s.hooks;
    if (v.sample === 'gpt2-tensorrt-llm' && v.hooks && s.kind === 'detokenize')
      s.hooks = 'hooks/stop-sequence.ts';
  }
  const end = (e: string) => {
    const dot = e.indexOf('.');
    return dot > 0 && rename.has(e.slice(0, dot)) ? rename.get(e.slice(0, dot))! + e.slice(dot) : e;
  };
  p.wires = p.wires
    .map((w) => ({ ...w, from: end(w.from), to: end(w.to) }))
    // Without the hook module the step has no system_prompt port.
    .filter((w) => v.hooks || !w.to.endsWith('.system_prompt'));
  if (!v.hooks) p.inputs = p.inputs.filter((i) => i.name !== 'system_prompt');
  writeFileSync(file, JSON.stringify(p, null, 2));
  return file;
}

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(tmpdir(), 'hook-orch-bench-'));
  const served = path.join(work, 'served');
  const models: string[] = [];
  for (const v of VARIANTS) {
    const repo = path.join(work, `${v.model}-repo`);
    const generated = generateRepository({ pipelinePath: prepare(work, v), outDir: repo });
    if (generated.diagnostics.some((d) => d.severity === 'error') || generated.serving !== 'orchestrator')
      throw new Error(JSON.stringify(generated.diagnostics));
    await buildRepository(repo);
    cpSync(repo, served, { recursive: true, filter: (src) => !src.endsWith(MANIFEST_FILE) });
    models.push(...generated.models.map((m) => m.name));
  }
  const server = await startLocalServer({ modelRepository: served, loadModels: models });
  const client = new TritonClient(server.grpcUrl);
  const templated = loadInNode(CHAT).beforeEncode!(PROMPT, { system_prompt: SYSTEM }) as string;
  const ask = (model: string, list: InferInput[]) => async () => {
    let text = '';
    for await (const r of client.streamInfer(model, list, { id: '' })) {
      if (r.outputs.has('text_output')) text += r.strings('text_output').join('');
    }
    return text;
  };
  const common = (text: string, maxTokens: number) => [
    bytesInput('text_input', [1, 1], [text]),
    numericInput('max_tokens', 'INT32', [1, 1], [maxTokens]),
    numericInput('stream', 'BOOL', [1, 1], [true]),
  ];
  const send = {
    llama_chat: ask('llama_chat', [...common(PROMPT, 4), bytesInput('system_prompt', [1, 1], [SYSTEM])]),
    llama_plain: ask('llama_plain', common(templated, 4)),
    gpt2_stop: ask('gpt2_stop', common(ANSWER, 32)),
    gpt2_plain: ask('gpt2_plain', common(ANSWER, 32)),
  };
  try {
    const [chat, plain, stop, noStop] = [
      await send.llama_chat(),
      await send.llama_plain(),
      await send.gpt2_stop(),
      await send.gpt2_plain(),
    ];
    if (chat !== plain)
      throw new Error(`the chat and plain orchestrators answer differently: ${chat} / ${plain}`);
    if (stop !== noStop) throw new Error(`the stop hook changed the answer: ${stop} / ${noStop}`);
    for (let i = 0; i < 200; i++) for (const f of Object.values(send)) await f();
    const stats = async () => Object.fromEntries((await client.modelStatistics()).map((s) => [s.name, s]));
    type Stats = Awaited<ReturnType<typeof stats>>;
    const us = (from: Stats, to: Stats, n: number, model: string, k: 'compute_input' | 'compute_infer') =>
      (Number(to[model]!.inference_stats![k]!.ns) - Number(from[model]!.inference_stats![k]!.ns)) / n / 1000;
    const latency: Record<string, number[]> = Object.fromEntries(Object.keys(send).map((k) => [k, []]));
    const order = Object.entries(send);
    // Windows: the box is shared, so the difference is taken per window and its median reported.
    const WINDOWS = 10;
    const rounds = Math.ceil(requests / WINDOWS);
    const diffs = { chat: [] as number[], stop: [] as number[], control: [] as number[] };
    const first = await stats();
    let before = first;
    for (let w = 0; w < WINDOWS; w++) {
      for (let i = 0; i < rounds; i++) {
        // Rotated each round: whichever model follows another runs in a warmer or colder cache, and
        // a fixed order showed as a steady few µs between identical tokenize phases.
        for (const [name, f] of [...order.slice(i % order.length), ...order.slice(0, i % order.length)]) {
          const t0 = process.hrtime.bigint();
          await f();
          latency[name]!.push(Number(process.hrtime.bigint() - t0) / 1000);
        }
      }
      const after = await stats();
      const d = (a: string, b: string, k: 'compute_input' | 'compute_infer') =>
        us(before, after, rounds, a, k) - us(before, after, rounds, b, k);
      diffs.chat.push(d('llama_chat', 'llama_plain', 'compute_input'));
      diffs.stop.push(d('gpt2_stop', 'gpt2_plain', 'compute_infer'));
      // Two identical tokenize phases (neither GPT-2 twin has a tokenize hook): the noise.
      diffs.control.push(d('gpt2_stop', 'gpt2_plain', 'compute_input'));
      before = after;
    }
    const last = before;
    const total = rounds * WINDOWS;
    const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
    const median = (xs: number[]) => {
      const s = sorted(xs);
      return (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2;
    };
    const spread = (xs: number[]) =>
      `median ${median(xs).toFixed(2)} µs (windows ${sorted(xs)[0]!.toFixed(1)} … ${sorted(xs).at(-1)!.toFixed(1)})`;
    console.log(`${total} requests per model in ${WINDOWS} windows, one at a time, the models in turn`);
    for (const m of Object.keys(send)) {
      console.log(
        `${m}: compute_input ${us(first, last, total, m, 'compute_input').toFixed(2)} µs, compute_infer ${us(first, last, total, m, 'compute_infer').toFixed(2)} µs (means), client p50 ${median(latency[m]!).toFixed(0)} µs`,
      );
    }
    console.log(`beforeEncode (chat template) adds to the tokenize phase: ${spread(diffs.chat)}`);
    console.log(`the stop hook (32 deltas) adds to compute_infer, model included: ${spread(diffs.stop)}`);
    console.log(`control, two identical tokenize phases: ${spread(diffs.control)}`);
  } finally {
    client.close();
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

void main();
