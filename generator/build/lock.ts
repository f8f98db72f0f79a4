/**
 * A lock on a build folder shared by processes: two builds writing one CMake build tree at once
 * corrupt it (the CLI, the extension and test runs may all build at the same time). The lock is a
 * directory (mkdir is atomic) holding the owner's pid, so a lock left by a crashed process is
 * recognised and taken over.
 */
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { BuildError } from './run.js';

const POLL_MS = 200;

export async function withDirectoryLock<T>(lockDir: string, timeoutMs: number, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(`${lockDir}/pid`, String(process.pid));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (isStale(lockDir)) {
        rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new BuildError(
          `another build has held ${lockDir} for over ${Math.round(timeoutMs / 1000)} s; wait for it to finish, ` +
            'or delete that folder if no build is running',
        );
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

function isStale(lockDir: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(`${lockDir}/pid`, 'utf8'));
  } catch {
    // No pid yet: being created right now, unless its creator died in between long ago.
    try {
      return Date.now() - statSync(lockDir).mtimeMs > 10_000;
    } catch {
      return false;
    }
  }
  if (!Number.isInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
