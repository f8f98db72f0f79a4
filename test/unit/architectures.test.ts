/**
 * The target-architecture table (generator/build/architectures.ts) is what build, deploy's library
 * check, the emulated server and the Kubernetes manifests derive from; docs/GPU.md prints it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { libraryProblem } from '../../client/deploy/libraryCheck.js';
import {
  ARCHITECTURES,
  architecture,
  architectureOfMachine,
  hostArchitecture,
  libraryArchitecture,
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
