/** `triton-studio build`: compile a generated repository's native steps. */
import { Command } from 'commander';
import { action } from '../action.js';
import { targetArch, wholeNumber } from '../options.js';
import {
  buildRepository,
  repositoryTargetArch,
  resolveTargetArch,
  type Architecture,
} from '../../generator/index.js';

interface BuildOptions {
  jobs?: number;
  verbose?: boolean;
  arch?: Architecture;
  llamaDir?: string;
}

export function buildCommand(): Command {
  return new Command('build')
    .description(
      "compile the repository's native steps into libtriton_<step>.so (CMake) and place them in each model",
    )
    .argument('<repo>', 'a generated model repository')
    .option('--jobs <n>', 'parallel compile jobs (default: up to 2)', wholeNumber(1))
    .option(
      '--arch <arch>',
      "the server's CPU: x86_64, or aarch64 for NVIDIA Grace (GH200, GB200, DGX Spark); default: the pipeline's target.arch, else this machine's",
      targetArch,
    )
    .option(
      '--llama-dir <dir>',
      "the llama folder the llama.cpp step builds against (fetch-model --llama-dir; default the checkout's .cache/llama)",
    )
    .option('--verbose', 'show compiler output')
    .option('--json', 'print the result as JSON')
    .action(
      action(async (out, repo: string, opts: BuildOptions) => {
        const started = Date.now();
        const { arch, from } = resolveTargetArch({ flag: opts.arch, pipeline: repositoryTargetArch(repo) });
        out.progress(`building native steps of ${repo} for ${arch.arch} (${from})…`);
        const result = await buildRepository(repo, {
          jobs: opts.jobs,
          arch,
          llamaDir: opts.llamaDir,
          onOutput: opts.verbose ? (chunk: string) => process.stderr.write(chunk) : undefined,
        });
        const seconds = (Date.now() - started) / 1000;
        out.result({ ok: true, seconds, ...result });
        for (const model of result.built)
          out.info(`  ${model.model}: ${model.library} (${model.kind}, ${model.arch})`);
        out.info(`built ${result.built.length} backend libraries in ${seconds.toFixed(1)} s`);
      }),
    );
}
