/** The last lines of a server log, for error messages. */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** The last `maxLines` lines of a log file (reads at most the last 64 KiB); '' if unreadable. */
export function readLogTail(file: string, maxLines = 30): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const size = fstatSync(fd).size;
    const length = Math.min(size, 64 * 1024);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const lines = buffer.toString('utf8').split('\n');
    while (lines.length > 0 && lines[lines.length - 1]?.trim() === '') lines.pop();
    return lines.slice(-maxLines).join('\n');
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
