/**
 * Which tritonserver the local server runs: `tritonStudio.localServer.tritonserver`, else
 * `$TRITON_STUDIO_TRITONSERVER`, else the one Install Local Server put into global storage, else
 * none (client/ then looks in a checkout's `.venv`, which only a development copy has).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { TRITONSERVER_ENV } from '../../client/index.js';
import { readLocalServerSettings } from '../settings.js';
import type { StoragePaths } from './storage.js';

/** nvidia-pytriton's binary inside a Python environment, if installed there. */
export function installedTritonserver(venv: string): string | undefined {
  const lib = join(venv, 'lib');
  if (!existsSync(lib)) return undefined;
  for (const python of readdirSync(lib)
    .filter((d) => d.startsWith('python'))
    .sort()
    .reverse()) {
    const bin = join(lib, python, 'site-packages', 'pytriton', 'tritonserver', 'bin', 'tritonserver');
    if (existsSync(bin)) return bin;
  }
  return undefined;
}

export interface TritonserverChoice {
  binary?: string;
  /** Where it came from, for messages. */
  source: 'setting' | 'environment' | 'installed' | 'none';
}

export function chooseTritonserver(storage: StoragePaths): TritonserverChoice {
  const setting = readLocalServerSettings().tritonserver;
  if (setting) return { binary: setting, source: 'setting' };
  const env = process.env[TRITONSERVER_ENV];
  if (env) return { binary: env, source: 'environment' };
  const installed = installedTritonserver(storage.serverVenv);
  return installed ? { binary: installed, source: 'installed' } : { source: 'none' };
}
