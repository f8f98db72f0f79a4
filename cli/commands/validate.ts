/** `triton-studio validate`: a pipeline file's problems, as the editor shows them. */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { compileModule, hasErrors, validatePipeline } from '../../generator/index.js';
import { action } from '../action.js';
import { CliError } from '../io.js';

export function validateCommand(): Command {
  return new Command('validate')
    .description(
      'check pipeline files, and TypeScript steps and hooks (*.ts: the compiled subset), without writing anything; errors print like a compiler',
    )
    .argument('<pipelines...>', 'the *.pipeline.json files and *.ts step or hook modules')
    .option('--json', 'print the diagnostics as JSON')
    .action(
      action(async (out, pipelines: string[]) => {
        const results = pipelines.map((file) => {
          let text: string;
          try {
            text = readFileSync(file, 'utf8');
          } catch (e) {
            throw new CliError(`cannot read ${file}: ${(e as Error).message}`);
          }
          if (file.endsWith('.ts'))
            return { file, diagnostics: compileModule({ fileName: file, text }).diagnostics };
          return { file, diagnostics: validatePipeline(text, file).diagnostics };
        });
        const all = results.flatMap((r) => r.diagnostics);
        out.diagnostics(all);
        const ok = !hasErrors(all);
        out.result({ ok, files: results });
        const count = (severity: string): number => all.filter((d) => d.severity === severity).length;
        const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
        out.info(
          ok
            ? `${plural(pipelines.length, pipelines.every((f) => f.endsWith('.ts')) ? 'module' : 'pipeline file')} OK, ${plural(count('warning'), 'warning')}`
            : plural(count('error'), 'error'),
        );
        return ok ? 0 : 1;
      }),
    );
}
