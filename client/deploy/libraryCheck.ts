/**
 * A backend library is checked before it reaches a server: tritonserver dlopen()s what it is
 * given, and a truncated .so killed it with SIGBUS (2026-11-23). `libraryProblem` reads the ELF
 * header and tables' extents; `unresolvedProblem` resolves its undefined symbols. Neither needs a
 * tool, and both run the same before a local or remote deploy.
 */
import { basename } from 'node:path';
import {
  architectureOfMachine,
  hostArchitecture,
  readElfDynamic,
  resolveSymbols,
  systemLibraryDirs,
  type Architecture,
  type ElfDynamicInfo,
} from '../../generator/index.js';

/**
 * Why `bytes` (the file `path`) cannot be loaded as a backend library by a server running on
 * `server` (default: this machine), or undefined when it can.
 */
export function libraryProblem(
  path: string,
  bytes: Uint8Array,
  server: Architecture = hostArchitecture(),
): string | undefined {
  const name = basename(path);
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.length < 64 || buffer.readUInt32BE(0) !== 0x7f454c46) {
    return `${name} is not an ELF shared library (${buffer.length} bytes, no ELF header)`;
  }
  if (buffer[4] !== 2 || buffer[5] !== 1) {
    return `${name} is not a 64-bit little-endian ELF file, which tritonserver needs`;
  }
  const type = buffer.readUInt16LE(16);
  if (type !== 3) return `${name} is not a shared library (ELF type ${type}, expected ET_DYN)`;
  const machine = buffer.readUInt16LE(18);
  if (machine !== server.elfMachine) {
    const built = architectureOfMachine(machine);
    const found = built
      ? `${built.arch} (${built.elfName})`
      : `ELF machine ${machine}, which Triton does not run on`;
    return (
      `${name} is built for ${found}, but the server runs ${server.arch} (${server.elfName}): ` +
      `rebuild it with \`triton-studio build REPO --arch ${server.arch}\``
    );
  }
  const programHeaders = Number(buffer.readBigUInt64LE(32));
  const sectionHeaders = Number(buffer.readBigUInt64LE(40));
  const programEnd = programHeaders + buffer.readUInt16LE(54) * buffer.readUInt16LE(56);
  const sectionEnd = sectionHeaders + buffer.readUInt16LE(58) * buffer.readUInt16LE(60);
  if (programEnd > buffer.length || sectionEnd > buffer.length) {
    return (
      `${name} is truncated (${buffer.length} bytes; its tables end at byte ${Math.max(programEnd, sectionEnd)}): ` +
      'rebuild it with `triton-studio build REPO`'
    );
  }
  // Every loadable segment must lie inside the file too (a cut inside the code would SIGBUS at load).
  const count = buffer.readUInt16LE(56);
  const size = buffer.readUInt16LE(54);
  for (let i = 0; i < count; i++) {
    const at = programHeaders + i * size;
    if (buffer.readUInt32LE(at) !== 1) continue; // PT_LOAD
    const end = Number(buffer.readBigUInt64LE(at + 8)) + Number(buffer.readBigUInt64LE(at + 32));
    if (end > buffer.length) {
      return `${name} is truncated (${buffer.length} bytes; a loadable segment ends at byte ${end}): rebuild it with \`triton-studio build REPO\``;
    }
  }
  return undefined;
}

/**
 * Why the library's undefined symbols cannot all be resolved here, or undefined when they can.
 * Triton's own functions (TRITONSERVER_*, TRITONBACKEND_*) come from the server process and are
 * not looked for; everything else must be defined by a library it needs (DT_NEEDED, searched
 * in its RUNPATH, LD_LIBRARY_PATH and the system folders, transitively), at the symbol version
 * it asks for. A local server loads from this machine, so this is what its dlopen() would find.
 */
export function unresolvedProblem(
  path: string,
  bytes: Uint8Array,
  arch: Architecture = hostArchitecture(),
): string | undefined {
  const name = basename(path);
  let info: ElfDynamicInfo;
  try {
    info = readElfDynamic(bytes);
  } catch (error) {
    return `${name} cannot be read as a shared library (${(error as Error).message}): rebuild it with \`triton-studio build REPO\``;
  }
  const {
    missingLibraries,
    badVersions,
    missingSymbols: missing,
  } = resolveSymbols(path, info, {
    arch,
    searchDirs: [
      ...(process.env.LD_LIBRARY_PATH ?? '').split(':').filter(Boolean),
      ...systemLibraryDirs(arch),
    ],
    ignore: (symbol) => /^TRITON(SERVER|BACKEND)_/.test(symbol),
  });
  if (missingLibraries.length > 0) {
    return `${name} needs ${missingLibraries.join(', ')}, which cannot be found on this machine: install it, or rebuild the library here`;
  }
  if (badVersions.length > 0) {
    return `${name} needs ${badVersions.join(', ')}, which this machine's libraries do not offer: rebuild it on (or for) this system`;
  }
  if (missing.length > 0) {
    return (
      `${name} needs ${missing.length} symbol(s) that none of its libraries define, so Triton could not load it: ` +
      `${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', …' : ''}. Rebuild it with \`triton-studio build REPO\``
    );
  }
  return undefined;
}
