/** docs/GPU.md's container table is the one `build` holds libraries to (generator/build/containers.ts). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTAINER_GENERATIONS } from '../../generator/build/containers.js';

describe('supported Triton containers', () => {
  it('docs/GPU.md lists exactly the generations build checks against', () => {
    const doc = readFileSync(join(__dirname, '../../docs/GPU.md'), 'utf8');
    const rows = [
      ...doc.matchAll(
        /^\| (\d\d\.\d\d[^|]*) \| ([^|]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \/ ([\d.]+) \| ([^|]+) \|$/gm,
      ),
    ].map((m) => m.slice(1).map((c) => c.trim()));
    expect(rows).toEqual(
      CONTAINER_GENERATIONS.map((g) => [
        g.tags,
        g.triton,
        g.ubuntu,
        g.glibc,
        g.glibcxx,
        g.cxxabi,
        g.platforms.join(', '),
      ]),
    );
  });
});
