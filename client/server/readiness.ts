/**
 * Whether a tritonserver just started is ready, and is the process that answers: the readiness
 * poll, the one GET it sends, and which process listens on a port.
 */
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { get as httpGet } from 'node:http';

/** Polls `url` until it answers 200 from `child` itself (listening on `port`), or `timeoutMs` passes. */
export async function waitReady(
  url: string,
  timeoutMs: number,
  child: ChildProcess,
  port: number,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    // Ready only while our process runs and holds the port: between picking a free port and a
    // slow start binding it, another process can take the port and answer (tritonserver logs
    // "Started HTTPService" before it binds, so its log cannot tell).
    if (
      (await answersOk(url)) &&
      child.exitCode === null &&
      child.signalCode === null &&
      listensOn(child.pid!, port) !== false
    )
      return true;
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

/**
 * Whether process `pid` holds a socket listening on `port`, read from Linux's /proc (a listening
 * socket's inode among the process's descriptors); undefined where /proc cannot tell (another
 * OS, another user's process).
 */
export function listensOn(pid: number, port: number): boolean | undefined {
  let tables: string;
  let descriptors: string[];
  try {
    tables = readFileSync('/proc/net/tcp', 'utf8') + readFileSync('/proc/net/tcp6', 'utf8');
    descriptors = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return undefined;
  }
  // Rows read "sl local_address rem_address st … inode": the address ends in the port in hex,
  // LISTEN is 0A.
  const portSuffix = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = new Set<string>();
  for (const row of tables.split('\n')) {
    const fields = row.trim().split(/\s+/);
    if (fields[1]?.endsWith(portSuffix) && fields[3] === '0A' && fields[9] !== undefined)
      inodes.add(fields[9]);
  }
  return descriptors.some((fd) => {
    try {
      return inodes.has(/^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1] ?? '');
    } catch {
      return false; // closed since the listing
    }
  });
}
