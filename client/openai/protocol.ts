/**
 * The subset of OpenAI's API the front serves: request checking and the JSON shapes of
 * `/v1/completions` and `/v1/chat/completions` answers, streamed chunks and errors.
 */

export type Kind = 'completions' | 'chat';

export interface ParsedRequest {
  kind: Kind;
  model: string;
  /** The prompt as sent to the ensemble's `text_input` (chat: the messages rendered, see `chatPrompt`). */
  prompt: string;
  maxTokens: number;
  stream: boolean;
  includeUsage: boolean;
  /** Chat: the conversation as sent, for a pipeline that renders the model's own chat template. */
  chat?: ChatInputs;
  /** The sampling fields the request set, under TensorRT-LLM's input names. */
  sampling: Sampling;
}

/** What a chat request gives a pipeline's `messages` / `tools` / `chat_template_kwargs` inputs. */
export interface ChatInputs {
  messages: unknown[];
  tools?: unknown[];
  chatTemplateKwargs?: Record<string, unknown>;
}

/**
 * OpenAI's sampling fields under the names TensorRT-LLM's ensembles (and Triton's own OpenAI
 * frontend) use; each is sent only where the model has an input of that name.
 */
export type Sampling = {
  temperature?: number;
  top_p?: number;
  top_k?: number;
  random_seed?: number;
  stop_words?: string[];
  presence_penalty?: number;
  frequency_penalty?: number;
};

/** OpenAI's default for `max_tokens` on completions. */
export const DEFAULT_MAX_TOKENS = 16;

/** `max_tokens` travels as the ensembles' INT32 `max_tokens`: larger values cannot be sent. */
export const MAX_MAX_TOKENS = 2 ** 31 - 1;

/** What the front accepts of one request, before anything reaches the tokenizer or Triton. */
export interface RequestLimits {
  /** The prompt's UTF-8 size (chat: the rendered messages). */
  maxPromptBytes: number;
}

/** A request the front refuses: HTTP status plus OpenAI's error object. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type:
      | 'invalid_request_error'
      | 'authentication_error'
      | 'not_found_error'
      | 'rate_limit_error'
      | 'server_error' = 'invalid_request_error',
    readonly param: string | null = null,
    readonly code: string | null = null,
  ) {
    super(message);
  }

  body(): { error: { message: string; type: string; param: string | null; code: string | null } } {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

const invalid = (message: string, param: string) =>
  new ApiError(400, message, 'invalid_request_error', param);

/**
 * Checks a request body as OpenAI does (the fields the front uses). Sampling fields go to the
 * model's inputs of TensorRT-LLM's names where it has them (`Sampling`); others are ignored.
 */
export function parseRequest(kind: Kind, body: unknown, limits?: RequestLimits): ParsedRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError(400, 'the request body must be a JSON object');
  }
  const b = body as Record<string, unknown>;
  if (typeof b.model !== 'string' || b.model === '')
    throw invalid("'model' is required: the ensemble's name", 'model');
  wellFormed(b.model, 'model');
  const n = b.n ?? 1;
  if (n !== 1) throw invalid('only n = 1 is supported: one answer per request', 'n');
  if (b.echo === true) throw invalid("'echo' is not supported: answers never include the prompt", 'echo');
  const maxTokens = b.max_completion_tokens ?? b.max_tokens ?? DEFAULT_MAX_TOKENS;
  if (!Number.isInteger(maxTokens) || (maxTokens as number) < 1 || (maxTokens as number) > MAX_MAX_TOKENS) {
    throw invalid(`'max_tokens' must be a whole number from 1 to ${MAX_MAX_TOKENS} (2^31 - 1)`, 'max_tokens');
  }
  if (b.stream !== undefined && typeof b.stream !== 'boolean')
    throw invalid("'stream' must be true or false", 'stream');
  const options = b.stream_options as { include_usage?: unknown } | undefined | null;
  const param = kind === 'chat' ? 'messages' : 'prompt';
  const prompt = kind === 'chat' ? chatPrompt(b.messages) : completionPrompt(b.prompt);
  if (prompt === '') throw invalid(`the prompt is empty: give '${param}' some text`, param);
  wellFormed(prompt, param);
  // What else reaches the pipeline as text (a chat's tools and template variables, stop words).
  for (const field of ['tools', 'chat_template_kwargs', 'stop']) wellFormedDeep(b[field], field);
  if (limits && prompt.length > limits.maxPromptBytes / 3) {
    // A UTF-16 unit is at most 3 UTF-8 bytes: only long prompts are measured.
    const bytes = Buffer.byteLength(prompt, 'utf8');
    if (bytes > limits.maxPromptBytes) {
      throw new ApiError(
        400,
        `the prompt is ${bytes} bytes of UTF-8, over this server's limit of ${limits.maxPromptBytes} ` +
          '(openai-serve --max-prompt-bytes): shorten it',
        'invalid_request_error',
        param,
        'context_length_exceeded',
      );
    }
  }
  return {
    kind,
    model: b.model,
    prompt,
    maxTokens: maxTokens as number,
    stream: b.stream === true,
    includeUsage: b.stream === true && options?.include_usage === true,
    ...(kind === 'chat' && { chat: chatInputs(b) }),
    sampling: sampling(b),
  };
}

function chatInputs(b: Record<string, unknown>): ChatInputs {
  const inputs: ChatInputs = { messages: b.messages as unknown[] };
  if (b.tools !== undefined && b.tools !== null) {
    if (!Array.isArray(b.tools)) throw invalid("'tools' must be an array of tools", 'tools');
    inputs.tools = b.tools;
  }
  const kwargs = b.chat_template_kwargs;
  if (kwargs !== undefined && kwargs !== null) {
    if (typeof kwargs !== 'object' || Array.isArray(kwargs))
      throw invalid("'chat_template_kwargs' must be an object of template variables", 'chat_template_kwargs');
    inputs.chatTemplateKwargs = kwargs as Record<string, unknown>;
  }
  return inputs;
}

function sampling(b: Record<string, unknown>): Sampling {
  const out: Sampling = {};
  const number = (field: string, min: number, max: number): number | undefined => {
    const v = b[field];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max)
      throw invalid(`'${field}' must be a number from ${min} to ${max}`, field);
    return v;
  };
  const integer = (field: string, min: number): number | undefined => {
    const v = number(field, min, Number.MAX_SAFE_INTEGER);
    if (v !== undefined && !Number.isInteger(v)) throw invalid(`'${field}' must be a whole number`, field);
    return v;
  };
  const set = <K extends keyof Sampling>(key: K, value: Sampling[K] | undefined) => {
    if (value !== undefined) out[key] = value;
  };
  set('temperature', number('temperature', 0, 2));
  set('top_p', number('top_p', 0, 1));
  set('top_k', integer('top_k', 0));
  set('random_seed', integer('seed', 0));
  set('presence_penalty', number('presence_penalty', -2, 2));
  set('frequency_penalty', number('frequency_penalty', -2, 2));
  const stop = b.stop;
  if (typeof stop === 'string') out.stop_words = [stop];
  else if (Array.isArray(stop) && stop.every((w) => typeof w === 'string')) {
    if (stop.length > 0) out.stop_words = stop as string[];
  } else if (stop !== undefined && stop !== null)
    throw invalid("'stop' must be a string or an array of strings", 'stop');
  return out;
}

/**
 * JSON can carry lone UTF-16 surrogates (`"\\ud800"`), which no UTF-8 text holds: the request is
 * refused (not repaired with U+FFFD), so the model never answers a prompt other than the one sent.
 */
function wellFormed(text: string, param: string): void {
  const lone = LONE_SURROGATE.exec(text);
  if (!lone) return;
  const unit = lone[0].charCodeAt(0).toString(16);
  throw invalid(
    `'${param}' holds a lone UTF-16 surrogate (\\u${unit} at offset ${lone.index}), which is not Unicode text: ` +
      'send surrogates only in pairs (or the character itself as UTF-8)',
    param,
  );
}

/** `wellFormed` for every string (and key) inside a JSON value; iterative, as deep as JSON.parse went. */
function wellFormedDeep(value: unknown, param: string): void {
  const pending = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v === 'string') wellFormed(v, param);
    else if (Array.isArray(v)) pending.push(...(v as unknown[]));
    else if (typeof v === 'object' && v !== null) {
      for (const [k, inner] of Object.entries(v)) {
        wellFormed(k, param);
        pending.push(inner);
      }
    }
  }
}

/** With the `u` flag a paired surrogate is one code point: only a lone one is `Cs`. */
const LONE_SURROGATE = /\p{Cs}/u;

function completionPrompt(prompt: unknown): string {
  if (typeof prompt === 'string') return prompt;
  if (Array.isArray(prompt) && prompt.length === 1 && typeof prompt[0] === 'string') return prompt[0];
  throw invalid(
    "'prompt' must be a string (one prompt per request; token-id prompts are not supported)",
    'prompt',
  );
}

/**
 * Chat messages → one prompt, for a pipeline without a `messages` input (one that has it renders
 * the model's own chat template natively, see `ChatInputs`): a single user message is sent as it
 * is; a conversation is rendered one `role: content` line per message, ending with `assistant:`.
 */
export function chatPrompt(messages: unknown): string {
  if (!Array.isArray(messages) || messages.length === 0) {
    throw invalid("'messages' must be a non-empty array of {role, content}", 'messages');
  }
  const lines = messages.map((m, i) => {
    const message = m as { role?: unknown; content?: unknown };
    if (typeof message?.role !== 'string') throw invalid(`messages[${i}].role must be a string`, 'messages');
    // An assistant message that only calls tools has no content.
    return { role: message.role, content: message.content === null ? '' : messageText(message.content, i) };
  });
  if (lines.length === 1 && lines[0]!.role === 'user') return lines[0]!.content;
  return `${lines.map((l) => `${l.role}: ${l.content}`).join('\n')}\nassistant:`;
}

function messageText(content: unknown, i: number): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part: { type?: unknown; text?: unknown }) => {
        if (part?.type === 'text' && typeof part.text === 'string') return part.text;
        throw invalid(`messages[${i}].content: only text parts are supported`, 'messages');
      })
      .join('');
  }
  throw invalid(`messages[${i}].content must be a string or text parts`, 'messages');
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export function usage(promptTokens: number, completionTokens: number): Usage {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
}

/** `length` when the answer used every token it was allowed, else `stop`. */
export function finishReason(completionTokens: number, maxTokens: number): 'length' | 'stop' {
  return completionTokens >= maxTokens ? 'length' : 'stop';
}

interface Head {
  id: string;
  created: number;
  model: string;
}

/** The whole answer of a request that did not stream. */
export function completion(kind: Kind, head: Head, text: string, finish: string, counted: Usage): object {
  return kind === 'chat'
    ? {
        ...head,
        object: 'chat.completion',
        choices: [
          { index: 0, message: { role: 'assistant', content: text }, logprobs: null, finish_reason: finish },
        ],
        usage: counted,
      }
    : {
        ...head,
        object: 'text_completion',
        choices: [{ index: 0, text, logprobs: null, finish_reason: finish }],
        usage: counted,
      };
}

/**
 * One streamed chunk: `text` (chat: `delta.content`), or the role announcement (chat's first chunk),
 * or the finish reason (last chunk with a choice). With `include_usage` every chunk carries
 * `usage: null` and a final chunk with no choices carries the counts.
 */
export function chunk(
  kind: Kind,
  head: Head,
  part: { text?: string; role?: boolean; finish?: string; usage?: Usage | null },
): object {
  const withUsage = part.usage !== undefined ? { usage: part.usage } : {};
  const object = kind === 'chat' ? 'chat.completion.chunk' : 'text_completion';
  if (part.usage) return { ...head, object, choices: [], ...withUsage };
  const finish = part.finish ?? null;
  const choice =
    kind === 'chat'
      ? {
          index: 0,
          delta: part.role
            ? { role: 'assistant', content: '' }
            : part.text !== undefined
              ? { content: part.text }
              : {},
          logprobs: null,
          finish_reason: finish,
        }
      : { index: 0, text: part.text ?? '', logprobs: null, finish_reason: finish };
  return { ...head, object, choices: [choice], ...withUsage };
}
