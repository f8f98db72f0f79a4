/** `triton-studio prompt`: one prompt to a deployed pipeline, its answer on stdout. */
import { Command } from 'commander';
import { action } from '../action.js';
import {
  connectTransport,
  withConnectionOptions,
  withEndpointOption,
  type ConnectionOptions,
} from '../connection.js';
import { CliError } from '../io.js';
import { wholeNumber } from '../options.js';
import { encoderKind, GrpcTransport, type Endpoint } from '../../client/index.js';
import { sendToEncoder } from './promptEncoder.js';

export function promptCommand(): Command {
  return withEndpointOption(
    withConnectionOptions(
      new Command('prompt')
        .description(
          'send a prompt to an ensemble (text_input / max_tokens → text_output) and print the answer; ' +
            'to an encoder pipeline (over gRPC) its numbers: a classifier its label and logits, ' +
            'a reranker a score per --pair passage, an embedding model its vector',
        )
        .argument('<text>', 'the prompt (a reranker: the query)'),
    ),
  )
    .requiredOption('--model <name>', 'the ensemble to prompt')
    .option('--stream', 'stream the answer as it is generated')
    .option('--max-tokens <n>', 'maximum tokens to generate', wholeNumber(1), 32)
    .option('--json', 'print the result as JSON')
    .option(
      '--pair <passage>',
      'a reranker: a passage to score against the query (repeat for several; one batched request)',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
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
            pair: string[];
          },
        ) => {
          const transport = connectTransport(opts);
          try {
            const config =
              transport instanceof GrpcTransport ? await transport.client.modelConfig(opts.model) : undefined;
            const kind = config && encoderKind(config);
            if (transport instanceof GrpcTransport && config && kind) {
              await sendToEncoder(out, transport.client, {
                kind,
                config,
                model: opts.model,
                text,
                pairs: opts.pair,
              });
              return;
            }
            if (opts.pair.length > 0) {
              throw new CliError(`--pair is for reranker pipelines; '${opts.model}' is not one`, 2);
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
