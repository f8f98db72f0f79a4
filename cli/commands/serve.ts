/** `triton-studio serve`: tritonserver in the foreground over a generated repository. */
import { Command } from 'commander';
import { action } from '../action.js';
import { onInterrupt } from '../interrupt.js';
import { withLocalServerOptions, type LocalServerOptions } from '../options.js';
import { describeModel } from './deploy.js';
import { deployRepository, TritonClient, readLogTail, startLocalServer } from '../../client/index.js';

interface ServeOptions extends LocalServerOptions {
  load: boolean;
}

export function serveCommand(): Command {
  return withLocalServerOptions(
    new Command('serve')
      .description(
        'run the local tritonserver on a repository (explicit model control, loopback) until Ctrl-C',
      )
      .argument('<repo>', 'the model repository to serve'),
  )
    .option('--no-load', 'start with no model loaded (load later with `triton-studio deploy REPO --local`)')
    .option('--json', 'print the addresses (and load result) as JSON once ready')
    .action(
      action(async (out, repo: string, opts: ServeOptions) => {
        const server = await startLocalServer({
          modelRepository: repo,
          httpPort: opts.httpPort,
          grpcPort: opts.grpcPort,
          metricsPort: opts.metricsPort,
          logVerbose: opts.logVerbose,
          tritonserver: opts.tritonserver,
          arch: opts.arch,
        });
        const addresses = {
          grpcUrl: server.grpcUrl,
          httpUrl: server.httpUrl,
          metricsUrl: server.metricsUrl,
          pid: server.pid,
          logFile: server.logFile,
        };
        out.info(`tritonserver ${server.pid} serving ${server.modelRepository}`);
        out.info(`  gRPC    ${server.grpcUrl}`);
        out.info(`  HTTP    ${server.httpUrl}`);
        out.info(`  metrics ${server.metricsUrl}`);
        out.info(`  log     ${server.logFile}`);

        let deploy;
        if (opts.load) {
          const client = new TritonClient(server.grpcUrl);
          try {
            deploy = await deployRepository(client, {
              repository: repo,
              mode: 'local',
              serverArch: server.arch,
              onModel: (s) => out.progress(describeModel(s)),
            });
          } catch (error) {
            // A repository the server cannot load is worth saying, not worth stopping the server for.
            out.progress(`models not loaded: ${error instanceof Error ? error.message : String(error)}`);
          } finally {
            client.close();
          }
        }
        out.result({ ok: true, ...addresses, deploy });
        out.info('press Ctrl-C to stop');

        // Stay in the foreground until Ctrl-C / SIGTERM, or until the server dies on its own.
        let stopInterrupts = () => {};
        const signalled = new Promise<string>((resolve) => (stopInterrupts = onInterrupt(resolve)));
        const outcome = await Promise.race([signalled, server.exited.then((code) => ({ code }))]);
        stopInterrupts();
        if (typeof outcome === 'string') {
          out.progress(`stopping tritonserver ${server.pid}…`);
          await server.stop();
          return 0;
        }
        out.error(
          `tritonserver exited with ${outcome.code}\n--- last lines of ${server.logFile} ---\n${readLogTail(server.logFile)}`,
        );
        return 1;
      }),
    );
}
