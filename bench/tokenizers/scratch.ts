/**
 * Temporary tokenizer files a parity check writes for both libraries to load: one folder, removed
 * by `removeScratchTokenizers` (a test file's afterAll: a test worker is killed, not exited) or
 * else when the process exits.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

let folder: string | undefined;
let written = 0;

export function removeScratchTokenizers(): void {
  if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
  folder = undefined;
}

/** Writes `json` to a new file in this process's scratch folder and returns its path. */
export function writeScratchTokenizer(json: unknown): string {
  if (folder === undefined) {
    folder = mkdtempSync(path.join(tmpdir(), 'ts-tokenizer-scratch-'));
    process.once('exit', removeScratchTokenizers);
  }
  const file = path.join(folder, `${++written}-tokenizer.json`);
  writeFileSync(file, JSON.stringify(json));
  return file;
}
