/**
 * `triton-studio server start|stop|status|logs` as users run it (child processes, the real
 * tritonserver): one shared server found through its state file, a crashed one recognised and
 * replaced, busy ports named at once, and a stop that leaves nothing of the server behind.
 */
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, locateTritonServer, portIsFree } from '../../client/server/localServer.js';

const ROOT = resolve(__dirname, '../..');
const BIN = join(ROOT, 'bin/triton-studio.js');
const stateDir = mkdtempSync(join(tmpdir(), 'ts-shared-server-'));

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env: { ...process.env, TRITON_STUDIO_STATE_DIR: stateDir },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => done({ code, stdout, stderr, ms: Date.now() - started }));
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Runs, as opposed to exited: a killed process may stay a zombie until init reaps it. */
function isRunning(pid: number): boolean {
  if (!isAlive(pid)) return false;
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

function listen(port: number): Promise<Server> {
  return new Promise((done) => {
    const server = createServer();
    server.listen(port, '127.0.0.1', () => done(server));
  });
}

afterAll(async () => {
  await cli(['server', 'stop']);
  rmSync(stateDir, { recursive: true, force: true });
});

describe('triton-studio server', () => {
  it('starts one shared server in the background, reuses it, reports it, and stops it completely', async () => {
    const none = await cli(['server', 'status']);
    expect(none.code).toBe(1);
    expect(none.stdout).toContain('not running: start it with `triton-studio server start`');

    const start = await cli(['server', 'start', '--json']);
    expect(start.code, start.stderr).toBe(0);
    const server = JSON.parse(start.stdout) as {
      pid: number;
      grpcUrl: string;
      httpUrl: string;
      started: boolean;
    };
    expect(server.started).toBe(true);
    // The CLI process has exited; the server outlives it and answers.
    expect(isAlive(server.pid)).toBe(true);
    expect((await fetch(`${server.httpUrl}/v2/health/ready`)).status).toBe(200);

    const again = await cli(['server', 'start', '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({
      started: false,
      pid: server.pid,
      grpcUrl: server.grpcUrl,
    });

    const status = await cli(['server', 'status', '--json']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      ok: true,
      state: 'running',
      server: { pid: server.pid },
    });

    const logs = await cli(['server', 'logs', '--lines', '200']);
    expect(logs.code).toBe(0);
    expect(logs.stdout).toMatch(/Started GRPCInferenceService at 127\.0\.0\.1:\d+/);

    const stop = await cli(['server', 'stop']);
    expect(stop.code).toBe(0);
    expect(stop.stdout).toContain(`stopped the shared tritonserver ${server.pid}`);
    expect(isAlive(server.pid)).toBe(false);
    expect(await portIsFree(Number(server.grpcUrl.split(':')[1]))).toBe(true);
    expect(existsSync(join(stateDir, 'server.json'))).toBe(false);
    expect((await cli(['server', 'stop'])).stdout).toContain('no shared server was running');
  });

  it('recognises a crashed server from its state file and replaces it on the next start', async () => {
    const first = JSON.parse((await cli(['server', 'start', '--json'])).stdout) as { pid: number };
    process.kill(-first.pid, 'SIGKILL'); // a crash: no chance to clean up
    while (isAlive(first.pid)) await new Promise((r) => setTimeout(r, 50));

    const status = await cli(['server', 'status']);
    expect(status.code).toBe(1);
    expect(status.stdout).toContain(
      `not running: the shared tritonserver ${first.pid} exited without being stopped (crashed or killed)`,
    );

    const start = await cli(['server', 'start', '--json']);
    expect(start.code, start.stderr).toBe(0);
    expect(start.stderr).toContain(`note: the previous shared server (pid ${first.pid}`);
    const second = JSON.parse(start.stdout) as { pid: number; started: boolean };
    expect(second.started).toBe(true);
    expect(second.pid).not.toBe(first.pid);
    expect((await cli(['server', 'stop'])).code).toBe(0);
  });

  it("stops the whole process group: a backend stub that ignores SIGTERM goes with the server, and a crashed server's stub goes on the next start", async () => {
    // A tritonserver whose group holds a stand-in for a Python-backend stub: a child that ignores
    // SIGTERM and would outlive the server if only the server's pid were signalled.
    const real = locateTritonServer();
    const tree = join(stateDir, 'stub-tree');
    mkdirSync(join(tree, 'bin'), { recursive: true });
    symlinkSync(real.backendDirectory, join(tree, 'backends'));
    symlinkSync(real.cacheDirectory, join(tree, 'caches'));
    const stubPidFile = join(tree, 'stub.pid');
    writeFileSync(
      join(tree, 'bin', 'tritonserver'),
      '#!/bin/sh\n' +
        `sh -c 'trap "" TERM; echo $$ > ${stubPidFile}; while :; do sleep 1; done' &\n` +
        `export LD_LIBRARY_PATH=${real.libraryDirectories.join(':')}\${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\n` +
        `exec ${real.binary} "$@"\n`,
      { mode: 0o755 },
    );
    const startWithStub = async () => {
      rmSync(stubPidFile, { force: true });
      const start = await cli([
        'server',
        'start',
        '--json',
        '--tritonserver',
        join(tree, 'bin', 'tritonserver'),
      ]);
      expect(start.code, start.stderr).toBe(0);
      const stub = Number(readFileSync(stubPidFile, 'utf8'));
      const server = JSON.parse(start.stdout) as { pid: number };
      expect(isRunning(stub)).toBe(true);
      return { server: server.pid, stub };
    };

    const first = await startWithStub();
    expect((await cli(['server', 'stop'])).code).toBe(0);
    expect(isAlive(first.server)).toBe(false);
    expect(isRunning(first.stub)).toBe(false);

    // A crash of the server alone leaves its stub; the next start says so and clears it.
    const second = await startWithStub();
    process.kill(second.server, 'SIGKILL');
    while (isAlive(second.server)) await new Promise((r) => setTimeout(r, 50));
    expect(isRunning(second.stub)).toBe(true);
    const start = await cli(['server', 'start', '--json']);
    expect(start.code, start.stderr).toBe(0);
    expect(start.stderr).toContain(`note: the previous shared server (pid ${second.server}`);
    expect(isRunning(second.stub)).toBe(false);
    expect((await cli(['server', 'stop'])).code).toBe(0);
  });

  it('never takes a program that got the recorded pid for the server: stale, replaced, and left running', async () => {
    // A state file naming a pid the system gave to another program (after a reboot or crash).
    const other = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
    try {
      const state = {
        pid: other.pid,
        grpcUrl: '127.0.0.1:1',
        httpUrl: 'http://127.0.0.1:1',
        metricsUrl: 'http://127.0.0.1:1/metrics',
        ports: { http: 1, grpc: 1, metrics: 1 },
        logFile: join(stateDir, 'gone.log'),
        modelRepository: stateDir,
        startedAt: '2026-11-23T00:00:00.000Z',
      };
      writeFileSync(join(stateDir, 'server.json'), JSON.stringify(state));
      const status = await cli(['server', 'status']);
      expect(status.code).toBe(1);
      expect(status.stdout).toContain(`the shared tritonserver ${other.pid} exited without being stopped`);
      const start = await cli(['server', 'start', '--json']);
      expect(start.code, start.stderr).toBe(0);
      expect(JSON.parse(start.stdout)).toMatchObject({ started: true });
      expect((await cli(['server', 'stop'])).code).toBe(0);
      expect(isAlive(other.pid!)).toBe(true);
      // A stop with only the stale file left does not touch it either.
      writeFileSync(join(stateDir, 'server.json'), JSON.stringify(state));
      expect((await cli(['server', 'stop'])).code).toBe(0);
      expect(isAlive(other.pid!)).toBe(true);
    } finally {
      other.kill('SIGKILL');
    }
  });

  it.each([
    ['HTTP', '--http-port'],
    ['gRPC', '--grpc-port'],
  ])('names a busy %s port at once and starts nothing', async (what, flag) => {
    const port = await freePort();
    const other = await listen(port);
    try {
      const start = await cli(['server', 'start', flag, String(port)]);
      expect(start.code).toBe(1);
      expect(start.stderr).toContain(`the ${what} port ${port} is already in use on 127.0.0.1`);
      expect(start.stderr).toContain(`pass another ${flag}`);
      expect(start.ms).toBeLessThan(10_000);
      expect((await cli(['server', 'status'])).stdout).toContain('not running');
    } finally {
      other.close();
    }
  });

  it('serve refuses a busy HTTP port by name instead of announcing the other server', async () => {
    const port = await freePort();
    const other = await listen(port);
    try {
      const serve = await cli(['serve', stateDir, '--http-port', String(port), '--no-load']);
      expect(serve.code).toBe(1);
      expect(serve.stderr).toContain(`the HTTP port ${port} is already in use`);
      expect(serve.stdout).not.toContain('gRPC');
    } finally {
      other.close();
    }
  });
});
