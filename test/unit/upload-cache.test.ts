/** The copy of remote uploads a rollback re-sends (client/uploadCache.ts), on a real folder. */
import { mkdtempSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recallUpload, rememberUpload } from '../../client/deploy/uploadCache.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ts-upload-cache-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('upload cache', () => {
  it('gives back exactly the files of a build, by model and digest', () => {
    const files = {
      '1/libtriton_pre-0123456789ab.so': Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0]),
      '1/tokenizer.json': Buffer.from('{}'),
    };
    rememberUpload(dir, 'pre', 'aaaa1111', files);
    expect(recallUpload(dir, 'pre', 'aaaa1111')).toEqual(files);
    expect(recallUpload(dir, 'pre', 'bbbb2222')).toBeUndefined();
    expect(recallUpload(dir, 'post', 'aaaa1111')).toBeUndefined();
  });

  it('keeps the three newest builds of a model', () => {
    for (const [i, digest] of ['a1', 'b2', 'c3', 'd4'].entries()) {
      rememberUpload(dir, 'm', digest, { '1/x': Buffer.from(digest) });
      // Distinct ages without sleeping: each build is older than the next.
      const at = new Date(Date.now() - (10 - i) * 1000);
      utimesSync(join(dir, 'm', digest), at, at);
    }
    rememberUpload(dir, 'm', 'e5', { '1/x': Buffer.from('e5') });
    expect(readdirSync(join(dir, 'm')).sort()).toEqual(['c3', 'd4', 'e5']);
  });

  it('refuses names that would leave the cache folder, and never throws', () => {
    rememberUpload(dir, '../escape', 'aa', { '1/x': Buffer.from('x') });
    rememberUpload(dir, 'm', '../../x', { '1/x': Buffer.from('x') });
    rememberUpload(dir, 'm', 'aa', { '../../outside': Buffer.from('x') });
    expect(readdirSync(dir)).toEqual([]);
    expect(recallUpload(dir, '../escape', 'aa')).toBeUndefined();
  });
});
