/**
 * The dynamic-linking facts of an ELF shared library, read in TypeScript (no binutils needed):
 * the libraries it needs (DT_NEEDED, DT_RUNPATH), the symbols it leaves undefined or defines, and
 * the symbol versions it requires (SHT_GNU_verneed: `GLIBC_2.34` from libc.so.6, `GLIBCXX_3.4.30`
 * from libstdc++.so.6) or defines (SHT_GNU_verdef). 64-bit little-endian only (what Triton runs on).
 */

export interface ElfSymbol {
  name: string;
  weak: boolean;
  /** The required version for an undefined symbol (`GLIBC_2.34`), when versioned. */
  version?: string;
}

export interface ElfDynamicInfo {
  needed: string[];
  runpath: string[];
  undefined: ElfSymbol[];
  defined: Set<string>;
  /** Required versions per needed file: `libc.so.6` → [`GLIBC_2.2.5`, `GLIBC_2.34`]. */
  requiredVersions: Map<string, string[]>;
  /** Versions this library defines (for a needed library: what it offers). */
  definedVersions: Set<string>;
}

const SHT_DYNSYM = 11;
const SHT_DYNAMIC = 6;
const SHT_GNU_VERDEF = 0x6ffffffd;
const SHT_GNU_VERNEED = 0x6ffffffe;
const SHT_GNU_VERSYM = 0x6fffffff;
const DT_NEEDED = 1;
const DT_RPATH = 15;
const DT_RUNPATH = 29;

export class ElfError extends Error {}

interface Section {
  type: number;
  offset: number;
  size: number;
  link: number;
  entsize: number;
  info: number;
}

export function readElfDynamic(bytes: Uint8Array): ElfDynamicInfo {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length < 64 || b.readUInt32BE(0) !== 0x7f454c46) throw new ElfError('no ELF header');
  if (b[4] !== 2 || b[5] !== 1) throw new ElfError('not a 64-bit little-endian ELF file');
  const shoff = Number(b.readBigUInt64LE(40));
  const shentsize = b.readUInt16LE(58);
  const shnum = b.readUInt16LE(60);
  if (shoff + shnum * shentsize > b.length) throw new ElfError('its section table lies beyond the end of the file');
  const sections: Section[] = [];
  for (let i = 0; i < shnum; i++) {
    const at = shoff + i * shentsize;
    sections.push({
      type: b.readUInt32LE(at + 4),
      offset: Number(b.readBigUInt64LE(at + 24)),
      size: Number(b.readBigUInt64LE(at + 32)),
      link: b.readUInt32LE(at + 40),
      info: b.readUInt32LE(at + 44),
      entsize: Number(b.readBigUInt64LE(at + 56)),
    });
  }
  for (const s of sections) {
    if (s.type !== 8 /* NOBITS */ && s.offset + s.size > b.length)
      throw new ElfError('a section lies beyond the end of the file (truncated)');
  }
  const string = (table: Section | undefined, offset: number): string => {
    if (!table) return '';
    const start = table.offset + offset;
    const end = b.indexOf(0, start);
    return b.toString('latin1', start, end < 0 || end > table.offset + table.size ? start : end);
  };
  const find = (type: number) => sections.find((s) => s.type === type);

  const info: ElfDynamicInfo = {
    needed: [],
    runpath: [],
    undefined: [],
    defined: new Set(),
    requiredVersions: new Map(),
    definedVersions: new Set(),
  };

  const dynamic = find(SHT_DYNAMIC);
  if (dynamic) {
    const strtab = sections[dynamic.link];
    for (let at = dynamic.offset; at + 16 <= dynamic.offset + dynamic.size; at += 16) {
      const tag = Number(b.readBigInt64LE(at));
      const value = Number(b.readBigUInt64LE(at + 8));
      if (tag === 0) break;
      if (tag === DT_NEEDED) info.needed.push(string(strtab, value));
      if (tag === DT_RUNPATH || tag === DT_RPATH) info.runpath.push(...string(strtab, value).split(':'));
    }
  }

  // Version indices → names, from verneed (required) and verdef (defined).
  const versionNames = new Map<number, string>();
  const verneed = find(SHT_GNU_VERNEED);
  if (verneed) {
    const strtab = sections[verneed.link];
    let at = verneed.offset;
    for (let n = 0; n < verneed.info; n++) {
      const count = b.readUInt16LE(at + 2);
      const file = string(strtab, b.readUInt32LE(at + 4));
      const versions: string[] = [];
      let aux = at + b.readUInt32LE(at + 8);
      for (let k = 0; k < count; k++) {
        const name = string(strtab, b.readUInt32LE(aux + 8));
        versionNames.set(b.readUInt16LE(aux + 6) & 0x7fff, name);
        versions.push(name);
        aux += b.readUInt32LE(aux + 12);
      }
      info.requiredVersions.set(file, versions);
      const next = b.readUInt32LE(at + 12);
      if (next === 0) break;
      at += next;
    }
  }
  const verdef = find(SHT_GNU_VERDEF);
  if (verdef) {
    const strtab = sections[verdef.link];
    let at = verdef.offset;
    for (let n = 0; n < verdef.info; n++) {
      const flags = b.readUInt16LE(at + 2);
      const aux = at + b.readUInt32LE(at + 12);
      // The first definition (VER_FLG_BASE) is the file's own name, not a version.
      if ((flags & 1) === 0) info.definedVersions.add(string(strtab, b.readUInt32LE(aux)));
      const next = b.readUInt32LE(at + 16);
      if (next === 0) break;
      at += next;
    }
  }

  const dynsym = find(SHT_DYNSYM);
  if (dynsym) {
    const strtab = sections[dynsym.link];
    const versym = find(SHT_GNU_VERSYM);
    const entsize = dynsym.entsize || 24;
    const count = Math.floor(dynsym.size / entsize);
    for (let i = 1; i < count; i++) {
      const at = dynsym.offset + i * entsize;
      const name = string(strtab, b.readUInt32LE(at));
      if (!name) continue;
      const binding = b[at + 4]! >> 4;
      if (binding === 0) continue; // local
      const shndx = b.readUInt16LE(at + 6);
      if (shndx === 0) {
        const index = versym ? b.readUInt16LE(versym.offset + i * 2) & 0x7fff : 0;
        const version = versionNames.get(index);
        info.undefined.push({ name, weak: binding === 2, ...(version && { version }) });
      } else info.defined.add(name);
    }
  }
  return info;
}

/** `GLIBC_2.34` → [2, 34]; compares dotted versions numerically. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
