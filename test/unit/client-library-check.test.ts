/**
 * The backend-library check deploy runs before anything reaches a server. Real shared libraries
 * from this machine (libc, libm) stand for well-formed ones; the broken ones are made from them.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { libraryProblem } from '../../client/deploy/libraryCheck.js';

const LIBC = ['/lib/x86_64-linux-gnu/libc.so.6', '/lib/aarch64-linux-gnu/libc.so.6', '/lib64/libc.so.6'].find(
  (p) => {
    try {
      return readFileSync(p).length > 0;
    } catch {
      return false;
    }
  },
)!;
const libc = readFileSync(LIBC);

describe('libraryProblem', () => {
  it('accepts a well-formed shared library of this architecture', () => {
    expect(libraryProblem('libc.so.6', libc)).toBeUndefined();
  });

  it('refuses a library cut short, naming its size and what to do', () => {
    for (const length of [libc.length - 1, Math.floor(libc.length / 2), 4096]) {
      expect(libraryProblem('/r/m/1/libtriton_m.so', libc.subarray(0, length))).toMatch(
        new RegExp(
          `^libtriton_m\\.so is truncated \\(${length} bytes; .*rebuild it with \`triton-studio build REPO\`$`,
        ),
      );
    }
  });

  it('refuses what is no ELF library at all', () => {
    expect(libraryProblem('x.so', Buffer.from('hostname\n'))).toBe(
      'x.so is not an ELF shared library (9 bytes, no ELF header)',
    );
    expect(libraryProblem('x.so', Buffer.alloc(0))).toMatch(/no ELF header/);
  });

  it('refuses a library of another architecture, saying which', () => {
    const other = Buffer.from(libc);
    other.writeUInt16LE(process.arch === 'arm64' ? 62 : 183, 18);
    expect(libraryProblem('x.so', other)).toMatch(
      /^x\.so is built for (aarch64 \(AArch64\)|x86_64 \(x86-64\)), but the server runs (x86_64|aarch64) .*: rebuild it with `triton-studio build REPO --arch (x86_64|aarch64)`$/,
    );
  });

  it('refuses an executable in place of a shared library', () => {
    const executable = Buffer.from(libc);
    executable.writeUInt16LE(2, 16);
    expect(libraryProblem('x.so', executable)).toBe(
      'x.so is not a shared library (ELF type 2, expected ET_DYN)',
    );
  });
});
