/**
 * What the dynamic linker would do with a shared library, worked out from ELF tables alone (no
 * ldd, so it works for a library built for another CPU): find every library it needs (DT_NEEDED,
 * through RUNPATH and the given folders, transitively, skipping files built for another machine),
 * check the symbol versions it asks for are offered, and list the undefined symbols nothing
 * defines. Deploy's library check (client/deploy/libraryCheck.ts) and the build's check of a
 * cross-built library (targetSymbols.ts) both ask this.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Architecture } from './architectures.js';
import { readElfDynamic, type ElfDynamicInfo } from './elf.js';

export interface ResolutionOptions {
  /** The CPU the library runs on: needed files built for another machine are passed over. */
  arch: Architecture;
  /** Folders searched after the library's RUNPATH, in order (LD_LIBRARY_PATH, the system's). */
  searchDirs: string[];
  /**
   * Libraries already in the process that loads it (tritonserver's libtritonserver.so): their
   * symbols count as defined, as for a backend dlopen()ed by the server.
   */
  processLibraries?: string[];
  /** Undefined symbols not looked for (e.g. Triton's own functions when no server library is given). */
  ignore?: (symbol: string) => boolean;
}

export interface Resolution {
  /** Needed libraries found nowhere (or unreadable, with why). */
  missingLibraries: string[];
  /** Required versions the providing library does not offer: `GLIBC_2.38 (from libc.so.6)`. */
  badVersions: string[];
  /** Undefined, non-weak symbols no loaded library defines. */
  missingSymbols: string[];
}

/** The dynamic linker's view of `info` (the library at `path`) under `options`. */
export function resolveSymbols(path: string, info: ElfDynamicInfo, options: ResolutionOptions): Resolution {
  const machine = options.arch.elfMachine;
  const searchDirs = (runpath: string[], origin: string) => [
    ...runpath.filter(Boolean).map((d) => d.replace(/\$(ORIGIN|\{ORIGIN\})/g, origin)),
    ...options.searchDirs,
  ];
  const defined = new Set<string>();
  const versionsOf = new Map<string, Set<string>>();
  const missingLibraries: string[] = [];
  const queue: { needed: string; dirs: string[] }[] = info.needed.map((needed) => ({
    needed,
    dirs: searchDirs(info.runpath, dirname(path)),
  }));
  for (const file of options.processLibraries ?? []) {
    const lib = readElf(file);
    if (lib) for (const symbol of lib.defined) defined.add(symbol);
    else missingLibraries.push(`${file} (unreadable)`);
  }
  const seen = new Set<string>();
  while (queue.length > 0) {
    const { needed, dirs } = queue.shift()!;
    if (seen.has(needed)) continue;
    seen.add(needed);
    const candidates = needed.includes('/') ? [needed] : dirs.map((d) => join(d, needed));
    const file = candidates.find((f) => existsSync(f) && machineOf(f) === machine);
    const dep = file ? readElf(file) : undefined;
    if (!file || !dep) {
      missingLibraries.push(file ? `${needed} (${file} is unreadable)` : needed);
      continue;
    }
    for (const symbol of dep.defined) defined.add(symbol);
    versionsOf.set(needed, dep.definedVersions);
    for (const next of dep.needed) queue.push({ needed: next, dirs: searchDirs(dep.runpath, dirname(file)) });
  }
  const badVersions: string[] = [];
  for (const [file, versions] of info.requiredVersions) {
    const offered = versionsOf.get(file);
    for (const v of versions) if (offered && !offered.has(v)) badVersions.push(`${v} (from ${file})`);
  }
  const missingSymbols = info.undefined
    .filter((s) => !s.weak && !defined.has(s.name) && !options.ignore?.(s.name))
    .map((s) => s.name);
  return { missingLibraries, badVersions, missingSymbols };
}

/** Where the dynamic linker looks when a library names no path (Debian/Ubuntu multiarch first). */
export function systemLibraryDirs(arch: Architecture): string[] {
  const triple = arch.gnuTriple;
  // /usr/<triple>/lib: Debian's cross sysroot (libc6-<arch>-cross), beside the multiarch folders.
  return [`/lib/${triple}`, `/usr/lib/${triple}`, `/usr/${triple}/lib`, '/lib64', '/usr/lib64', '/lib', '/usr/lib'];
}

/** Parsed libraries by path, size and time: the system's libc and libstdc++ are read once. */
const parsed = new Map<string, ElfDynamicInfo | undefined>();

function readElf(file: string): ElfDynamicInfo | undefined {
  let key: string;
  try {
    const stat = statSync(file);
    key = `${file}\0${stat.size}\0${stat.mtimeMs}`;
  } catch {
    return undefined;
  }
  if (!parsed.has(key)) {
    try {
      parsed.set(key, readElfDynamic(readFileSync(file)));
    } catch {
      parsed.set(key, undefined);
    }
  }
  return parsed.get(key);
}

/** ELF e_machine of a file (0 when not ELF): multiarch systems hold one name for several CPUs. */
function machineOf(file: string): number {
  const head = Buffer.alloc(20);
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const read = readSync(fd, head, 0, 20, 0);
    return read === 20 && head.readUInt32BE(0) === 0x7f454c46 ? head.readUInt16LE(18) : 0;
  } catch {
    return 0;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
