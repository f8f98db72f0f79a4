/**
 * The `triton-studio` commands that run the built gpt2-sim ensemble, as users run them: `node
 * bin/triton-studio.js …` in child processes, against the real tritonserver, the real compiled
 * ensemble and the native tokenizer (tokenize, serve → prompt → perf, deploy, run). Expected ids
 * and answers come from Hugging Face's `tokenizers`, not from the code under test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startLocalServer } from '../../client/server/localServer.js';
import { buildRepository } from '../../generator/build/index.js';
import { generateRepository } from '../../generator/index.js';
import { PIPELINE, cli, expectedAnswer, hfIds } from './cli-fixture.js';
import { BIN, ROOT } from './run-cli.js';

const scratch = mkdtempSync(join(tmpdir(), 'ts-cli-test-'));
const repo = join(scratch, 'repo');

beforeAll(async () => {
  generateRepository({ pipelinePath: PIPELINE, outDir: repo });
  await buildRepository(repo);
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

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
