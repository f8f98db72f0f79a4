import { Command } from 'commander';
import { startOpenAiServer } from '../../client/index.js';
import { action } from '../action.js';
import { connect, withConnectionOptions, type ConnectionOptions } from '../connection.js';
import { onInterrupt } from '../interrupt.js';
import { nativeTokenizer } from '../nativeTokenizer.js';
import { wholeNumber } from '../options.js';

interface OpenAiServeOptions extends ConnectionOptions {
  tokenizer: string;
  logRequests?: boolean;
  host: string;
  port: number;
}

/** `openai-serve`: an OpenAI-compatible API in front of a Triton server, until Ctrl-C. */
export function openaiServeCommand(): Command {
  return withConnectionOptions(
    new Command('openai-serve').description(
      'serve an OpenAI-compatible API (/v1/completions, /v1/chat/completions, streamed or not; /v1/models) ' +
        "in front of Triton's ensembles (text_input / max_tokens → text_output), until Ctrl-C",
    ),
  )
    .requiredOption(
      '--tokenizer <file>',
      "the pipeline's tokenizer (tokenizer.json, its folder, or a known name), for usage token counts",
    )
    .option('--host <address>', 'address to listen on (0.0.0.0: other machines too)', '127.0.0.1')
    .option('--port <n>', 'port to listen on (0: a free one)', wholeNumber(0), 9000)
    .option('--log-requests', 'print a line per request (model, tokens in and out)')
    .option('--json', 'print the address as JSON once ready')
    .action(
      action(async (out, opts: OpenAiServeOptions) => {
        const tokenizer = await nativeTokenizer(opts.tokenizer, out.progress.bind(out));
        const triton = connect(opts);
        try {
          await triton.serverReady();
          const server = await startOpenAiServer({
            triton,
            tokenizer,
            host: opts.host,
            port: opts.port,
            onRequest: opts.logRequests ? (line) => out.progress(line) : undefined,
          });
          out.result({ ok: true, url: server.url, triton: triton.url });
          out.info(`OpenAI-compatible API at ${server.url} → Triton at ${triton.url}`);
          out.info('press Ctrl-C to stop');
          await new Promise<void>((resolve) => {
            const release = onInterrupt(() => {
              release();
              resolve();
            });
          });
          await server.close();
          return 0;
        } finally {
          tokenizer.close();
          triton.close();
        }
      }),
    );
}
