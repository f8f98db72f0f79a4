/** `triton-studio import-gguf`: a GGUF file's tokenizer as tokenizer.json. */
import { Command } from 'commander';
import { importGgufTokenizer } from '../../generator/index.js';
import { action } from '../action.js';

export function importGgufCommand(): Command {
  return new Command('import-gguf')
    .description(
      "write a GGUF model's tokenizer as tokenizer.json + tokenizer_config.json (chat template included) for the native steps",
    )
    .argument('<gguf>', 'the model file (*.gguf)')
    .requiredOption('--out <dir>', 'the folder to write both files into')
    .option('--json', 'print the result as JSON')
    .action(
      action(async (out, gguf: string, opts: { out: string }) => {
        // A file that is not GGUF, or a tokenizer not covered, fails with the reason (GgufError).
        const written = await Promise.resolve(importGgufTokenizer(gguf, opts.out));
        out.result({ ok: true, ...written });
        out.info(`wrote ${written.tokenizerFile} and ${written.configFile}`);
      }),
    );
}
