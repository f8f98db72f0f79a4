/** The project root (where package.json is), found by walking up from this module. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

let cached: string | null | undefined;

/**
 * Triton Studio's own package folder (holding its package.json), found from this file's
 * location so it works from sources, the bundle and an installed extension alike; `null` when
 * not found. Used for the default tokenizer cache and npm-shipped tokenizers.
 */
export function projectRoot(): string | null {
  if (cached !== undefined) return cached;
  if (process.env.TRITON_STUDIO_ROOT) return (cached = process.env.TRITON_STUDIO_ROOT);
  let dir = __dirname;
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'triton-studio') {
          return (cached = dir);
        }
      } catch {
        // unreadable package.json: keep walking up
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return (cached = null);
    dir = parent;
  }
}
