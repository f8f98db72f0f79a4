/**
 * A backend library is checked before it reaches a server: tritonserver dlopen()s what it is
 * given, and a truncated .so killed it with SIGBUS (2026-11-23). The check reads the ELF header
 * and tables' extents only; it needs no tool and runs the same before a local or remote deploy.
 */
import { basename } from 'node:path';

/** e_machine of the architectures Node runs on that Triton ships for. */
const MACHINES: Record<string, { code: number; name: string }> = {
  x64: { code: 62, name: 'x86-64' },
  arm64: { code: 183, name: 'AArch64' },
};

/** Why `bytes` (the file `path`) cannot be loaded as a backend library here, or undefined when it can. */
export function libraryProblem(
  path: string,
  bytes: Uint8Array,
  arch: string = process.arch,
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
  const expected = MACHINES[arch];
  if (expected && machine !== expected.code) {
    const found = Object.values(MACHINES).find((m) => m.code === machine)?.name ?? `machine ${machine}`;
    return `${name} is built for ${found}, not ${expected.name}: rebuild it on (or for) the server's architecture`;
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
