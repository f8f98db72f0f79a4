/**
 * What a compiled TypeScript hook adds per request: the sample hooks compiled to C++ (the same
 * compiler and runtime a generated step uses), timed per call including the UTF-8 ↔ UTF-16
 * conversions a step does around them. Node runs the same functions for reference.
 * Goal (issue 9): < 5 µs p50 per request.
 * Run: node --import tsx bench/tssteps/run.ts [iterations]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { compileModules } from '../../generator/index.js';
import { loadInNode } from '../../test/tscompile/harness.js';

const ROOT = path.resolve(__dirname, '../..');
const iterations = Number(process.argv[2] ?? 200000);
const CHAT = path.join(ROOT, 'samples/llama2-tensorrt-llm/hooks/llama2-chat.ts');
const STOP = path.join(ROOT, 'samples/gpt2-tensorrt-llm/hooks/stop-sequence.ts');

const PROMPT =
  'Write a short poem about the sea, the wind and the lighthouse keeper who has not slept for three nights. Keep it under eight lines.';
const SYSTEM = 'You are a helpful, respectful and honest assistant. Always answer as helpfully as possible.';
const ANSWER =
  'The keeper watches, the lamp turns round, the sea keeps its counsel and makes no sound.\n\n### notes';

const [chat, stop] = compileModules(
  [CHAT, STOP].map((f) => ({ fileName: path.relative(ROOT, f), text: readFileSync(f, 'utf8') })),
  ['chat', 'stop'],
);
for (const m of [chat!, stop!]) if (m.diagnostics.length) throw new Error(JSON.stringify(m.diagnostics));

const cpp = `
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
${chat!.cpp.replace('#pragma once', '')}
${stop!.cpp.replace('#pragma once', '')}
using Clock = std::chrono::steady_clock;
static volatile size_t sink;
template <class F> void measure(const char* name, int n, F f) {
  std::vector<double> ns(n);
  for (int i = 0; i < n; ++i) {
    auto t0 = Clock::now();
    sink += f();
    ns[i] = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
  }
  std::sort(ns.begin(), ns.end());
  std::printf("%s %.3f %.3f %.3f\\n", name, ns[n / 2] / 1000, ns[n * 99 / 100] / 1000, ns[n - 1] / 1000);
}
int main(int argc, char** argv) {
  int n = std::atoi(argv[1]);
  std::string prompt = ${JSON.stringify(PROMPT)}, system = ${JSON.stringify(SYSTEM)}, answer = ${JSON.stringify(ANSWER)};
  // Tokens of ~4 characters, as a streamed answer arrives.
  std::vector<std::string> chunks;
  for (size_t i = 0; i < answer.size(); i += 4) chunks.push_back(answer.substr(i, 4));
  measure("beforeEncode", n, [&] {
    auto in = std::make_shared<chat::HookInputs>(chat::HookInputs{tsrt::fromUtf8(system)});
    return tsrt::toUtf8(chat::beforeEncode(tsrt::fromUtf8(prompt), in)).size();
  });
  measure("afterDecode", n, [&] { return tsrt::toUtf8(chat::afterDecode(tsrt::fromUtf8(answer))).size(); });
  measure("stream(all chunks)", n / 10, [&] {
    auto st = stop::startStream();
    size_t total = 0;
    for (auto& c : chunks) total += tsrt::toUtf8(stop::onChunk(st, tsrt::fromUtf8(c))).size();
    return total + tsrt::toUtf8(stop::endStream(st)).size();
  });
  measure("onChunk", n, [&, st = stop::startStream(), i = size_t(0)]() mutable {
    if (i % chunks.size() == 0) st = stop::startStream();
    return tsrt::toUtf8(stop::onChunk(st, tsrt::fromUtf8(chunks[i++ % chunks.size()]))).size();
  });
}
`;
const dir = path.join(ROOT, 'build/bench-tssteps');
mkdirSync(dir, { recursive: true });
writeFileSync(path.join(dir, 'hooks.cc'), cpp);
const build = spawnSync(
  'g++',
  ['-std=c++17', '-O2', `-I${path.join(ROOT, 'backends/tsrt/include')}`, 'hooks.cc', '-o', 'hooks'],
  { cwd: dir, encoding: 'utf8' },
);
if (build.status !== 0) throw new Error(build.stderr);
const out = execFileSync(path.join(dir, 'hooks'), [String(iterations)], { encoding: 'utf8' });

function nodeTimes(name: string, n: number, f: () => unknown): string {
  const ns: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    f();
    ns.push((performance.now() - t0) * 1000);
  }
  ns.sort((a, b) => a - b);
  return `${name} ${ns[n >> 1]!.toFixed(3)} ${ns[Math.floor(n * 0.99)]!.toFixed(3)} ${ns[n - 1]!.toFixed(3)}`;
}
const c = loadInNode(CHAT);
const s = loadInNode(STOP);
const chunks: string[] = [];
for (let i = 0; i < ANSWER.length; i += 4) chunks.push(ANSWER.slice(i, i + 4));
const node = [
  nodeTimes('beforeEncode', iterations, () => c.beforeEncode!(PROMPT, { system_prompt: SYSTEM })),
  nodeTimes('afterDecode', iterations, () => c.afterDecode!(ANSWER)),
  nodeTimes('stream(all chunks)', iterations / 10, () => {
    const st = s.startStream!();
    for (const ch of chunks) s.onChunk!(st, ch);
    return s.endStream!(st);
  }),
].join('\n');

console.log(
  `compiled C++ (g++ -O2), µs per call: name p50 p99 max, ${iterations} calls (stream: ${iterations / 10} streams of ${chunks.length} chunks)`,
);
console.log(out.trim());
console.log('Node (same TS, V8 JIT), µs per call: name p50 p99 max');
console.log(node);
