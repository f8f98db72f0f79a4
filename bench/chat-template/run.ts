// Chat-template benchmark: rendering a 10-message conversation with each model's own template,
// the native engine (ts-render-chat-bench, the C++ the steps run) beside transformers'
// apply_chat_template (bench-only venv) in the same run, on the same input; the outputs are
// checked equal first. Goal (issue 23): < 20 µs p50 natively.
// Usage: npm run bench:chat-template [-- --seconds 2 --models qwen3,llama-3.1]
// Results: a Markdown table on stdout and JSON in .cache/bench/chat-template.json.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const buildDir = path.join(root, 'build/backends');
const venvPython = path.join(root, 'build/chat-template-venv/bin/python');
const MODELS = ['llama-3', 'llama-3.1', 'qwen3', 'deepseek-v3', 'gemma-3', 'smollm2-135m-instruct'];

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

function run(cmd: string, args: string[], what: string): string {
  const r = spawnSync(cmd, args, {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    env: { ...process.env, TZ: 'UTC' },
  });
  if (r.error || r.status !== 0) throw new Error(`${what} failed: ${r.error?.message ?? r.stderr}`);
  return r.stdout;
}

/** A system prompt and 4½ turns: the 10 messages of the goal, realistic lengths. */
const conversation = [
  {
    role: 'system',
    content: 'You are a concise assistant for a cloud inference platform. Answer in plain English.',
  },
  { role: 'user', content: 'How do I deploy a model repository to a remote Triton server?' },
  {
    role: 'assistant',
    content:
      'Generate the repository, then run `triton-studio deploy REPO --url HOST:PORT`. It uploads each model through the repository API and loads it.',
  },
  { role: 'user', content: 'And if the server runs with explicit model control?' },
  {
    role: 'assistant',
    content: 'That is the mode deploy expects: it loads the models it uploads, in dependency order.',
  },
  { role: 'user', content: 'Can I measure time to first token afterwards?' },
  {
    role: 'assistant',
    content:
      'Yes: `triton-studio perf --url HOST:PORT --model NAME --stream` reports TTFT and inter-token latency percentiles.',
  },
  { role: 'user', content: 'What about the server-side breakdown per step?' },
  {
    role: 'assistant',
    content:
      'The report adds queue and compute time per model from the statistics extension, beside the client view.',
  },
  { role: 'user', content: 'Great. Summarize the three commands in one line each.' },
];

function main(): void {
  const seconds = arg('seconds', '2');
  const models = arg('models', MODELS.join(',')).split(',');
  if (!existsSync(path.join(buildDir, 'CMakeCache.txt')))
    run('cmake', ['-S', 'backends', '-B', buildDir], 'configuring backends/');
  run('cmake', ['--build', buildDir, '--target', 'ts-render-chat-bench', '-j2'], 'building the bench');
  const bench = path.join(buildDir, 'tools/ts-render-chat-bench');
  const work = mkdtempSync(path.join(os.tmpdir(), 'chat-bench-'));
  const messagesFile = path.join(work, 'messages.json');
  writeFileSync(messagesFile, JSON.stringify(conversation));
  const havePython = existsSync(venvPython);
  if (!havePython) {
    console.error(
      `[bench] ${venvPython} missing: transformers skipped (/usr/bin/python3.11 -m venv build/chat-template-venv && build/chat-template-venv/bin/pip install transformers jinja2 tokenizers)`,
    );
  }
  const rows: Record<string, unknown>[] = [];
  const strip = (r: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(r).filter(([k]) => k !== 'text'));
  for (const model of models) {
    const dir = path.join(root, '.cache/tokenizers', model);
    const config = path.join(dir, 'tokenizer_config.json');
    if (!existsSync(config)) {
      console.error(`[bench] ${model}: no ${config}, skipped`);
      continue;
    }
    const native = JSON.parse(
      run(
        bench,
        [
          '--tokenizer-config',
          config,
          '--messages',
          messagesFile,
          '--add-generation-prompt',
          '--seconds',
          seconds,
        ],
        model,
      ),
    ) as Record<string, number>;
    const row: Record<string, unknown> = { model, native };
    if (havePython) {
      const script = path.join(__dirname, 'py_bench.py');
      row.transformers = JSON.parse(
        run(
          venvPython,
          [script, dir, messagesFile, seconds, '--add-generation-prompt'],
          `${model} (transformers)`,
        )
          .trim()
          .split('\n')
          .pop()!,
      ) as Record<string, number>;
      // The same text, or the timing means nothing.
      const theirs = (row.transformers as { text: string }).text;
      if (theirs !== (native as unknown as { text: string }).text)
        throw new Error(`${model}: the native text differs from transformers'`);
    }
    row.native = strip(row.native as Record<string, unknown>);
    if (row.transformers) row.transformers = strip(row.transformers as Record<string, unknown>);
    rows.push(row);
  }
  console.log(
    `\nRendering a 10-message conversation (add_generation_prompt=True), ${os.cpus()[0]?.model ?? 'CPU'}, single thread\n`,
  );
  console.log(
    '| model | native p50 µs | native p99 µs | transformers p50 µs | transformers p99 µs | p50 ratio | bytes | config load + parse µs |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    const n = r.native as Record<string, number>;
    const t = r.transformers as Record<string, number> | undefined;
    const f = (x: number | undefined) => (x === undefined ? '–' : x < 100 ? x.toFixed(1) : x.toFixed(0));
    console.log(
      `| ${String(r.model)} | ${f(n.p50_us)} | ${f(n.p99_us)} | ${f(t?.p50_us)} | ${f(t?.p99_us)} | ${t ? `${(t.p50_us! / n.p50_us!).toFixed(0)}×` : '–'} | ${n.bytes} | ${f(n.parse_us)} |`,
    );
  }
  mkdirSync(path.join(root, '.cache/bench'), { recursive: true });
  writeFileSync(
    path.join(root, '.cache/bench/chat-template.json'),
    JSON.stringify({ date: new Date().toISOString(), rows }, null, 2),
  );
}

main();
