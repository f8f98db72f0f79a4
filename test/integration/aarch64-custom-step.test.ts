/**
 * A custom step authored in TypeScript (compiled to C++) cross-built for aarch64 and run by the
 * real aarch64 Triton server under qemu-user: it answers exactly as the same module does in Node
 * (the x86_64 build is held to the same in ts-custom-step.test.ts). Its library is for AArch64 and
 * passed the build's symbol check against aarch64's libraries.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bytesInput, numericInput, TritonClient } from '../../client/grpc/client.js';
import { decodeBytesTensor, decodeNumericTensor } from '../../client/grpc/tensors.js';
import { startLocalServer, type LocalServer } from '../../client/server/localServer.js';
import { buildRepository } from '../../generator/build/index.js';
import { architecture, libraryArchitecture } from '../../generator/index.js';
import { loadInNode } from '../tscompile/harness.js';
import { writeCustomStep } from '../tscompile/customStepRepo.js';

const ROOT = resolve(__dirname, '../..');
const SHOUT = join(ROOT, 'test/fixtures/ts-steps/shout.ts');
const AARCH64 = architecture('aarch64');

let work: string;
let library: string;
let server: LocalServer;
let client: TritonClient;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'ts-aarch64-custom-'));
  const repo = join(work, 'repo');
  writeCustomStep(repo, 'shout', SHOUT, {}, '');
  const built = await buildRepository(repo, { arch: AARCH64, stepsBuildDir: join(work, 'steps') });
  library = built.built.find((b) => b.model === 'shout')!.library;
  server = await startLocalServer({
    modelRepository: repo,
    arch: AARCH64,
    loadModels: ['shout'],
    logFile: join(work, 'tritonserver.log'),
    startupTimeoutMs: 300_000,
  });
  client = new TritonClient(server.grpcUrl);
}, 900_000);

afterAll(async () => {
  client?.close();
  await server?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('a TypeScript custom step cross-built for aarch64, on the aarch64 tritonserver (qemu-user)', () => {
  it('is an AArch64 library, served by the aarch64 server', () => {
    expect(libraryArchitecture(readFileSync(library))?.arch).toBe('aarch64');
    expect(server.arch.arch).toBe('aarch64');
  });

  it('answers as the same module does in Node', async () => {
    const rows = [
      { text: 'héllo wörld', repeat: 2 },
      { text: 'straße 🤗', repeat: 1 },
      { text: '', repeat: 3 },
    ];
    const r = await client.infer('shout', [
      bytesInput(
        'text',
        [rows.length, 1],
        rows.map((x) => x.text),
      ),
      numericInput(
        'repeat',
        'INT32',
        [rows.length, 1],
        rows.map((x) => x.repeat),
      ),
    ]);
    const node = loadInNode(SHOUT).execute!(rows, {}) as Array<{
      text: string;
      units: number;
      codes: Int32Array;
    }>;
    expect(decodeBytesTensor(r.output('text').raw).map((b) => b.toString('utf8'))).toEqual(
      node.map((x) => x.text),
    );
    expect(decodeNumericTensor('INT64', r.output('units').raw).map(Number)).toEqual(node.map((x) => x.units));
    expect(decodeNumericTensor('INT32', r.output('codes').raw)).toEqual(node.flatMap((x) => [...x.codes]));
  }, 300_000);
});
