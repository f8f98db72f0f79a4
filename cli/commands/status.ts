/** `triton-studio status`: what the server has loaded, its versions and readiness. */
import { Command } from 'commander';
import { serverStatus, type ModelStatus } from '../../client/index.js';
import { action } from '../action.js';
import { connect, withConnectionOptions, type ConnectionOptions } from '../connection.js';

/** `triton-studio status`: what the server has loaded, versions, readiness. */
export function statusCommand(): Command {
  return withConnectionOptions(
    new Command('status').description(
      'what a Triton server has loaded: models, versions, readiness, libraries',
    ),
  )
    .option('--json', 'print the status as JSON')
    .action(
      action(async (out, opts: ConnectionOptions) => {
        const client = connect(opts);
        try {
          const status = await serverStatus(client);
          out.result(status);
          out.info(
            `${status.server}${status.version ? ` (Triton ${status.version})` : ''}: ` +
              `${status.live ? 'live' : 'not live'}, ${status.ready ? 'ready' : 'not ready'}, ` +
              `${status.models.filter((m) => m.ready).length} of ${status.models.length} models ready`,
          );
          for (const m of status.models) out.info(describe(m));
          for (const warning of status.warnings) out.progress(`warning: ${warning}`);
          return status.live ? 0 : 1;
        } finally {
          client.close();
        }
      }),
    );
}

function describe(m: ModelStatus): string {
  const versions = m.versions.length ? ` v${m.versions.join(',')}` : '';
  const what = m.kind === 'ensemble' ? `ensemble of ${m.steps?.join(', ')}` : (m.runtime ?? '');
  const details = [what, m.library, m.inferenceCount !== undefined ? `${m.inferenceCount} requests` : '']
    .filter(Boolean)
    .join(' · ');
  const note = m.candidate ? '  (left over from an interrupted deploy: `undeploy` it)' : '';
  const reason = m.reason ? `\n      ${m.reason}` : '';
  return `  ${(m.ready ? 'READY' : m.state).padEnd(12)} ${m.name}${versions}${details ? `  ${details}` : ''}${note}${reason}`;
}
