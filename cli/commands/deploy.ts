/** `triton-studio deploy`: a repository onto a server, and the report of what was loaded. */
import { Command } from 'commander';
import { action } from '../action.js';
import { connect, withConnectionOptions, type ConnectionOptions } from '../connection.js';
import type { Output } from '../io.js';
import { targetArch } from '../options.js';
import type { Architecture } from '../../generator/index.js';
import {
  deployOutcomeText,
  deployRepository,
  type DeployResult,
  type ModelDeployStatus,
} from '../../client/index.js';

export function deployCommand(): Command {
  return withConnectionOptions(
    new Command('deploy')
      .description(
        'load every model of a repository into a Triton server, steps first, and wait for the ensemble',
      )
      .argument('<repo>', 'a generated and built model repository'),
  )
    .option('--local', 'the server was started on REPO itself: load models by name instead of uploading them')
    .option(
      '--arch <arch>',
      "the server's CPU (x86_64, aarch64 for Grace: GH200, GB200); every library must be built for it (default: this machine's)",
      targetArch,
    )
    .option('--json', 'print the result as JSON')
    .action(
      action(
        async (out, repo: string, opts: ConnectionOptions & { local?: boolean; arch?: Architecture }) => {
          const client = connect(opts);
          try {
            const result = await deployRepository(client, {
              repository: repo,
              mode: opts.local ? 'local' : 'remote',
              serverArch: opts.arch,
              onModel: (status) => out.progress(describeModel(status)),
            });
            reportDeploy(out, result);
            return result.ok ? 0 : 1;
          } finally {
            client.close();
          }
        },
      ),
    );
}

export function describeModel(s: ModelDeployStatus): string {
  const upload = s.uploadedFiles
    ? `, uploaded ${s.uploadedFiles.length} file(s), ${s.uploadedBytes} bytes`
    : '';
  const line = `  ${s.state.padEnd(7)} ${s.model}${s.isEnsemble ? ' (ensemble)' : ''} — ${s.loadMs} ms${upload}`;
  return [
    line,
    s.error && `    ${s.error.trimEnd()}`,
    s.hint && `    hint: ${s.hint}`,
    s.warning && `    note: ${s.warning}`,
  ]
    .filter(Boolean)
    .join('\n');
}

export function reportDeploy(out: Output, result: DeployResult): void {
  out.result(result);
  for (const warning of result.warnings ?? []) out.progress(`warning: ${warning}`);
  if (result.ok)
    out.info(
      `deployed ${result.models.length} models to ${result.server}; ready: ${result.ensembles.join(', ')}`,
    );
  else {
    out.error(
      `deploy to ${result.server} failed: ${result.models
        .filter((m) => m.state !== 'ready')
        .map((m) => m.model)
        .join(', ')} not ready`,
    );
    out.error(
      `${deployOutcomeText(result)}. What deploy did:\n${result.actions.map((a) => `  ${a}`).join('\n')}`,
    );
  }
}
