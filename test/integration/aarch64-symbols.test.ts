/**
 * A library cross-built for aarch64 has its symbols resolved at build time against aarch64's own
 * libraries (generator/build/targetSymbols.ts): the arm64 glibc/libstdc++ of Debian multiarch and
 * the aarch64 libtritonserver.so of nvidia-pytriton's wheel (`npm run setup -- --cross aarch64`).
 * Every library here is real, compiled by the cross compiler or fetched from npm; the only fake is
 * the fault itself (a call to a function nothing defines, a library deleted after linking).
 */
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { llamaBinsDir, llamaCacheDir } from '../../generator/build/index.js';
import { checkTargetSymbols, targetTritonLibrary } from '../../generator/build/targetSymbols.js';
import { architecture, generateRepository, stepSourcesDir, type Pipeline } from '../../generator/index.js';

const ROOT = resolve(__dirname, '../..');
const AARCH64 = architecture('aarch64');
const TRITON = targetTritonLibrary(ROOT, AARCH64);
let work: string;

/** aarch64-linux-gnu-g++ -shared of one C++ source into lib<name>.so; returns its path. */
function crossCompile(name: string, source: string, extra: string[] = []): string {
  const cc = join(work, `${name}.cc`);
  const so = join(work, `lib${name}.so`);
  writeFileSync(cc, source);
  execFileSync('aarch64-linux-gnu-g++', ['-shared', '-fPIC', '-o', so, cc, ...extra]);
  return so;
}

const check = (so: string) => () => checkTargetSymbols('probe', so, AARCH64, TRITON);

beforeAll(() => {
  if (!TRITON) throw new Error('the aarch64 tritonserver is missing: run `npm run setup -- --cross aarch64`');
  work = mkdtempSync(join(tmpdir(), 'ts-aarch64-symbols-'));
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('symbols of a library cross-built for aarch64, resolved at build time', () => {
  it('accepts libstdc++, glibc and real Triton functions, found in the aarch64 libraries', () => {
    const so = crossCompile(
      'good',
      '#include <cmath>\n#include <string>\nextern "C" void* TRITONBACKEND_ResponseNew(void*, void*);\n' +
        'extern "C" double f(double x) { std::string s(40, \'x\'); TRITONBACKEND_ResponseNew(nullptr, nullptr); ' +
        'return std::cos(x) + s.size(); }\n',
    );
    expect(check(so)).not.toThrow();
  });

  it("names a Triton function the aarch64 server's libtritonserver.so does not define", () => {
    const so = crossCompile(
      'newer-triton',
      'extern "C" void* TRITONBACKEND_ResponseNewer(void*);\nextern "C" void g() { TRITONBACKEND_ResponseNewer(nullptr); }\n',
    );
    expect(check(so)).toThrow(
      /^probe: libnewer-triton\.so \(built for aarch64\) needs 1 symbol\(s\) that no aarch64 \(aarch64-linux-gnu\) library defines \(Triton functions checked against libtritonserver-[0-9a-f]+\.so\), so the aarch64 server would refuse to load it: TRITONBACKEND_ResponseNewer\./,
    );
  });

  it('names a function nothing defines', () => {
    const so = crossCompile(
      'missing',
      'extern "C" void ts_defined_nowhere();\nextern "C" void g() { ts_defined_nowhere(); }\n',
    );
    expect(check(so)).toThrow(
      /needs 1 symbol\(s\) that no aarch64 .* load it: ts_defined_nowhere\. If step\.cc was edited/,
    );
  });

  it('names a needed library that no aarch64 folder holds', () => {
    const dep = crossCompile('gone', 'extern "C" int gone() { return 1; }\n');
    const so = crossCompile('needs-gone', 'extern "C" int gone();\nextern "C" int h() { return gone(); }\n', [
      `-L${work}`,
      '-lgone',
    ]);
    rmSync(dep);
    expect(check(so)).toThrow(
      /needs libgone\.so, which no aarch64 \(aarch64-linux-gnu\) library here provides/,
    );
  });

  it('passes over a library of the right name built for this x86_64 machine', () => {
    crossCompile('dual', 'extern "C" int dual() { return 2; }\n');
    const so = crossCompile('needs-dual', 'extern "C" int dual();\nextern "C" int d() { return dual(); }\n', [
      `-L${work}`,
      '-ldual',
      '-Wl,-rpath,$ORIGIN',
    ]);
    expect(check(so)).not.toThrow();
    // The same name beside it, now built by this machine's compiler: the aarch64 loader would skip it.
    writeFileSync(join(work, 'dual.c'), 'int dual(void) { return 2; }\n');
    execFileSync('cc', ['-shared', '-fPIC', '-o', join(work, 'libdual.so'), join(work, 'dual.c')]);
    expect(check(so)).toThrow(
      /needs libdual\.so, which no aarch64 \(aarch64-linux-gnu\) library here provides/,
    );
  });

  it("accepts llama.cpp's prebuilt aarch64 libraries from npm (each resolves beside the others)", () => {
    const bins = llamaBinsDir(llamaCacheDir(ROOT), AARCH64);
    const libraries = readdirSync(bins).filter((f) => /^lib(llama\.|ggml)/.test(f));
    expect(libraries.length).toBeGreaterThanOrEqual(4);
    for (const library of libraries) expect(check(join(bins, library))).not.toThrow();
  });

  it('fails `build` of a pipeline with target.arch aarch64 whose step.cc calls a function nothing defines', async () => {
    const sample = JSON.parse(
      readFileSync(join(ROOT, 'samples/gpt2-sim/gpt2-sim.pipeline.json'), 'utf8'),
    ) as Pipeline;
    delete sample.$schema;
    sample.target = { arch: 'aarch64' };
    const file = join(work, 'gpt2.pipeline.json');
    writeFileSync(file, JSON.stringify(sample));
    const repo = join(work, 'repo');
    expect(
      generateRepository({ pipelinePath: file, outDir: repo }).diagnostics.filter(
        (d) => d.severity === 'error',
      ),
    ).toEqual([]);
    appendFileSync(
      join(stepSourcesDir(repo), 'preprocessing', 'step.cc'),
      '\nextern "C" void ts_cross_probe_missing();\n' +
        'extern "C" __attribute__((visibility("default"), used)) void ts_cross_probe() { ts_cross_probe_missing(); }\n',
    );
    // The CLI without --arch: the pipeline's target.arch decides.
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((done) => {
      const child = spawn(process.execPath, [join(ROOT, 'bin/triton-studio.js'), 'build', repo], {
        cwd: ROOT,
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('close', (code) => done({ code, stderr }));
    });
    expect(stderr).toContain(`building native steps of ${repo} for aarch64 (pipeline target.arch)`);
    expect(stderr).toMatch(
      /preprocessing: libtriton_preprocessing\.so \(built for aarch64\) needs 1 symbol\(s\) .*: ts_cross_probe_missing\./,
    );
    expect(code).not.toBe(0);
  }, 600_000);
});
