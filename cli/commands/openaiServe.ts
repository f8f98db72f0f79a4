/** `triton-studio openai-serve`: the OpenAI-compatible front in front of a Triton server. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Command } from 'commander';
import {
  ChatRenderer,
  OPENAI_DEFAULT_LIMITS,
  renderChatTool,
  startOpenAiServer,
  type ChatTemplateSource,
} from '../../client/index.js';
import { action } from '../action.js';
import { CliError, type Output } from '../io.js';
import { connect, withConnectionOptions, type ConnectionOptions } from '../connection.js';
import { onInterrupt } from '../interrupt.js';
import { nativeTokenizer } from '../nativeTokenizer.js';
import { wholeNumber } from '../options.js';

interface OpenAiServeOptions extends ConnectionOptions {
  tokenizer: string;
  chatTemplate?: string;
  logRequests?: boolean;
  host: string;
  port: number;
  apiKey?: string;
  maxBodyBytes: number;
  maxPromptBytes: number;
  maxPromptTokens?: number;
  maxConcurrent: number;
  maxQueued: number;
}

/** The key from the environment keeps it out of `ps` and shell history. */
const API_KEY_ENV = 'TRITON_STUDIO_OPENAI_API_KEY';

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
    .option(
      '--chat-template <file>',
      "the tokenize step's chat template (tokenizer_config.json or a Jinja file), for a chat's usage count " +
        '(default: the tokenizer_config.json beside the tokenizer)',
    )
    .option('--host <address>', 'address to listen on (0.0.0.0: other machines too)', '127.0.0.1')
    .option('--port <n>', 'port to listen on (0: a free one)', wholeNumber(0), 9000)
    .option(
      '--api-key <key>',
      `require 'Authorization: Bearer <key>' on every request (or set ${API_KEY_ENV}, which keeps it out of ps)`,
    )
    .option(
      '--max-body-bytes <n>',
      'refuse larger request bodies (413)',
      wholeNumber(1),
      OPENAI_DEFAULT_LIMITS.maxBodyBytes,
    )
    .option(
      '--max-prompt-bytes <n>',
      'refuse longer prompts (UTF-8 bytes; 400) before tokenizing',
      wholeNumber(1),
      OPENAI_DEFAULT_LIMITS.maxPromptBytes,
    )
    .option(
      '--max-prompt-tokens <n>',
      'refuse prompts of more tokens (400) before they reach Triton',
      wholeNumber(1),
    )
    .option(
      '--max-concurrent <n>',
      'requests handled at once; more wait',
      wholeNumber(1),
      OPENAI_DEFAULT_LIMITS.maxConcurrent,
    )
    .option(
      '--max-queued <n>',
      'requests waiting at most; more are refused (429)',
      wholeNumber(0),
      OPENAI_DEFAULT_LIMITS.maxQueued,
    )
    .option('--log-requests', 'print a line per request (model, tokens in and out)')
    .option('--json', 'print the address as JSON once ready')
    .action(action(serve));
}

/** Serves until Ctrl-C, then closes the front and what it opened. */
async function serve(out: Output, opts: OpenAiServeOptions): Promise<number> {
  const tokenizer = await nativeTokenizer(opts.tokenizer, out.progress.bind(out));
  const chatTemplate = chatTemplateSource(opts.chatTemplate, tokenizer.tokenizer);
  const chatRenderer =
    chatTemplate && new ChatRenderer(await renderChatTool(out.progress.bind(out)), chatTemplate);
  const triton = connect(opts);
  try {
    await triton.serverReady();
    const server = await startOpenAiServer({
      triton,
      tokenizer,
      chatRenderer,
      host: opts.host,
      port: opts.port,
      apiKey: opts.apiKey ?? (process.env[API_KEY_ENV] || undefined),
      maxBodyBytes: opts.maxBodyBytes,
      maxPromptBytes: opts.maxPromptBytes,
      maxPromptTokens: opts.maxPromptTokens,
      maxConcurrent: opts.maxConcurrent,
      maxQueued: opts.maxQueued,
      onRequest: opts.logRequests ? (line) => out.progress(line) : undefined,
    });
    out.result({ ok: true, url: server.url, triton: triton.url, warnings: server.warnings });
    for (const warning of server.warnings) out.progress(`warning: ${warning}`);
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
    chatRenderer?.close();
    triton.close();
  }
}

/**
 * The template a chat's prompt tokens are counted with, as the tokenize step finds it: the one
 * named, else the tokenizer_config.json beside the tokenizer when it holds a chat_template.
 */
function chatTemplateSource(
  named: string | undefined,
  tokenizerFile: string,
): ChatTemplateSource | undefined {
  const beside = join(dirname(tokenizerFile), 'tokenizer_config.json');
  if (named === undefined) {
    if (!existsSync(beside)) return undefined;
    const config = JSON.parse(readFileSync(beside, 'utf8')) as { chat_template?: unknown };
    return config.chat_template !== undefined ? { tokenizerConfig: beside } : undefined;
  }
  const file = resolve(named);
  if (!existsSync(file)) throw new CliError(`--chat-template ${file} not found`);
  if (file.endsWith('.json')) return { tokenizerConfig: file };
  if (!existsSync(beside)) {
    throw new CliError(
      `--chat-template ${file} is a Jinja file: its special tokens come from a tokenizer_config.json beside the tokenizer (${beside}), which does not exist; name the config instead`,
    );
  }
  return { tokenizerConfig: beside, chatTemplate: file };
}
