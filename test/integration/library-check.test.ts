/**
 * The checks a backend library passes before it reaches a server (client/libraryCheck.ts) and
 * before `build` places it (generator/build/containers.ts), on real shared libraries compiled here
 * with the system's C compiler: undefined symbols resolved through the libraries it needs (Triton's
 * own left to the server), a needed library that is missing, and symbol versions newer than NVIDIA's
 * oldest supported Triton container offers, read from the ELF version tables as `objdump -T` shows them.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unresolvedProblem } from '../../client/deploy/libraryCheck.js';
import { compatibilityProblems, CONTAINER_GENERATIONS } from '../../generator/build/containers.js';
import { readElfDynamic } from '../../generator/build/elf.js';

let work: string;

/** `cc -shared` of one C source into lib<name>.so; returns its path. */
function compile(name: string, source: string, extra: string[] = []): string {
  const c = join(work, `${name}.c`);
  const so = join(work, `lib${name}.so`);
  writeFileSync(c, source);
  execFileSync('cc', ['-shared', '-fPIC', '-o', so, c, ...extra]);
  return so;
}

const problem = (so: string) => unresolvedProblem(so, readFileSync(so));

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'ts-library-check-'));
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('unresolvedProblem', () => {
  it("accepts a library whose symbols resolve, leaving Triton's functions to the server", () => {
    const so = compile(
      'good',
      '#include <math.h>\nvoid* TRITONBACKEND_ResponseNew(void);\nvoid* TRITONSERVER_ErrorNew(int, const char*);\n' +
        'double f(double x) { TRITONBACKEND_ResponseNew(); TRITONSERVER_ErrorNew(0, ""); return cos(x); }\n',
      ['-lm'],
    );
    expect(readElfDynamic(readFileSync(so)).undefined.map((s) => s.name)).toEqual(
      expect.arrayContaining(['TRITONBACKEND_ResponseNew', 'TRITONSERVER_ErrorNew', 'cos']),
    );
    expect(problem(so)).toBeUndefined();
  });

  it('names the symbols no needed library defines', () => {
    const so = compile('missing', 'void ts_defined_nowhere(void);\nvoid g(void) { ts_defined_nowhere(); }\n');
    expect(problem(so)).toMatch(
      /^libmissing\.so needs 1 symbol\(s\) that none of its libraries define, so Triton could not load it: ts_defined_nowhere\. Rebuild/,
    );
  });

  it('names a needed library that is not installed', () => {
    const dep = compile('gone', 'int gone(void) { return 1; }\n');
    const so = compile('needsgone', 'int gone(void);\nint h(void) { return gone(); }\n', [
      `-L${work}`,
      '-lgone',
    ]);
    rmSync(dep);
    expect(problem(so)).toMatch(/^libneedsgone\.so needs libgone\.so, which cannot be found on this machine/);
  });

  it('reads a garbage file as unreadable, not as a crash', () => {
    const file = join(work, 'libgarbage.so');
    writeFileSync(file, Buffer.alloc(200, 7));
    expect(problem(file)).toMatch(/cannot be read as a shared library \(no ELF header\)/);
  });
});

describe('compatibilityProblems (glibc / libstdc++ symbol versions against the Triton containers)', () => {
  it('finds the versions objdump -T lists and accepts what the oldest supported container offers', () => {
    const so = compile('plain', '#include <string.h>\nsize_t n(const char* s) { return strlen(s); }\n');
    const info = readElfDynamic(readFileSync(so));
    const objdump = execFileSync('objdump', ['-T', so], { encoding: 'utf8' });
    const fromObjdump = [...objdump.matchAll(/\((GLIBC_[\d.]+)\)\s+strlen/g)].map((m) => m[1]);
    expect(info.undefined.find((s) => s.name === 'strlen')?.version).toBe(fromObjdump[0]);
    expect(compatibilityProblems(info)).toEqual([]);
  });

  it('refuses a symbol newer than the oldest supported container (arc4random is GLIBC_2.36; Ubuntu 22.04 has 2.35)', () => {
    const so = compile('newer', '#include <stdlib.h>\nunsigned r(void) { return arc4random(); }\n');
    const info = readElfDynamic(readFileSync(so));
    expect(compatibilityProblems(info, CONTAINER_GENERATIONS[0])).toEqual([
      { version: 'GLIBC_2.36', symbols: ['arc4random'], offered: 'GLIBC_2.35' },
    ]);
    // The newer generation (Ubuntu 24.04, glibc 2.39) loads it.
    expect(compatibilityProblems(info, CONTAINER_GENERATIONS[1])).toEqual([]);
  });
});
