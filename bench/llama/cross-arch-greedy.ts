/**
 * The llama.cpp step's greedy answers on the two server CPUs, side by side: the same repository
 * built for x86_64 and for aarch64 (`triton-studio build --arch`), each served by the server of
 * its own architecture (aarch64: nvidia-pytriton's aarch64 server under qemu-user), the same
 * prompts sent to both. Prints one JSON line per prompt (equal?, common prefix, both texts,
 * seconds). Commands in docs/GPU.md ("Grace servers").
 *   node --import tsx bench/llama/cross-arch-greedy.ts X86_REPO AARCH64_REPO [MAX_TOKENS]
 */
import { deployRepository } from '../../client/deploy/index.js';
import { bytesInput, numericInput, TritonClient } from '../../client/grpc/client.js';
import { startLocalServer } from '../../client/server/localServer.js';
import { architecture, type Architecture } from '../../generator/index.js';

const PROMPTS = [
  'The capital of France is',
  'Water is made of',
  'The largest planet in the solar system is',
  'Two plus two equals',
  'The opposite of hot is',
  'Berlin is the capital of',
  'The color of the sky on a clear day is',
  'A week has',
];

async function answers(
  repo: string,
  arch: Architecture,
  maxTokens: number,
): Promise<{ text: string; s: number }[]> {
  const server = await startLocalServer({ modelRepository: repo, arch, startupTimeoutMs: 300_000 });
  const client = new TritonClient(server.grpcUrl);
  try {
    const deployed = await deployRepository(client, {
      repository: repo,
      mode: 'local',
      serverArch: arch,
      readyTimeoutMs: 300_000,
    });
    const ensemble = deployed.models.find((m) => m.model !== 'llama')!.model;
    const out: { text: string; s: number }[] = [];
    for (const prompt of PROMPTS) {
      const started = Date.now();
      let text = '';
      const inputs = [
        bytesInput('text_input', [1, 1], [prompt]),
        numericInput('max_tokens', 'INT32', [1, 1], [maxTokens]),
      ];
      for await (const r of client.streamInfer(ensemble, inputs, { timeoutMs: 300_000 })) {
        if (r.outputs.has('text_output')) text += r.strings('text_output').join('');
      }
      out.push({ text, s: (Date.now() - started) / 1000 });
    }
    return out;
  } finally {
    client.close();
    await server.stop();
  }
}

async function main(): Promise<void> {
  const [x86Repo, armRepo, tokens = '16'] = process.argv.slice(2);
  if (!x86Repo || !armRepo) throw new Error('usage: cross-arch-greedy.ts X86_REPO AARCH64_REPO [MAX_TOKENS]');
  const x86 = await answers(x86Repo, architecture('x86_64'), Number(tokens));
  const arm = await answers(armRepo, architecture('aarch64'), Number(tokens));
  PROMPTS.forEach((prompt, i) => {
    const [a, b] = [x86[i]!, arm[i]!];
    let common = 0;
    while (common < a.text.length && a.text[common] === b.text[common]) common++;
    console.log(
      JSON.stringify({
        prompt,
        equal: a.text === b.text,
        commonPrefixChars: common,
        x86_64: a.text,
        aarch64: b.text,
        x86_64s: a.s,
        aarch64s: b.s,
      }),
    );
  });
}

void main().catch((error: unknown) => {
  console.error((error as Error).message);
  process.exitCode = 1;
});
