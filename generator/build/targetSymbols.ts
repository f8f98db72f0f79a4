/**
 * A library cross-built for another CPU cannot be tried here (`ldd -r` runs the library's own
 * dynamic loader), and a backend links even with symbols missing: without this check a missing
 * symbol would first show as a load failure on the GB200. So every library a cross build ships is
 * resolved from ELF tables against the target's own libraries: the step's neighbours in its
 * version folder, the arm64 glibc/libstdc++ Debian multiarch installs (their versions are held to
 * the container table's by containers.ts), and the target tritonserver's libtritonserver.so for
 * Triton's own functions (from nvidia-pytriton's wheel, `npm run setup -- --cross ARCH`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Architecture } from './architectures.js';
import { readElfDynamic } from './elf.js';
import { BuildError } from './run.js';
import { resolveSymbols, systemLibraryDirs } from './symbolResolution.js';

const TRITON_FUNCTION = /^TRITON(SERVER|BACKEND)_/;

/**
 * The target server's libtritonserver.so, where scripts/install-cross.sh unpacks nvidia-pytriton's
 * wheel (`.cache/tritonserver-<arch>/nvidia_pytriton.libs/libtritonserver-<hash>.so`), if there.
 */
export function targetTritonLibrary(projectRoot: string, arch: Architecture): string | undefined {
  const libs = join(projectRoot, '.cache', `tritonserver-${arch.arch}`, 'nvidia_pytriton.libs');
  if (!existsSync(libs)) return undefined;
  const file = readdirSync(libs).find((f) => /^libtritonserver(-[0-9a-f]+)?\.so$/.test(f));
  return file ? join(libs, file) : undefined;
}

/**
 * Throws a BuildError naming what `library` (built for `arch`) needs that the target's libraries
 * do not define. `tritonLibrary`: the target's libtritonserver.so; without it Triton's functions
 * are taken on trust (as the server provides them) and everything else is still checked.
 */
export function checkTargetSymbols(
  model: string,
  library: string,
  arch: Architecture,
  tritonLibrary: string | undefined,
): void {
  const name = basename(library);
  const info = readElfDynamic(readFileSync(library));
  const { missingLibraries, badVersions, missingSymbols } = resolveSymbols(library, info, {
    arch,
    searchDirs: systemLibraryDirs(arch),
    processLibraries: tritonLibrary ? [tritonLibrary] : [],
    ...(tritonLibrary ? {} : { ignore: (symbol: string) => TRITON_FUNCTION.test(symbol) }),
  });
  const where = `${arch.arch} (${arch.gnuTriple})`;
  if (missingLibraries.length > 0) {
    throw new BuildError(
      `${model}: ${name} (built for ${arch.arch}) needs ${missingLibraries.join(', ')}, which no ${where} library ` +
        `here provides, so the ${arch.arch} server could not load it. Install the ${arch.debianArch} package that ` +
        `holds it (\`npm run setup -- --cross ${arch.arch}\` installs those in backends/DEPENDENCIES.txt), or link it statically`,
    );
  }
  if (badVersions.length > 0) {
    throw new BuildError(
      `${model}: ${name} (built for ${arch.arch}) needs ${badVersions.join(', ')}, which the ${where} libraries do not offer`,
    );
  }
  if (missingSymbols.length > 0) {
    const triton = missingSymbols.filter((s) => TRITON_FUNCTION.test(s));
    const from = triton.length > 0 ? ` (Triton functions checked against ${basename(tritonLibrary!)})` : '';
    throw new BuildError(
      `${model}: ${name} (built for ${arch.arch}) needs ${missingSymbols.length} symbol(s) that no ${where} ` +
        `library defines${from}, so the ${arch.arch} server would refuse to load it: ` +
        `${missingSymbols.slice(0, 5).join(', ')}${missingSymbols.length > 5 ? ', …' : ''}. If step.cc was edited, ` +
        'regenerate it; a Triton function missing means the server is older than the step needs',
    );
  }
}
