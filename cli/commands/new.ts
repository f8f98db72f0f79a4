/**
 * `triton-studio new --preset <family>`: a pipeline file from a preset family's steps, wired as
 * VS Code's "New Pipeline" (from a preset) wires them (`pipelineFromPresets`); `--list` names the
 * families. The file is an ordinary pipeline to edit on (files, parameters, names).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { pipelineFromPresets, presetFamilies, validatePipeline } from '../../generator/index.js';
import { action } from '../action.js';
import { CliError } from '../io.js';

interface NewOptions {
  preset?: string;
  list?: boolean;
  tokenizer?: string;
  name?: string;
  out?: string;
  force?: boolean;
}

export function newCommand(): Command {
  return new Command('new')
    .description('write a new pipeline file from a preset family (tokenize → model → detokenize, wired)')
    .option(
      '--preset <family>',
      'the preset family, e.g. embedding-onnx, reranker-onnx, tensorrt-llm (see --list)',
    )
    .option('--list', 'list the preset families and the steps each makes')
    .option(
      '--tokenizer <name-or-path>',
      "the tokenize/detokenize steps' tokenizer (a known name or a tokenizer.json path)",
    )
    .option('--name <name>', "the ensemble name (default: the family's, with _ for -)")
    .option('--out <file>', 'where to write the pipeline (default: <name>.pipeline.json here)')
    .option('--force', 'overwrite the file if it exists')
    .option('--json', 'print the result as JSON')
    .action(
      action(async (out, options: NewOptions) => {
        const families = presetFamilies();
        if (options.list) {
          for (const f of families) out.info(`${f.id}: ${f.title}`);
          out.result({
            families: families.map((f) => ({
              id: f.id,
              title: f.title,
              presets: f.presets.map((p) => p.id),
            })),
          });
          return 0;
        }
        if (!options.preset)
          throw new CliError('say which preset family: --preset <family> (--list names them)', 2);
        const pipeline = pipelineFromPresets(options.preset, {
          tokenizer: options.tokenizer,
          name: options.name,
        });
        const file = resolve(options.out ?? `${pipeline.name}.pipeline.json`);
        if (existsSync(file) && !options.force)
          throw new CliError(`${file} exists: choose another --out, or --force`);
        const text = `${JSON.stringify(pipeline, null, 2)}\n`;
        writeFileSync(file, text);
        const diagnostics = validatePipeline(text, file).diagnostics;
        out.diagnostics(diagnostics);
        out.info(`wrote ${file} (${pipeline.steps.map((s) => s.name).join(' → ')})`);
        out.result({ ok: true, file, pipeline, diagnostics });
        return 0;
      }),
    );
}
