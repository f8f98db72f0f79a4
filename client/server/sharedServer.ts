/**
 * The shared local tritonserver: one server that `triton-studio server start` leaves running and
 * that the CLI and the VS Code extension both find through a small state file, instead of each
 * starting its own. It serves an empty repository of its own by default: deploy uploads models.
 *
 * The state file says which process to talk to; it is only trusted while that process still runs
 * and answers on its address. A state file whose server is gone (crashed, killed, machine
 * restarted) is reported as stale and replaced by the next start.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { killGroup, LocalServerError, startLocalServer, type LocalServerOptions } from './localServer.js';
import { readLogTail } from './logTail.js';
import { answersOk } from './readiness.js';

/** Environment variable naming the folder of the state file (default ~/.local/state/triton-studio). */
export const STATE_DIR_ENV = 'TRITON_STUDIO_STATE_DIR';

export interface SharedServerState {
  pid: number;
  grpcUrl: string;
  httpUrl: string;
  metricsUrl: string;
  ports: { http: number; grpc: number; metrics: number };
  logFile: string;
  modelRepository: string;
  startedAt: string;
}

export type SharedServerStatus =
  | { state: 'running'; server: SharedServerState }
  /** The process runs but does not answer ready (starting, or hung). */
  | { state: 'not-ready'; server: SharedServerState }
  /** The state file names a server that no longer runs: it crashed or was killed. */
  | { state: 'stale'; server: SharedServerState; logTail: string }
  | { state: 'stopped' };

export function sharedStateDir(): string {
  return (
    process.env[STATE_DIR_ENV] ??
    join(process.env.XDG_STATE_HOME ?? join(homedir(), '.local', 'state'), 'triton-studio')
  );
}

function stateFile(): string {
  return join(sharedStateDir(), 'server.json');
}

function readState(): SharedServerState | undefined {
  try {
    const state = JSON.parse(readFileSync(stateFile(), 'utf8')) as SharedServerState;
    return Number.isInteger(state.pid) && typeof state.grpcUrl === 'string' ? state : undefined;
  } catch {
    return undefined;
  }
}

function writeState(state: SharedServerState): void {
  mkdirSync(sharedStateDir(), { recursive: true });
  const temporary = `${stateFile()}.tmp-${process.pid}`;
  writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(temporary, stateFile()); // readers never see half a file
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The recorded server still runs: its pid is alive and is the server started on the recorded
 * repository (its command line holds `--model-repository=<that folder>`, whatever the binary is
 * called). After a reboot or a crash the system may give that pid to another program, which must
 * never be taken for the server (nor stopped by `server stop`). Without /proc the pid alone decides.
 */
function isServer(server: SharedServerState): boolean {
  if (!isAlive(server.pid)) return false;
  try {
    return readFileSync(`/proc/${server.pid}/cmdline`, 'utf8')
      .split('\0')
      .includes(`--model-repository=${server.modelRepository}`);
  } catch {
    return true;
  }
}

/**
 * A server that is gone may have left processes of its group (Python-backend stubs). Its pid
 * cannot be reused while that group exists, so the group is ours exactly when the pid is free.
 */
function killLeftovers(pid: number): void {
  if (!isAlive(pid)) killGroup(pid, 'SIGKILL');
}

export async function sharedServerStatus(): Promise<SharedServerStatus> {
  const server = readState();
  if (!server) return { state: 'stopped' };
  if (!isServer(server)) return { state: 'stale', server, logTail: readLogTail(server.logFile, 15) };
  return (await answersOk(`${server.httpUrl}/v2/health/ready`))
    ? { state: 'running', server }
    : { state: 'not-ready', server };
}

export interface SharedServerStartOptions extends Omit<
  LocalServerOptions,
  'modelRepository' | 'outliveThisProcess' | 'logFile'
> {
  /** Default: an empty repository under the state folder (models arrive by upload). */
  modelRepository?: string;
}

export interface SharedServerStart {
  server: SharedServerState;
  /** False when a running shared server was found and reused. */
  started: boolean;
  /** What was recovered on the way (a stale state file), in words. */
  recovered?: string;
}

/**
 * Starts the shared server, or returns the one already running. A stale state file is replaced
 * (and said so); a server that runs but does not answer is an error naming what to do.
 */
export async function startSharedServer(options: SharedServerStartOptions = {}): Promise<SharedServerStart> {
  const status = await sharedServerStatus();
  if (status.state === 'running') return { server: status.server, started: false };
  if (status.state === 'not-ready') {
    throw new LocalServerError(
      `the shared tritonserver (pid ${status.server.pid}) runs but does not answer ready at ${status.server.httpUrl}: ` +
        `see \`triton-studio server logs\`, or \`triton-studio server stop\` and start again`,
    );
  }
  let recovered: string | undefined;
  if (status.state === 'stale') {
    recovered =
      `the previous shared server (pid ${status.server.pid}, started ${status.server.startedAt}) had exited ` +
      `without being stopped; its log: ${status.server.logFile}`;
    killLeftovers(status.server.pid);
    rmSync(stateFile(), { force: true });
  }
  const dir = sharedStateDir();
  const modelRepository = options.modelRepository ?? join(dir, 'repository');
  mkdirSync(modelRepository, { recursive: true });
  mkdirSync(join(dir, 'logs'), { recursive: true });
  const logFile = join(dir, 'logs', `tritonserver-${new Date().toISOString().replace(/[:.]/g, '-')}.log`);
  const server = await startLocalServer({ ...options, modelRepository, logFile, outliveThisProcess: true });
  const state: SharedServerState = {
    pid: server.pid,
    grpcUrl: server.grpcUrl,
    httpUrl: server.httpUrl,
    metricsUrl: server.metricsUrl,
    ports: server.ports,
    logFile: server.logFile,
    modelRepository: server.modelRepository,
    startedAt: new Date().toISOString(),
  };
  writeState(state);
  return { server: state, started: true, recovered };
}

export interface SharedServerStop {
  /** What was stopped; undefined when no shared server was recorded. */
  server?: SharedServerState;
  /** 'stopped': it ran and is gone now; 'stale': it had already exited; 'none': nothing recorded. */
  outcome: 'stopped' | 'stale' | 'none';
}

/** SIGTERM to the server's whole process group, SIGKILL after `graceMs`; removes the state file. */
export async function stopSharedServer(graceMs = 10_000): Promise<SharedServerStop> {
  const server = readState();
  if (!server) return { outcome: 'none' };
  if (!isServer(server)) {
    killLeftovers(server.pid); // a stub left behind by a crashed server
    rmSync(stateFile(), { force: true });
    return { server, outcome: 'stale' };
  }
  killGroup(server.pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (isAlive(server.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  killGroup(server.pid, 'SIGKILL');
  while (isAlive(server.pid)) await new Promise((r) => setTimeout(r, 50));
  rmSync(stateFile(), { force: true });
  return { server, outcome: 'stopped' };
}

/** The last lines of the shared server's log ('' when there is none). */
export function sharedServerLogs(lines = 50): { logFile?: string; text: string } {
  const server = readState();
  if (!server) return { text: '' };
  return { logFile: server.logFile, text: readLogTail(server.logFile, lines) };
}
