/**
 * generator/build against the real toolchain: CMake builds of the backends and of generated
 * steps, what the resulting libraries export, incremental rebuilds, and the errors a user sees
 * when something is wrong.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuildError, buildBackends, buildRepository } from '../../generator/build/index.js';
import { CONTAINER_GENERATIONS } from '../../generator/build/containers.js';
import { compareVersions } from '../../generator/build/elf.js';
import { renderNativeStep } from '../../generator/codegen/cpp/index.js';
import type { TokenizeStepModel } from '../../generator/codegen/nativeStep.js';
import { hostArchitecture, stepSourcesDir } from '../../generator/index.js';

const step: TokenizeStepModel = {
  kind: 'tokenize',
  modelName: 'tok',
  maxBatchSize: 0,
  tokenizerFile: 'tokenizer.json',
  addSpecialTokens: false,
  inputs: { text: { name: 'TEXT', dataType: 'STRING', dims: [1] } },
  outputs: { inputIds: { name: 'ids', dataType: 'INT32', dims: [-1] } },
};

const config = (backend: string) =>
  `name: "tok"\nbackend: "${backend}"\nmax_batch_size: 0\n` +
  'input [ { name: "TEXT" data_type: TYPE_STRING dims: [ 1 ] } ]\n' +
  'output [ { name: "ids" data_type: TYPE_INT32 dims: [ -1 ] } ]\n';

let work: string;

/** A repository with the single step `tok` (config backend name as given). */
function writeRepository(name: string, backend = 'tok'): string {
  const repo = join(work, name);
  mkdirSync(join(repo, 'tok'), { recursive: true });
  mkdirSync(join(stepSourcesDir(repo), 'tok'), { recursive: true });
  writeFileSync(join(repo, 'tok', 'config.pbtxt'), config(backend));
  for (const [file, text] of Object.entries(renderNativeStep(step)))
    writeFileSync(join(stepSourcesDir(repo), 'tok', file), text);
  return repo;
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'ts-build-'));
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('buildRepository', () => {
  it('places libtriton_<model>.so into <model>/1/, and a second build with nothing changed compiles nothing', async () => {
    const repo = writeRepository('incremental');
    const stepsBuildDir = join(work, 'steps-incremental');
    const first = await buildRepository(repo, { stepsBuildDir });
    expect(first.built).toEqual([
      {
        model: 'tok',
        library: join(repo, 'tok', '1', 'libtriton_tok.so'),
        kind: 'step',
        // Built for this machine's CPU when no --arch is given.
        arch: hostArchitecture().arch,
        requires: {
          glibc: expect.stringMatching(/^2\.\d+$/),
          glibcxx: expect.stringMatching(/^3\.4\.\d+$/),
          cxxabi: expect.stringMatching(/^1\.3\.\d+$/),
        },
      },
    ]);
    expect(statSync(first.built[0]?.library as string).size).toBeGreaterThan(0);
    // What `objdump -T` lists is what the build reports, and no more than NVIDIA's oldest
    // supported Triton container offers (the table in docs/GPU.md).
    const objdump = execFileSync('objdump', ['-T', first.built[0]!.library], { encoding: 'utf8' });
    const newest = (prefix: string) =>
      [...objdump.matchAll(new RegExp(`\\(${prefix}_([\\d.]+)\\)`, 'g'))]
        .map((m) => m[1]!)
        .sort(compareVersions)
        .at(-1);
    const floor = CONTAINER_GENERATIONS[0]!;
    expect(first.built[0]!.requires).toEqual({
      glibc: newest('GLIBC'),
      glibcxx: newest('GLIBCXX'),
      cxxabi: newest('CXXABI'),
    });
    expect(compareVersions(newest('GLIBC')!, floor.glibc)).toBeLessThanOrEqual(0);
    expect(compareVersions(newest('GLIBCXX')!, floor.glibcxx)).toBeLessThanOrEqual(0);
    expect(compareVersions(newest('CXXABI')!, floor.cxxabi)).toBeLessThanOrEqual(0);

    const lines: string[] = [];
    const second = await buildRepository(repo, { stepsBuildDir, onOutput: (l) => lines.push(l) });
    expect(second.built).toEqual(first.built);
    expect(lines.join('\n')).not.toMatch(/Building CXX object|Linking CXX/);
  });

  it('exports only the TRITONBACKEND entry points and leaves Triton functions to the server (no libtritonserver)', async () => {
    const repo = writeRepository('symbols');
    const { built } = await buildRepository(repo, { stepsBuildDir: join(work, 'steps-symbols') });
    const library = built[0]?.library as string;
    const symbols = (flag: string) =>
      execFileSync('nm', ['-D', flag, library], { encoding: 'utf8' })
        .split('\n')
        .map((l) => l.trim().split(/\s+/).pop() ?? '')
        .filter(Boolean);
    expect(symbols('--defined-only').sort()).toEqual([
      'TRITONBACKEND_Initialize',
      'TRITONBACKEND_ModelFinalize',
      'TRITONBACKEND_ModelInitialize',
      'TRITONBACKEND_ModelInstanceExecute',
    ]);
    expect(symbols('--undefined-only')).toEqual(
      expect.arrayContaining([
        'TRITONBACKEND_ResponseSend',
        'TRITONBACKEND_RequestRelease',
        'TRITONSERVER_ErrorNew',
      ]),
    );
    const needed = execFileSync('readelf', ['-d', library], { encoding: 'utf8' });
    expect(needed).not.toMatch(/tritonserver/);
  });

  it('reports a compile error with the model name, what to do, and the compiler message', async () => {
    const repo = writeRepository('broken');
    appendFileSync(join(stepSourcesDir(repo), 'tok', 'step.cc'), '\nthis is not C++;\n');
    const failure = buildRepository(repo, { stepsBuildDir: join(work, 'steps-broken') });
    await expect(failure).rejects.toBeInstanceOf(BuildError);
    await expect(failure).rejects.toThrow(/tok: compiling the native step failed; the compiler output below/);
    await expect(failure).rejects.toThrow(/step\.cc:\d+:\d+: error: .*this/);
  });

  it('refuses a library with symbols that nothing defines (it would link, then fail to load in Triton)', async () => {
    const repo = writeRepository('unresolved');
    appendFileSync(
      join(stepSourcesDir(repo), 'tok', 'step.cc'),
      '\nvoid ts_defined_nowhere();\nnamespace {\nstruct Use {\n  Use() { ts_defined_nowhere(); }\n} use;\n}  // namespace\n',
    );
    await expect(buildRepository(repo, { stepsBuildDir: join(work, 'steps-unresolved') })).rejects.toThrow(
      /tok: libtriton_tok\.so needs 1 symbol\(s\) that no library defines, so Triton could not load it: _Z18ts_defined_nowherev\./,
    );
  });

  it("refuses a library that needs a newer glibc than NVIDIA's oldest supported Triton container, naming the symbol", async () => {
    const repo = writeRepository('newer-glibc');
    appendFileSync(
      join(stepSourcesDir(repo), 'tok', 'step.cc'),
      '\n#include <cstdlib>\nnamespace {\nstruct Use {\n  Use() { (void)arc4random(); }\n} use;\n}  // namespace\n',
    );
    await expect(buildRepository(repo, { stepsBuildDir: join(work, 'steps-newer-glibc') })).rejects.toThrow(
      /tok: libtriton_tok\.so needs GLIBC_2\.36 \(arc4random; they have GLIBC_2\.35\), so it would not load in NVIDIA's Triton containers 24\.01–24\.12 \(Ubuntu 22\.04\)/,
    );
  });

  it('refuses a step whose library does not match the backend its config names', async () => {
    const repo = writeRepository('mismatch', 'other_backend');
    await expect(buildRepository(repo, { stepsBuildDir: join(work, 'steps-mismatch') })).rejects.toThrow(
      /tok: config\.pbtxt says backend "other_backend" but its sources \(.*mismatch\.src\/tok\) build libtriton_tok\.so; regenerate/,
    );
  });

  it('says so when the repository does not exist', async () => {
    await expect(buildRepository(join(work, 'missing'))).rejects.toThrow(/does not exist; generate it first/);
  });

  it('tells the user to install cmake when it is not on PATH', async () => {
    const repo = writeRepository('no-cmake');
    const path = process.env.PATH;
    process.env.PATH = join(work, 'empty-bin');
    try {
      await expect(buildRepository(repo, { stepsBuildDir: join(work, 'steps-no-cmake') })).rejects.toThrow(
        /cmake was not found on PATH\. Install it \(Debian\/Ubuntu: apt-get install -y cmake g\+\+ make/,
      );
    } finally {
      process.env.PATH = path;
    }
  });
});

describe('buildBackends', () => {
  it('rejects a TRITON_BACKEND_INCLUDE_DIR without the official headers, naming what it needs', async () => {
    await expect(
      buildBackends({
        buildDir: join(work, 'backends-bad-headers'),
        tritonIncludeDir: join(work, 'no-headers'),
      }),
    ).rejects.toThrow(/Configuring the native backends failed[\s\S]*has no\s+triton\/core\/tritonbackend\.h/);
  });
});
