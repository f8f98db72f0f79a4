/**
 * startLocalServer against the real tritonserver (ready, stopped, its failures explained) and how
 * tritonserver is located.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  LocalServerError,
  TRITONSERVER_ENV,
  locateTritonServer,
  startLocalServer,
  type LocalServer,
} from '../../client/server/localServer.js';
import { freePorts } from '../../client/server/ports.js';

const scratch = mkdtempSync(join(tmpdir(), 'ts-server-test-'));
const emptyRepo = join(scratch, 'repo');
mkdirSync(emptyRepo);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function portAccepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

describe('startLocalServer (real tritonserver)', () => {
  it('starts on free loopback ports, answers health, metadata and metrics, and stops by PID', async () => {
    const server = await startLocalServer({ modelRepository: emptyRepo });
    try {
      expect(server.grpcUrl).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(new Set(Object.values(server.ports)).size).toBe(3);
      expect((await fetch(`${server.httpUrl}/v2/health/ready`)).status).toBe(200);
      const metadata = (await (await fetch(`${server.httpUrl}/v2`)).json()) as {
        name: string;
        version: string;
      };
      expect(metadata.name).toBe('triton');
      expect(metadata.version).toBe('2.51.0');
      expect(await (await fetch(server.metricsUrl)).text()).toContain('nv_');
      expect(await portAccepts(server.ports.grpc)).toBe(true);
      expect(isAlive(server.pid)).toBe(true);
    } finally {
      await server.stop();
    }
    expect(isAlive(server.pid)).toBe(false);
    expect(await portAccepts(server.ports.http)).toBe(false);
    await server.stop(); // stopping twice is harmless
  });

  it('runs two servers side by side on different ports', async () => {
    const servers: LocalServer[] = [];
    try {
      servers.push(await startLocalServer({ modelRepository: emptyRepo }));
      servers.push(await startLocalServer({ modelRepository: emptyRepo }));
      const [a, b] = servers;
      expect(a!.ports.http).not.toBe(b!.ports.http);
      expect(a!.ports.grpc).not.toBe(b!.ports.grpc);
      for (const s of servers) expect((await fetch(`${s.httpUrl}/v2/health/live`)).status).toBe(200);
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
  });

  it('fails with the server log tail when a model cannot load at start', async () => {
    const error = await startLocalServer({ modelRepository: emptyRepo, loadModels: ['no_such_model'] }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LocalServerError);
    const e = error as LocalServerError;
    expect(e.message).toMatch(/tritonserver exited with \d+ before it was ready/);
    expect(e.logTail).toContain('no_such_model');
    expect(e.message).toContain(e.logTail);
  });

  it('fails fast when the server does not get ready in time, and leaves no process behind', async () => {
    const error = (await startLocalServer({ modelRepository: emptyRepo, startupTimeoutMs: 1 }).catch(
      (e: unknown) => e,
    )) as LocalServerError;
    expect(error).toBeInstanceOf(LocalServerError);
    expect(error.message).toContain('did not become ready within');
    expect(error.pid).toBeGreaterThan(0);
    expect(isAlive(error.pid!)).toBe(false);
  });

  it('does not take another process answering on its HTTP port for itself (the port taken after the check)', async () => {
    const [http] = await freePorts(1);
    const logFile = join(scratch, 'taken-port.log');
    const starting = startLocalServer({ modelRepository: emptyRepo, httpPort: http, logFile }).catch(
      (e: unknown) => e,
    );
    // tritonserver is spawned once its log is opened; it binds its ports only after loading.
    while (!existsSync(logFile)) await new Promise((r) => setTimeout(r, 5));
    let asked = 0;
    const other = createServer((_, res) => (asked++, res.end()));
    await new Promise<void>((done) => other.listen(http, '127.0.0.1', done));
    try {
      const error = (await starting) as LocalServerError;
      expect(asked, 'the other process answered the readiness poll').toBeGreaterThan(0);
      expect(error).toBeInstanceOf(LocalServerError);
      expect(error.message).toMatch(/a port is already in use/);
      expect(isAlive(error.pid!)).toBe(false);
    } finally {
      other.close();
    }
  });

  it('names a missing model repository and how to make one', async () => {
    await expect(startLocalServer({ modelRepository: join(scratch, 'nope') })).rejects.toThrow(
      /model repository .*nope does not exist: generate one first/,
    );
  });
});

describe('locating tritonserver', () => {
  it('finds the project .venv installation with its backend, cache and library folders', () => {
    const found = locateTritonServer();
    expect(found.binary).toMatch(/pytriton\/tritonserver\/bin\/tritonserver$/);
    expect(found.backendDirectory).toMatch(/tritonserver\/backends$/);
    expect(found.cacheDirectory).toMatch(/tritonserver\/caches$/);
    expect(found.libraryDirectories[0]).toMatch(/nvidia_pytriton\.libs$/);
  });

  it('says where it looked and how to install when the binary is missing', () => {
    expect(() => locateTritonServer(join(scratch, 'bin', 'tritonserver'))).toThrow(
      /tritonserver not found at .*bin\/tritonserver \(from the tritonserver option\): run `npm run setup`/,
    );
  });

  it('honours the environment override', () => {
    const saved = process.env[TRITONSERVER_ENV];
    process.env[TRITONSERVER_ENV] = join(scratch, 'elsewhere', 'tritonserver');
    try {
      expect(() => locateTritonServer()).toThrow(
        /elsewhere\/tritonserver \(from \$TRITON_STUDIO_TRITONSERVER\)/,
      );
    } finally {
      if (saved === undefined) delete process.env[TRITONSERVER_ENV];
      else process.env[TRITONSERVER_ENV] = saved;
    }
  });

  it('names the missing shared library when the binary is copied away from its libraries', async () => {
    const install = join(scratch, 'bare-install');
    for (const d of ['bin', 'backends', 'caches']) mkdirSync(join(install, d), { recursive: true });
    copyFileSync(locateTritonServer().binary, join(install, 'bin', 'tritonserver'));
    const error = (await startLocalServer({
      modelRepository: emptyRepo,
      tritonserver: join(install, 'bin', 'tritonserver'),
    }).catch((e: unknown) => e)) as LocalServerError;
    expect(error).toBeInstanceOf(LocalServerError);
    expect(error.message).toMatch(/tritonserver cannot load the library lib\S+\.so\S*: run `npm run setup`/);
  });
});
