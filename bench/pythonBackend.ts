/**
 * The Python backend for bench baselines (never the product): a bench-owned copy of nvidia-pytriton's
 * server tree with the Python stub where Triton looks for it, and a venv from /usr/bin/python3.11
 * that models name with EXECUTION_ENV_PATH (Triton's Python backend looks for the stub in
 * backends/python/ and runs it with the interpreter of that environment).
 */
import { cpSync, existsSync, symlinkSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');

/** The tritonserver binary of a server tree (made once under `work`) that can run Python-backend models. */
export function pythonBackendServer(work: string): string {
  const pytriton = path.join(ROOT, '.venv/lib/python3.11/site-packages/pytriton');
  const tree = path.join(work, 'server/pytriton/tritonserver');
  if (!existsSync(tree)) {
    for (const d of ['bin', 'backends', 'caches'])
      cpSync(path.join(pytriton, 'tritonserver', d), path.join(tree, d), { recursive: true });
    cpSync(
      path.join(pytriton, 'tritonserver/python_backend_stubs/3.11/triton_python_backend_stub'),
      path.join(tree, 'backends/python/triton_python_backend_stub'),
    );
    symlinkSync(
      path.join(pytriton, '../nvidia_pytriton.libs'),
      path.join(work, 'server/nvidia_pytriton.libs'),
    );
  }
  return path.join(tree, 'bin/tritonserver');
}

/** A bench venv, or an error that says how to make it. */
export function benchVenv(venv: string, packages: string): string {
  if (!existsSync(path.join(venv, 'bin/python'))) {
    throw new Error(
      `${venv} missing: /usr/bin/python3.11 -m venv ${venv} && ${venv}/bin/pip install ${packages}`,
    );
  }
  return venv;
}
