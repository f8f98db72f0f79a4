/**
 * The target-architecture table (generator/build/architectures.ts) is what build, deploy's library
 * check, the emulated server and the Kubernetes manifests derive from; docs/GPU.md prints it.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { libraryProblem } from '../../client/deploy/libraryCheck.js';
import {
  ARCHITECTURES,
  architecture,
  architectureOfMachine,
  generateRepository,
  hostArchitecture,
  libraryArchitecture,
  parsePipeline,
  repositoryTargetArch,
  resolveTargetArch,
  TARGET_ARCH_SOURCES,
} from '../../generator/index.js';

const ROOT = join(__dirname, '../..');

/** A real shared library of this machine with its ELF machine field set to `machine`. */
function libraryFor(machine: number): Buffer {
  const candidates = ['/lib/x86_64-linux-gnu/libc.so.6', '/lib/aarch64-linux-gnu/libc.so.6'];
  const bytes = Buffer.from(readFileSync(candidates.find((f) => existsSync(f))!));
  bytes.writeUInt16LE(machine, 18);
  return bytes;
}

describe('target architectures', () => {
  it('accept the names each tool uses for them, and refuse others saying which exist', () => {
    for (const a of ARCHITECTURES) {
      for (const name of [a.arch, a.nodeArch, a.debianArch, a.kubernetesArch])
        expect(architecture(name)).toBe(a);
    }
    expect(() => architecture('riscv64')).toThrow(
      'unknown target architecture "riscv64": use x86_64 or aarch64',
    );
    expect(hostArchitecture().nodeArch).toBe(process.arch);
  });

  it('read a library built for each from its ELF header', () => {
    for (const a of ARCHITECTURES) {
      expect(architectureOfMachine(a.elfMachine)).toBe(a);
      expect(libraryArchitecture(libraryFor(a.elfMachine))).toBe(a);
    }
    expect(libraryArchitecture(Buffer.from('not an ELF file at all'))).toBeUndefined();
  });

  it("deploy's check accepts a library for the server's CPU and names the --arch to rebuild with otherwise", () => {
    const x86 = architecture('x86_64');
    const arm = architecture('aarch64');
    const armLibrary = libraryFor(arm.elfMachine);
    expect(libraryProblem('/r/m/1/libtriton_m.so', armLibrary, arm)).toBeUndefined();
    expect(libraryProblem('/r/m/1/libtriton_m.so', armLibrary, x86)).toBe(
      'libtriton_m.so is built for aarch64 (AArch64), but the server runs x86_64 (x86-64): ' +
        'rebuild it with `triton-studio build REPO --arch x86_64`',
    );
    expect(libraryProblem('/r/m/1/libtriton_m.so', libraryFor(243 /* RISC-V */), arm)).toMatch(
      /is built for ELF machine 243, which Triton does not run on, but the server runs aarch64/,
    );
  });

  it('cross-build every architecture but x86_64 (the build machine) with a toolchain file that exists', () => {
    for (const a of ARCHITECTURES.filter((r) => r.arch !== 'x86_64')) {
      const file = join(ROOT, 'backends/cmake', `toolchain-${a.gnuTriple}.cmake`);
      expect(readFileSync(file, 'utf8')).toContain(`set(CMAKE_SYSTEM_PROCESSOR ${a.arch})`);
    }
  });

  it('docs/GPU.md lists exactly this table', () => {
    const doc = readFileSync(join(ROOT, 'docs/GPU.md'), 'utf8');
    const rows = [
      ...doc.matchAll(/^\| (x86_64|aarch64) \| ([^|]+) \| ([^|]+) \| ([^|]+) \| ([^|]+) \|$/gm),
    ].map((m) => m.slice(1).map((c) => c.trim()));
    expect(rows).toEqual(
      ARCHITECTURES.map((a) => [a.arch, a.elfName, a.debianArch, a.kubernetesArch, a.servers]),
    );
  });
});

describe('the target architecture of a build', () => {
  const from = (given: Parameters<typeof resolveTargetArch>[0]) => {
    const r = resolveTargetArch(given);
    return [r.arch.arch, r.from];
  };

  it('is --arch over the pipeline over the VS Code setting over this machine', () => {
    expect(from({ flag: 'x86_64', pipeline: 'aarch64', setting: 'aarch64' })).toEqual(['x86_64', '--arch']);
    expect(from({ flag: architecture('aarch64'), pipeline: 'x86_64' })).toEqual(['aarch64', '--arch']);
    expect(from({ pipeline: 'aarch64', setting: 'x86_64' })).toEqual(['aarch64', 'pipeline target.arch']);
    expect(from({ setting: 'aarch64' })).toEqual(['aarch64', 'setting tritonStudio.build.arch']);
    expect(from({ setting: 'auto' })).toEqual([hostArchitecture().arch, 'this machine']);
    expect(from({})).toEqual([hostArchitecture().arch, 'this machine']);
    expect(TARGET_ARCH_SOURCES).toEqual([
      '--arch',
      'pipeline target.arch',
      'setting tritonStudio.build.arch',
      'this machine',
    ]);
  });

  it('refuses a name that is no architecture, saying where it came from', () => {
    expect(() => resolveTargetArch({ pipeline: 'arm' })).toThrow(
      'pipeline target.arch: unknown target architecture "arm": use x86_64 or aarch64',
    );
    expect(() => resolveTargetArch({ setting: 'sparc' })).toThrow(
      /^setting tritonStudio\.build\.arch: unknown/,
    );
  });

  it('the pipeline schema and the VS Code setting offer exactly the architectures of the table', () => {
    const schema = JSON.parse(readFileSync(join(ROOT, 'generator/schema/pipeline.schema.json'), 'utf8'));
    expect(schema.properties.target.properties.arch.enum).toEqual(ARCHITECTURES.map((a) => a.arch));
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const setting = pkg.contributes.configuration.properties['tritonStudio.build.arch'];
    expect(setting.enum).toEqual(['auto', ...ARCHITECTURES.map((a) => a.arch)]);
  });

  it('a wrong target.arch in the pipeline file is TS-E003 on the value, naming the allowed ones', () => {
    const sample = JSON.parse(readFileSync(join(ROOT, 'samples/gpt2-sim/gpt2-sim.pipeline.json'), 'utf8'));
    sample.target = { arch: 'arm' };
    const text = JSON.stringify(sample, null, 2);
    const { diagnostics } = parsePipeline(text, 'p.pipeline.json');
    const at = text.split('\n').findIndex((l) => l.includes('"arch": "arm"'));
    const column = text.split('\n')[at]!.indexOf('"arm"');
    expect(diagnostics.map((d) => [d.code, d.range.start, d.range.end, d.message])).toEqual([
      [
        'TS-E003',
        { line: at, column },
        { line: at, column: column + 5 },
        expect.stringMatching(/is not valid: use one of "x86_64", "aarch64"\.$/),
      ],
    ]);
    sample.target = { cpu: 'aarch64' };
    expect(parsePipeline(JSON.stringify(sample), 'p.pipeline.json').diagnostics.map((d) => d.code)).toEqual([
      'TS-E004',
    ]);
    sample.target = { arch: 'aarch64' };
    expect(parsePipeline(JSON.stringify(sample), 'p.pipeline.json').diagnostics).toEqual([]);
  });

  it('travels into the generated repository, where build reads it', () => {
    const work = mkdtempSync(join(tmpdir(), 'ts-target-arch-'));
    try {
      const sample = JSON.parse(readFileSync(join(ROOT, 'samples/gpt2-sim/gpt2-sim.pipeline.json'), 'utf8'));
      delete sample.$schema;
      const file = join(work, 'p.pipeline.json');
      for (const [target, want] of [
        [{ arch: 'aarch64' }, 'aarch64'],
        [undefined, undefined],
      ] as const) {
        writeFileSync(file, JSON.stringify({ ...sample, target }));
        const repo = join(work, 'repo');
        const r = generateRepository({ pipelinePath: file, outDir: repo });
        expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        expect(repositoryTargetArch(repo)).toBe(want);
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
