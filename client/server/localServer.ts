/**
 * A tritonserver process of our own: `startLocalServer` finds the binary (option, then
 * $TRITON_STUDIO_TRITONSERVER, then the project's .venv), picks free ports, starts it with explicit
 * model control in a process group of its own, waits until it answers, and returns its addresses
 * and `stop()`, which signals the whole group. Failures are LocalServerError with the log's tail.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import {
  emulationPrefix,
  hostArchitecture,
  libraryArchitecture,
  type Architecture,
} from '../../generator/index.js';
import { packageRoot } from '../paths.js';
import { readLogTail } from './logTail.js';
import { freePorts, portIsFree } from './ports.js';
import { waitReady } from './readiness.js';

export { freePort, portIsFree } from './ports.js';

/** Environment variable naming the tritonserver binary to use instead of the project's `.venv`. */
export const TRITONSERVER_ENV = 'TRITON_STUDIO_TRITONSERVER';

/** Where a tritonserver installation keeps what the server needs at start. */
export interface TritonInstallation {
  binary: string;
  backendDirectory: string;
  cacheDirectory: string;
  /** Folders prepended to LD_LIBRARY_PATH (nvidia-pytriton keeps the server's libraries apart). */
  libraryDirectories: string[];
  /** The CPU the binary is built for: libraries deployed to it must be built for the same. */
  arch: Architecture;
  /** What runs the binary: nothing for this machine's architecture, qemu-user for another. */
  launcher: string[];
}

export interface LocalServerOptions {
  /** Model repository the server serves (`--model-repository`); must exist. */
  modelRepository: string;
  /** tritonserver binary; default: env TRITON_STUDIO_TRITONSERVER, then the project's `.venv`. */
  tritonserver?: string;
  /**
   * Without `tritonserver`: serve with the server built for this CPU (default: this machine's).
   * Another architecture's server is the one `npm run setup -- --cross ARCH` installs, run under
   * qemu-user: slow, but the real server loading cross-built libraries.
   */
  arch?: Architecture;
  /** Fixed ports; each one left out is chosen free at run time. */
  httpPort?: number;
  grpcPort?: number;
  metricsPort?: number;
  /** Models to load at start (`--load-model`); the rest are loaded through the repository API. */
  loadModels?: string[];
  /** Server log (stdout and stderr); default: a fresh file under the OS temp folder. */
  logFile?: string;
  /** `--log-verbose` level; default 0. */
  logVerbose?: number;
  /** How long to wait for `v2/health/ready`; default 60 s. */
  startupTimeoutMs?: number;
  /** How long `stop()` waits after SIGTERM before SIGKILL; default 10 s. */
  stopGraceMs?: number;
  /**
   * Serve gRPC over TLS (`--grpc-use-ssl`), PEM file paths. `mutual` makes the server require a
   * client certificate signed by `rootCertificate` (`--grpc-use-ssl-mutual`). HTTP stays plain.
   */
  grpcTls?: { certificate: string; key: string; rootCertificate?: string; mutual?: boolean };
  /** Further tritonserver flags, passed as given. */
  extraArgs?: string[];
  /**
   * Keep the server running after this process exits (the shared local server that
   * `triton-studio server start` leaves for the CLI and the editor). Default: killed on exit.
   */
  outliveThisProcess?: boolean;
}

export interface LocalServer {
  /** e.g. `http://127.0.0.1:8123` */
  httpUrl: string;
  /** `127.0.0.1:port`, the form gRPC clients take */
  grpcUrl: string;
  /** e.g. `http://127.0.0.1:8125/metrics` */
  metricsUrl: string;
  ports: { http: number; grpc: number; metrics: number };
  pid: number;
  /** The CPU the server runs as (its binary's architecture). */
  arch: Architecture;
  logFile: string;
  modelRepository: string;
  /** Resolves with the exit code (or signal name) once the server process is gone. */
  exited: Promise<number | string>;
  /** SIGTERM, then SIGKILL after the grace period; resolves once the process is gone. */
  stop(): Promise<void>;
}

/** Start failed for a reason the user can act on; `logTail` holds the server's last log lines. */
export class LocalServerError extends Error {
  constructor(
    message: string,
    readonly logFile?: string,
    readonly logTail?: string,
    /** PID of the server process that failed (already stopped), when one was started. */
    readonly pid?: number,
  ) {
    super(logTail ? `${message}\n--- last lines of ${logFile} ---\n${logTail}` : message);
    this.name = 'LocalServerError';
  }
}

const SETUP_HINT = 'run `npm run setup` (installs nvidia-pytriton into .venv/)';

/**
 * Finds the tritonserver binary and the folders that ship with it. nvidia-pytriton's layout:
 * `site-packages/pytriton/tritonserver/{bin,backends,caches}` and `site-packages/nvidia_pytriton.libs`.
 * A binary given by option or env may come from any installation: its sibling `backends/` and
 * `caches/` folders are used, and the pytriton libraries folder only when it exists.
 */
export function locateTritonServer(
  binary?: string,
  arch: Architecture = hostArchitecture(),
): TritonInstallation {
  const foreign = arch.arch !== hostArchitecture().arch;
  const given = binary ?? (foreign ? undefined : process.env[TRITONSERVER_ENV]);
  const path = given ? resolve(given) : foreign ? crossBinary(arch) : defaultBinary();
  if (!given && foreign && !existsSync(path)) {
    throw new LocalServerError(
      `no ${arch.arch} tritonserver at ${path}: run \`npm run setup -- --cross ${arch.arch}\` (installs it from PyPI)`,
    );
  }
  const source = binary ? 'the tritonserver option' : given ? `$${TRITONSERVER_ENV}` : 'the project .venv';
  if (!existsSync(path)) {
    throw new LocalServerError(`tritonserver not found at ${path} (from ${source}): ${SETUP_HINT}`);
  }
  try {
    accessSync(path, constants.X_OK);
  } catch {
    throw new LocalServerError(`tritonserver at ${path} is not executable: chmod +x it or ${SETUP_HINT}`);
  }
  const serverDir = dirname(dirname(path));
  const backendDirectory = join(serverDir, 'backends');
  const cacheDirectory = join(serverDir, 'caches');
  for (const [what, dir] of [
    ['backend directory', backendDirectory],
    ['cache directory', cacheDirectory],
  ] as const) {
    if (!isDirectory(dir)) {
      throw new LocalServerError(`tritonserver ${what} not found at ${dir} (next to ${path}): ${SETUP_HINT}`);
    }
  }
  const pytritonLibs = join(dirname(serverDir), '..', 'nvidia_pytriton.libs');
  const isPytriton = dirname(serverDir).endsWith('pytriton');
  if (isPytriton && !isDirectory(pytritonLibs)) {
    throw new LocalServerError(
      `tritonserver's libraries not found at ${resolve(pytritonLibs)} (nvidia-pytriton ships them there): ${SETUP_HINT}`,
    );
  }
  const built = binaryArchitecture(path);
  let launcher: string[];
  try {
    launcher = emulationPrefix(built);
  } catch (error) {
    throw new LocalServerError(
      `tritonserver at ${path} is built for ${built.arch}: ${(error as Error).message}`,
    );
  }
  return {
    binary: path,
    backendDirectory,
    cacheDirectory,
    libraryDirectories: isDirectory(pytritonLibs) ? [resolve(pytritonLibs)] : [],
    arch: built,
    launcher,
  };
}

/** The architecture of an ELF executable, from its header; this machine's when it cannot tell. */
function binaryArchitecture(path: string): Architecture {
  const header = Buffer.alloc(20);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, header, 0, 20, 0);
  } finally {
    closeSync(fd);
  }
  return libraryArchitecture(header) ?? hostArchitecture();
}

/** Where `npm run setup -- --cross ARCH` unpacks that architecture's nvidia-pytriton server. */
export function crossServerDir(arch: Architecture): string {
  return join(packageRoot(), '.cache', `tritonserver-${arch.arch}`);
}

function crossBinary(arch: Architecture): string {
  return join(crossServerDir(arch), 'pytriton', 'tritonserver', 'bin', 'tritonserver');
}

function defaultBinary(): string {
  const lib = join(packageRoot(), '.venv', 'lib');
  // The venv's Python version names a folder; take whichever one holds pytriton.
  const candidates = isDirectory(lib) ? readdirSync(lib).filter((d) => d.startsWith('python')) : [];
  for (const python of candidates.sort().reverse()) {
    const bin = join(lib, python, 'site-packages', 'pytriton', 'tritonserver', 'bin', 'tritonserver');
    if (existsSync(bin)) return bin;
  }
  return join(lib, 'python3.11', 'site-packages', 'pytriton', 'tritonserver', 'bin', 'tritonserver');
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

// Servers still running when this process exits are killed: a forgotten server would hold ports
// and CPU for everyone else on the machine.
const running = new Set<ChildProcess>();
let exitHookInstalled = false;
function trackForExit(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const c of running) if (c.pid !== undefined) killGroup(c.pid, 'SIGKILL');
  });
}

/**
 * Signals a server's whole process group: tritonserver runs in a group of its own, and its
 * Python-backend stubs must go with it (a stub outliving the server holds shared memory).
 */
export function killGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false; // no such group: everything in it is gone
  }
}

/**
 * Fixed ports must be free before the start: otherwise the readiness poll would reach the other
 * server on that port and announce its address as ours, and a busy gRPC port would only show
 * as a start timeout.
 */
async function checkFixedPortsFree(opts: LocalServerOptions): Promise<void> {
  const fixed = [
    ['HTTP', '--http-port', opts.httpPort],
    ['gRPC', '--grpc-port', opts.grpcPort],
    ['metrics', '--metrics-port', opts.metricsPort],
  ] as const;
  for (const [what, flag, port] of fixed) {
    if (port !== undefined && !(await portIsFree(port))) {
      throw new LocalServerError(
        `the ${what} port ${port} is already in use on 127.0.0.1 (another tritonserver or program listens there): ` +
          `pass another ${flag}, or leave it out to get a free one` +
          ' (`triton-studio server status` shows a shared server started earlier)',
      );
    }
  }
}

const PORT_IN_USE = /already in use|address already in use/i;
const START_ATTEMPTS = 3;

/**
 * Starts tritonserver in explicit model-control mode on loopback and waits until it is ready.
 * Free ports are picked just before the start; if another process takes one in between, the
 * start is retried with new ports.
 */
export async function startLocalServer(opts: LocalServerOptions): Promise<LocalServer> {
  const installation = locateTritonServer(opts.tritonserver, opts.arch);
  const modelRepository = resolve(opts.modelRepository);
  if (!isDirectory(modelRepository)) {
    throw new LocalServerError(
      `model repository ${modelRepository} does not exist: generate one first (\`triton-studio generate PIPELINE --out REPO\`)`,
    );
  }
  await checkFixedPortsFree(opts);
  const fixedPorts =
    opts.httpPort !== undefined && opts.grpcPort !== undefined && opts.metricsPort !== undefined;
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts, installation, modelRepository);
    } catch (error) {
      const retry = error instanceof LocalServerError && PORT_IN_USE.test(error.message) && !fixedPorts;
      if (!retry || attempt >= START_ATTEMPTS) throw error;
    }
  }
}

function grpcTlsArgs(tls: LocalServerOptions['grpcTls']): string[] {
  if (!tls) return [];
  if (tls.mutual && !tls.rootCertificate) {
    throw new LocalServerError(
      'mutual TLS needs the CA that signs client certificates (grpcTls.rootCertificate)',
    );
  }
  return [
    '--grpc-use-ssl=true',
    `--grpc-server-cert=${resolve(tls.certificate)}`,
    `--grpc-server-key=${resolve(tls.key)}`,
    ...(tls.rootCertificate ? [`--grpc-root-cert=${resolve(tls.rootCertificate)}`] : []),
    ...(tls.mutual ? ['--grpc-use-ssl-mutual=true'] : []),
  ];
}

/** One start: pick ports, spawn tritonserver, wait until it is ready (or say why it is not). */
async function startOnce(
  opts: LocalServerOptions,
  installation: TritonInstallation,
  modelRepository: string,
): Promise<LocalServer> {
  const ports = await choosePorts(opts);
  const logFile = resolve(
    opts.logFile ?? join(mkdtempSync(join(tmpdir(), 'triton-studio-server-')), 'tritonserver.log'),
  );
  const { child, exited, spawnError } = spawnServer(
    installation,
    serverArgs(opts, installation, modelRepository, ports),
    logFile,
  );
  if (opts.outliveThisProcess) child.unref();
  else trackForExit(child);

  const httpUrl = `http://127.0.0.1:${ports.http}`;
  const stopGraceMs = opts.stopGraceMs ?? 10_000;
  const stop = () => stopProcess(child, exited, stopGraceMs);

  const outcome = await Promise.race([
    waitReady(`${httpUrl}/v2/health/ready`, opts.startupTimeoutMs ?? 60_000, child, ports.http).then((ok) =>
      ok ? ({ kind: 'ready' } as const) : ({ kind: 'timeout' } as const),
    ),
    exited.then((code) => ({ kind: 'exited', code }) as const),
    spawnError.then((error) => ({ kind: 'spawn-error', error }) as const),
  ]);
  if (outcome.kind !== 'ready') {
    await stop();
    const tail = readLogTail(logFile);
    throw new LocalServerError(
      describeStartFailure(outcome, installation, opts, readLogTail(logFile, 2000)),
      logFile,
      tail,
      child.pid,
    );
  }
  return {
    httpUrl,
    grpcUrl: `127.0.0.1:${ports.grpc}`,
    metricsUrl: `http://127.0.0.1:${ports.metrics}/metrics`,
    ports,
    pid: child.pid ?? -1,
    arch: installation.arch,
    logFile,
    modelRepository,
    exited,
    stop,
  };
}

/** The ports the caller fixed, and distinct free ones for the rest. */
async function choosePorts(
  opts: LocalServerOptions,
): Promise<{ http: number; grpc: number; metrics: number }> {
  const fixed = [opts.httpPort, opts.grpcPort, opts.metricsPort].filter((p): p is number => p !== undefined);
  const free = await freePorts(3 - fixed.length, fixed);
  return {
    http: opts.httpPort ?? free.shift()!,
    grpc: opts.grpcPort ?? free.shift()!,
    metrics: opts.metricsPort ?? free.shift()!,
  };
}

/** tritonserver's command line: explicit model control, loopback only, the chosen ports. */
function serverArgs(
  opts: LocalServerOptions,
  installation: TritonInstallation,
  modelRepository: string,
  ports: { http: number; grpc: number; metrics: number },
): string[] {
  return [
    `--model-repository=${modelRepository}`,
    '--model-control-mode=explicit',
    '--http-address=127.0.0.1',
    '--grpc-address=127.0.0.1',
    `--http-port=${ports.http}`,
    `--grpc-port=${ports.grpc}`,
    `--metrics-port=${ports.metrics}`,
    `--backend-directory=${installation.backendDirectory}`,
    `--cache-directory=${installation.cacheDirectory}`,
    '--pinned-memory-pool-byte-size=0',
    `--log-verbose=${opts.logVerbose ?? 0}`,
    ...(opts.loadModels ?? []).map((m) => `--load-model=${m}`),
    ...grpcTlsArgs(opts.grpcTls),
    ...(opts.extraArgs ?? []),
  ];
}

/** Spawns tritonserver with its output appended to logFile; exited and spawnError settle once. */
function spawnServer(
  installation: TritonInstallation,
  args: string[],
  logFile: string,
): { child: ChildProcess; exited: Promise<number | string>; spawnError: Promise<Error> } {
  const env = { ...process.env };
  if (installation.libraryDirectories.length > 0) {
    env.LD_LIBRARY_PATH = [...installation.libraryDirectories, env.LD_LIBRARY_PATH].filter(Boolean).join(':');
  }
  const logFd = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    // A process group of its own, so stop() reaches the Python-backend stubs too.
    const [command, ...prefix] = [...installation.launcher, installation.binary];
    child = spawn(command!, [...prefix, ...args], { env, stdio: ['ignore', logFd, logFd], detached: true });
  } finally {
    closeSync(logFd); // the child holds its own copy
  }
  const exited = new Promise<number | string>((resolveExit) => {
    child.once('exit', (code, signal) => resolveExit(code ?? signal ?? 'unknown'));
  });
  const spawnError = new Promise<Error>((resolveError) => child.once('error', resolveError));
  return { child, exited, spawnError };
}

function describeStartFailure(
  outcome:
    { kind: 'timeout' } | { kind: 'exited'; code: number | string } | { kind: 'spawn-error'; error: Error },
  installation: TritonInstallation,
  opts: LocalServerOptions,
  logTail: string,
): string {
  if (outcome.kind === 'spawn-error') {
    return `cannot start ${installation.binary}: ${outcome.error.message}`;
  }
  if (outcome.kind === 'timeout') {
    return `tritonserver did not become ready within ${(opts.startupTimeoutMs ?? 60_000) / 1000} s (stopped it)`;
  }
  // A missing shared library is about the installation, not the repository: say what to do.
  const library = /error while loading shared libraries: ([^:\s]+)/.exec(logTail)?.[1];
  if (library) return `tritonserver cannot load the library ${library}: ${SETUP_HINT}`;
  const inUse = logTail.split('\n').find((line) => PORT_IN_USE.test(line));
  if (inUse) return `tritonserver exited with ${outcome.code}: a port is already in use (${inUse.trim()})`;
  return `tritonserver exited with ${outcome.code} before it was ready`;
}

async function stopProcess(child: ChildProcess, exited: Promise<unknown>, graceMs: number): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  if (child.exitCode === null && child.signalCode === null) {
    killGroup(pid, 'SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const killed = new Promise<void>((r) => {
      timer = setTimeout(() => {
        killGroup(pid, 'SIGKILL');
        r();
      }, graceMs);
    });
    await Promise.race([exited, killed]);
    clearTimeout(timer);
    await exited;
  }
  // The server is gone; whatever it started in its group (backend stubs) goes too.
  killGroup(pid, 'SIGKILL');
}
