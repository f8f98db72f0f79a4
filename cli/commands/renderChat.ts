/** `triton-studio render-chat`: a chat template rendered natively, as the pipeline's step would. */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { action } from '../action.js';
import { CliError } from '../io.js';
import { ChatRenderError, renderChat } from '../../client/index.js';

interface RenderChatOptions {
  tokenizerConfig: string;
  chatTemplate?: string;
  addGenerationPrompt?: boolean;
  tools?: string;
  kwargs?: string;
  messages?: string;
}

/**
 * `triton-studio render-chat`: the model's chat template rendered natively, byte for byte what
 * transformers' apply_chat_template(messages, tokenize=False, …) returns.
 */
export function renderChatCommand(): Command {
  return new Command('render-chat')
    .description(
      "render a conversation (JSON array of messages on stdin) with the model's chat template, natively: " +
        "the text transformers' apply_chat_template(tokenize=False) returns",
    )
    .requiredOption('--tokenizer-config <file>', 'the tokenizer_config.json (or a folder holding one)')
    .option('--chat-template <file>', "a Jinja template file used instead of the config's chat_template")
    .option('--add-generation-prompt', "end with the header of the assistant's turn")
    .option('--tools <file>', 'a JSON array of tool schemas passed to the template as `tools`')
    .option('--kwargs <json>', 'extra template variables, e.g. \'{"enable_thinking": false}\'')
    .option('--messages <file>', 'read the messages from a file instead of stdin')
    .option('--json', 'print {"text": …}')
    .action(
      action(async (out, opts: RenderChatOptions) => {
        const tokenizerConfig = configFile(opts.tokenizerConfig);
        const messages = parseJson(
          opts.messages !== undefined ? readText(opts.messages, '--messages') : readFileSync(0, 'utf8'),
          opts.messages ?? 'stdin',
        );
        if (!Array.isArray(messages))
          throw new CliError('the messages must be a JSON array of {role, content} objects');
        const tools =
          opts.tools !== undefined ? parseJson(readText(opts.tools, '--tools'), opts.tools) : undefined;
        if (tools !== undefined && !Array.isArray(tools))
          throw new CliError(`--tools ${opts.tools}: a JSON array is required`);
        const kwargs = opts.kwargs !== undefined ? parseJson(opts.kwargs, '--kwargs') : undefined;
        if (
          kwargs !== undefined &&
          (typeof kwargs !== 'object' || kwargs === null || Array.isArray(kwargs))
        ) {
          throw new CliError('--kwargs: a JSON object is required', 2);
        }
        let text: string;
        try {
          text = await renderChat(
            { tokenizerConfig, ...(opts.chatTemplate !== undefined && { chatTemplate: opts.chatTemplate }) },
            {
              messages,
              ...(tools !== undefined && { tools: tools as unknown[] }),
              addGenerationPrompt: opts.addGenerationPrompt ?? false,
              ...(kwargs !== undefined && { kwargs: kwargs as Record<string, unknown> }),
            },
            out.progress.bind(out),
          );
        } catch (e) {
          if (e instanceof ChatRenderError) throw new CliError(e.message);
          throw e;
        }
        out.result({ text });
        out.write(text);
      }),
    );
}

function configFile(ref: string): string {
  const file = existsSync(ref) && statSync(ref).isDirectory() ? join(ref, 'tokenizer_config.json') : ref;
  if (!existsSync(file)) throw new CliError(`--tokenizer-config ${ref}: no such file`, 2);
  return file;
}

function readText(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new CliError(`cannot read ${what} ${file}: ${(e as Error).message}`);
  }
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new CliError(`${what}: not valid JSON (${(e as Error).message})`);
  }
}
