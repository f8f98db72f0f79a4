/** `triton-studio undeploy`: an ensemble and the steps no other ensemble uses, unloaded. */
import { Command } from 'commander';
import { undeployEnsemble } from '../../client/index.js';
import { action } from '../action.js';
import { connect, withConnectionOptions, type ConnectionOptions } from '../connection.js';

/** `triton-studio undeploy ENSEMBLE`: unloads the ensemble and the steps no other ensemble uses. */
export function undeployCommand(): Command {
  return withConnectionOptions(
    new Command('undeploy')
      .description('unload an ensemble and its steps (steps another loaded ensemble uses stay)')
      .argument('<ensemble>', 'the ensemble to unload'),
  )
    .option('--json', 'print the result as JSON')
    .action(
      action(async (out, ensemble: string, opts: ConnectionOptions) => {
        const client = connect(opts);
        try {
          const result = await undeployEnsemble(client, ensemble);
          out.result(result);
          out.info(`unloaded ${result.unloaded.join(', ') || 'nothing'} from ${result.server}`);
          for (const k of result.kept) out.info(`  kept ${k.model}: ${k.usedBy.join(', ')} still uses it`);
          for (const f of result.failed) out.error(`could not unload ${f.model}: ${f.error}`);
          return result.ok ? 0 : 1;
        } finally {
          client.close();
        }
      }),
    );
}
