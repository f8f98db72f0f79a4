/** `triton-studio server start|stop|status|logs`: the local server the CLI and the editor share. */
import { Command } from 'commander';
import {
  sharedServerLogs,
  sharedServerStatus,
  startSharedServer,
  stopSharedServer,
  type SharedServerState,
} from '../../client/index.js';
import { action } from '../action.js';
import type { Output } from '../io.js';
import { wholeNumber, withLocalServerOptions, type LocalServerOptions } from '../options.js';

interface StartOptions extends LocalServerOptions {
  repository?: string;
}

/** `triton-studio server start|stop|status|logs`: the local server the CLI and the editor share. */
export function serverCommand(): Command {
  const server = new Command('server').description(
    'the shared local tritonserver (one for the CLI and VS Code): start, stop, status, logs',
  );
  withLocalServerOptions(
    server
      .command('start')
      .description('start the shared server in the background (or report the one already running)'),
  )
    .option('--repository <dir>', 'model repository (default: an empty one; deploy uploads models)')
    .option('--json', 'print the server as JSON')
    .action(action(start));
  server
    .command('status')
    .description('is the shared server running, and where')
    .option('--json', 'print the status as JSON')
    .action(action(reportStatus));
  server
    .command('stop')
    .description('stop the shared server and everything it started (its whole process group)')
    .option('--json', 'print the result as JSON')
    .action(action(stop));
  server
    .command('logs')
    .description("print the last lines of the shared server's log")
    .option('--lines <n>', 'how many lines', wholeNumber(1), 50)
    .action(action(printLogs));
  return server;
}

/** `server start`: starts the shared server, or reports the one already running. */
async function start(out: Output, opts: StartOptions): Promise<void> {
  const started = await startSharedServer({
    httpPort: opts.httpPort,
    grpcPort: opts.grpcPort,
    metricsPort: opts.metricsPort,
    modelRepository: opts.repository,
    tritonserver: opts.tritonserver,
    logVerbose: opts.logVerbose,
  });
  if (started.recovered) out.progress(`note: ${started.recovered}`);
  out.result({ ok: true, started: started.started, recovered: started.recovered, ...started.server });
  out.info(
    started.started
      ? `started the shared tritonserver ${started.server.pid}`
      : `the shared tritonserver ${started.server.pid} is already running`,
  );
  describe(out, started.server);
  out.info(`deploy to it: triton-studio deploy REPO --url ${started.server.grpcUrl}`);
}

/** `server status`: 0 while it runs and answers ready, else 1 with what to do. */
async function reportStatus(out: Output): Promise<number> {
  const status = await sharedServerStatus();
  out.result({ ok: status.state === 'running', ...status });
  switch (status.state) {
    case 'running':
      out.info(`running: tritonserver ${status.server.pid} since ${status.server.startedAt}`);
      describe(out, status.server);
      return 0;
    case 'not-ready':
      out.info(`not ready: tritonserver ${status.server.pid} runs but does not answer ready`);
      describe(out, status.server);
      return 1;
    case 'stale':
      out.info(
        `not running: the shared tritonserver ${status.server.pid} exited without being stopped ` +
          `(crashed or killed); \`triton-studio server start\` starts a new one\n` +
          `--- last lines of ${status.server.logFile} ---\n${status.logTail}`,
      );
      return 1;
    case 'stopped':
      out.info('not running: start it with `triton-studio server start`');
      return 1;
  }
}

/** `server stop`: the server and its whole process group. */
async function stop(out: Output): Promise<void> {
  const stopped = await stopSharedServer();
  out.result({ ok: true, ...stopped });
  if (stopped.outcome === 'stopped') out.info(`stopped the shared tritonserver ${stopped.server!.pid}`);
  else if (stopped.outcome === 'stale')
    out.info(`the shared tritonserver ${stopped.server!.pid} had already exited; state cleared`);
  else out.info('no shared server was running');
}

/** `server logs`: the log's last lines. */
async function printLogs(out: Output, opts: { lines: number }): Promise<number | void> {
  const logs = sharedServerLogs(opts.lines);
  if (!logs.logFile) {
    out.error('no shared server has been started: `triton-studio server start`');
    return 1;
  }
  out.progress(`--- ${logs.logFile} ---`);
  out.info(logs.text);
}

function describe(out: Output, server: SharedServerState): void {
  out.info(`  gRPC    ${server.grpcUrl}`);
  out.info(`  HTTP    ${server.httpUrl}`);
  out.info(`  metrics ${server.metricsUrl}`);
  out.info(`  log     ${server.logFile}`);
}
