/** Whether a tritonserver answers ready: the probe the local and the shared server both use. */
import type { ChildProcess } from 'node:child_process';
import { get as httpGet } from 'node:http';

/** Polls `url` until it answers 200 while `child` still runs; false once `timeoutMs` has passed. */
export async function waitReady(url: string, timeoutMs: number, child: ChildProcess): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    // Ready only while our process still runs: a ready answer from a dying server is not ours.
    if ((await answersOk(url)) && child.exitCode === null && child.signalCode === null) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

/**
 * One GET on a connection of its own, closed afterwards. (fetch would keep the connection
 * alive in its pool, and tritonserver waits for open HTTP connections on shutdown: ~5 s more.)
 */
export function answersOk(url: string): Promise<boolean> {
  return new Promise((resolveOk) => {
    const request = httpGet(
      url,
      { agent: false, headers: { connection: 'close' }, timeout: 2_000 },
      (response) => {
        response.resume();
        resolveOk(response.statusCode === 200);
      },
    );
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolveOk(false));
  });
}
