import { Command } from 'commander';
import { action } from '../action.js';
import { wholeNumber } from '../options.js';
import { buildRepository } from '../../generator/index.js';

export function buildCommand(): Command {
  return new Command('build')
    .description(
      "compile the repository's native steps into libtriton_<step>.so (CMake) and place them in each model",
    )
    .argument('<repo>', 'a generated model repository')
    .option('--jobs <n>', 'parallel compile jobs (default: up to 2)', wholeNumber(1))
    .option('--verbose', 'show compiler output')
    .option('--json', 'print the result as JSON')
    .action(
      action(async (out, repo: string, opts: { jobs?: number; verbose?: boolean }) => {
        const started = Date.now();
        out.progress(`building native steps of ${repo}…`);
        const result = await buildRepository(repo, {
          jobs: opts.jobs,
          onOutput: opts.verbose ? (chunk: string) => process.stderr.write(chunk) : undefined,
        });
        const seconds = (Date.now() - started) / 1000;
        out.result({ ok: true, seconds, ...result });
        for (const model of result.built) out.info(`  ${model.model}: ${model.library} (${model.kind})`);
        out.info(`built ${result.built.length} backend libraries in ${seconds.toFixed(1)} s`);
      }),
    );
}
