import { Command } from 'commander';
import { action } from '../action.js';
import { connect, withConnectionOptions, type ConnectionOptions } from '../connection.js';
import { wholeNumber } from '../options.js';
import { isClassifier, sendClassify, sendPrompt } from '../../client/index.js';

export function promptCommand(): Command {
  return withConnectionOptions(
    new Command('prompt')
      .description(
        'send a prompt to an ensemble (text_input / max_tokens → text_output) and print the answer; ' +
          'to a classifier (text → logits) and print its label and logits',
      )
      .argument('<text>', 'the prompt'),
  )
    .requiredOption('--model <name>', 'the ensemble to prompt')
    .option('--stream', 'stream the answer as it is generated')
    .option('--max-tokens <n>', 'maximum tokens to generate', wholeNumber(1), 32)
    .option('--json', 'print the result as JSON')
    .action(
      action(
        async (
          out,
          text: string,
          opts: ConnectionOptions & { model: string; stream?: boolean; maxTokens: number },
        ) => {
          const client = connect(opts);
          try {
            const config = await client.modelConfig(opts.model);
            if (isClassifier(config)) {
              const r = await sendClassify(client, { model: opts.model, text, config });
              out.result({ ok: true, model: opts.model, ...r });
              out.info(
                `label ${r.label} (p ${r.probabilities[r.label]!.toFixed(4)}), logits [${r.logits.map((l) => l.toFixed(4)).join(', ')}]`,
              );
              out.progress(`latency ${r.latencyMs.toFixed(1)} ms`);
              return;
            }
            const result = await sendPrompt(client, {
              model: opts.model,
              config,
              text,
              maxTokens: opts.maxTokens,
              stream: opts.stream,
              onText: opts.stream ? (chunk) => out.write(chunk) : undefined,
            });
            out.result({ ok: true, model: opts.model, ...result });
            if (opts.stream) out.write('\n');
            else out.info(result.text);
            out.progress(
              `ttft ${result.ttftMs.toFixed(1)} ms, latency ${result.latencyMs.toFixed(1)} ms, ${result.responses} response(s)`,
            );
          } finally {
            client.close();
          }
        },
      ),
    );
}
