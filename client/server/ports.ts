/**
 * Loopback port probes for starting tritonserver: a free port to pick, a fixed port to check.
 */
import { createServer } from 'node:net';

/** A port the OS reports free on 127.0.0.1 right now (another process may still take it first). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolvePort(port));
    });
  });
}

/** True when nothing listens on 127.0.0.1:port (checked by binding it for a moment). */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolveFree) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', () => resolveFree(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolveFree(true)));
  });
}
