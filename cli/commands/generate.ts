/** `triton-studio generate`: a pipeline file into a Triton model repository. */
import { Command } from 'commander';
import { generateRepository, hasErrors } from '../../generator/index.js';
import { action } from '../action.js';

interface GenerateOptions {
  out: string;
  dryRun?: boolean;
  ensemble?: boolean;
  llamaDir?: string;
}

export function generateCommand(): Command {
  return new Command('generate')
    .description(
      'write the model repository for a pipeline: every config.pbtxt, native step sources, tokenizer data',
    )
    .argument('<pipeline>', 'the *.pipeline.json file')
    .requiredOption(
      '--out <repo>',
      'repository folder to create (replaced only if Triton Studio generated it)',
    )
    .option(
      '--ensemble',
      'serve a streaming pipeline as a Triton ensemble instead of the native orchestrator (clients must then send a unique request id per stream)',
    )
    .option(
      '--llama-dir <dir>',
      "a llama folder (fetch-model --llama-dir) to look for weights named in parameters.gguf, before the checkout's .cache/llama",
    )
    .option('--dry-run', 'check and list the files without writing')
    .option('--json', 'print the result as JSON')
    .action(
      action(async (out, pipeline: string, opts: GenerateOptions) => {
        const result = generateRepository({
          pipelinePath: pipeline,
          outDir: opts.out,
          dryRun: opts.dryRun,
          ...(opts.llamaDir && { llamaDirs: [opts.llamaDir] }),
          ...(opts.ensemble && { serving: 'ensemble' as const }),
        });
        out.diagnostics(result.diagnostics);
        const ok = !hasErrors(result.diagnostics);
        out.result({ ok, ...result });
        if (!ok) return 1;
        out.info(
          `${opts.dryRun ? 'would write' : 'wrote'} ${result.files.length} files to ${result.outDir}` +
            ` (${result.serving} ${result.ensembleName}: ${result.models.map((m) => m.name).join(', ')})`,
        );
      }),
    );
}
