/**
 * `triton-studio import`: an existing model repository (Python steps included) into a pipeline
 * file.
 */
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { hasErrors, importRepository } from '../../generator/index.js';
import { action } from '../action.js';
import { CliError } from '../io.js';

export function importCommand(): Command {
  return new Command('import')
    .description(
      'turn an existing model repository (ensemble + steps, Python pre/post included) into a pipeline file; ' +
        'Python tokenizer steps become native ones where the tokenizer is found',
    )
    .argument('<repo>', 'the model repository folder')
    .requiredOption('--out <file>', 'the pipeline file to write (NAME.pipeline.json)')
    .option('--ensemble <name>', 'which ensemble to import when the repository holds several')
    .option(
      '--set <name=value>',
      'fill the template placeholder ${name} in every config.pbtxt first, as fill_template.py does (repeatable)',
      collectSetting,
      {} as Record<string, string>,
    )
    .option('--force', 'replace --out if it exists')
    .option('--json', 'print the result as JSON')
    .action(
      action(
        async (
          out,
          repo: string,
          opts: { out: string; ensemble?: string; set: Record<string, string>; force?: boolean },
        ) => {
          if (!opts.out.endsWith('.pipeline.json')) {
            throw new CliError(
              `--out ${opts.out}: name it NAME.pipeline.json, so editors and the CLI recognise it`,
              2,
            );
          }
          if (existsSync(opts.out) && !opts.force) {
            throw new CliError(`${opts.out} exists; choose another --out or pass --force to replace it`);
          }
          const result = importRepository(repo, {
            outFile: opts.out,
            ensemble: opts.ensemble,
            set: opts.set,
          });
          out.diagnostics(result.diagnostics);
          const ok = !hasErrors(result.diagnostics) && result.pipelineText !== undefined;
          if (ok) {
            // vocab + merges tokenizers made by import, then the pipeline that names them.
            const files = { ...result.files, [opts.out]: result.pipelineText! };
            for (const file of Object.keys(result.files ?? {})) {
              if (existsSync(file) && !opts.force)
                throw new CliError(`${file} exists; choose another --out or pass --force to replace it`);
            }
            // Each written beside its target and renamed, so a failure never leaves half a file.
            for (const [file, text] of Object.entries(files)) {
              const temp = `${file}.${process.pid}.tmp`;
              writeFileSync(temp, text);
              renameSync(temp, file);
            }
          }
          out.result({
            ok,
            out: ok ? opts.out : undefined,
            diagnostics: result.diagnostics,
            pipeline: result.pipeline,
          });
          if (!ok) return 1;
          const steps = result.pipeline!.steps;
          out.info(
            `wrote ${opts.out}: ensemble ${result.pipeline!.name}, ${steps.length} steps ` +
              `(${steps.map((s) => `${s.name}: ${s.kind}`).join(', ')})`,
          );
        },
      ),
    );
}

/** `--set name=value`, repeatable: the values fill_template.py would be given. */
function collectSetting(setting: string, values: Record<string, string>): Record<string, string> {
  const eq = setting.indexOf('=');
  if (eq <= 0)
    throw new CliError(`--set ${setting}: write it as NAME=VALUE (e.g. --set max_queue_size=0)`, 2);
  return { ...values, [setting.slice(0, eq)]: setting.slice(eq + 1) };
}
