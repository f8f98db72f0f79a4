/** `triton-studio prompt`: one prompt to a deployed pipeline, its answer on stdout. */
import { Command } from 'commander';
import { action } from '../action.js';
import {
  connectTransport,
  withConnectionOptions,
  withEndpointOption,
  type ConnectionOptions,
} from '../connection.js';
import { wholeNumber } from '../options.js';
import { GrpcTransport, isClassifier, sendClassify, type Endpoint } from '../../client/index.js';

export function promptCommand(): Command {
  return withEndpointOption(
    withConnectionOptions(
      new Command('prompt')
        .description(
          'send a prompt to an ensemble (text_input / max_tokens → text_output) and print the answer; ' +
            'to a classifier (text → logits, over gRPC) and print its label and logits',
        )
        .argument('<text>', 'the prompt'),
    ),
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
          opts: ConnectionOptions & {
            model: string;
            stream?: boolean;
            maxTokens: number;
            endpoint: Endpoint;
          },
        ) => {
          const transport = connectTransport(opts);
          try {
            const config =
              transport instanceof GrpcTransport ? await transport.client.modelConfig(opts.model) : undefined;
            if (transport instanceof GrpcTransport && config && isClassifier(config)) {
              const r = await sendClassify(transport.client, { model: opts.model, text, config });
              out.result({ ok: true, model: opts.model, ...r });
              out.info(
                `label ${r.label} (p ${r.probabilities[r.label]!.toFixed(4)}), logits [${r.logits.map((l) => l.toFixed(4)).join(', ')}]`,
              );
              out.progress(`latency ${r.latencyMs.toFixed(1)} ms`);
              return;
            }
            const session = await transport.prepare(opts.model, { stream: opts.stream ?? false });
            const result = await session
              .send({
                text,
                maxTokens: opts.maxTokens,
                onText: opts.stream ? (chunk: string) => out.write(chunk) : undefined,
              })
              .finally(() => session.close());
            out.result({ ok: true, model: opts.model, ...result });
            if (opts.stream) out.write('\n');
            else out.info(result.text);
            out.progress(
              `ttft ${result.ttftMs.toFixed(1)} ms, latency ${result.latencyMs.toFixed(1)} ms, ${result.responses} response(s)`,
            );
          } finally {
            transport.close();
          }
        },
      ),
    );
}
