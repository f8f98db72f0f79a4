/**
 * Loopback port probes for starting tritonserver: free ports to pick, a fixed port to check.
 */
import { createServer, type Server } from 'node:net';

/** A port the OS reports free on 127.0.0.1 right now (another process may still take it first). */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port!;
}

/**
 * `count` distinct ports the OS reports free on 127.0.0.1 right now, none of them in `taken`.
 * Every probe stays bound until all are, so the OS cannot hand out one port twice (probing one at
 * a time and closing in between can: a server then fails with "cannot listen … at the same port").
 */
export async function freePorts(count: number, taken: readonly number[] = []): Promise<number[]> {
  const probes: Server[] = [];
  const ports: number[] = [];
  try {
    while (ports.length < count) {
      const probe = createServer();
      probe.unref();
      probes.push(probe);
      const port = await new Promise<number>((resolvePort, reject) => {
        probe.once('error', reject);
        probe.listen(0, '127.0.0.1', () => {
          const address = probe.address();
          resolvePort(typeof address === 'object' && address ? address.port : 0);
        });
      });
      // A port the caller fixed elsewhere stays bound as a probe here, so the next draw differs.
      if (!taken.includes(port)) ports.push(port);
    }
    return ports;
  } finally {
    await Promise.all(probes.map((probe) => new Promise<void>((done) => probe.close(() => done()))));
  }
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
