/**
 * The package root, and paths of what the client ships beside its code (the .proto files, the
 * .venv/ tritonserver).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The project's package root (the folder holding triton-studio's package.json). Everything the
 * client ships next to its code (the .proto files, the default `.venv/` tritonserver) is resolved
 * from here, so the same code works from the TS sources (tsx), the esbuild bundle in `out/` and
 * an installed extension: all of them live somewhere below the package root.
 */
let cachedRoot: string | undefined;

export function packageRoot(): string {
  if (cachedRoot) return cachedRoot;
  const override = process.env.TRITON_STUDIO_ROOT;
  if (override) return (cachedRoot = override);
  let dir = __dirname;
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && isTritonStudioManifest(manifest)) return (cachedRoot = dir);
    const parent = dirname(dir);
    if (parent === dir) {
      throw new Error(
        `cannot find Triton Studio's package root above ${__dirname}: set TRITON_STUDIO_ROOT to the folder holding its package.json`,
      );
    }
    dir = parent;
  }
}

function isTritonStudioManifest(file: string): boolean {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === 'triton-studio';
  } catch {
    return false;
  }
}

/** A path inside the package, e.g. `fromPackageRoot('client', 'proto')`. */
export function fromPackageRoot(...segments: string[]): string {
  return join(packageRoot(), ...segments);
}
