/**
 * The `.prompt` file format (documented in docs/PROMPT-FILES.md): optional front matter between
 * `---` lines with `server`, `model`, `max_tokens`, `stop` and `chat_template_kwargs`, then prompts
 * separated by lines holding only `===`. A prompt whose first line is a role marker (`@system`,
 * `@user`, `@assistant`, `@tool`) is a conversation, sent as a chat. Pure text processing, no VS
 * Code: the CodeLens provider and the tests use it.
 */

import { chatPrompt } from '../../client/index.js';

export interface PromptFileSettings {
  /** `host:port` of a gRPC endpoint. */
  server?: string;
  model?: string;
  maxTokens?: number;
  /** The answer is cut before the first of these. */
  stop?: string[];
  /** Template variables for conversations (e.g. `{"enable_thinking": false}`). */
  chatTemplateKwargs?: Record<string, unknown>;
}

/** One message of a conversation block. */
export interface ChatMessage {
  role: string;
  content: string;
}

export interface PromptBlock {
  text: string;
  /** 0-based line of the block's first text line (where the CodeLens goes). */
  line: number;
  /** 0-based last line of the block's text. */
  endLine: number;
  /** A conversation block's messages (its text is then the conversation as `role: content` lines). */
  messages?: ChatMessage[];
}

export interface PromptFileError {
  line: number;
  message: string;
}

export interface PromptFile {
  settings: PromptFileSettings;
  blocks: PromptBlock[];
  errors: PromptFileError[];
}

export const BLOCK_SEPARATOR = '===';
const FRONT_MATTER = '---';

/** A front matter value: JSON when it parses (quoted strings with escapes, arrays), else the bare text. */
function value(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

function readSettings(lines: string[], first: number, errors: PromptFileError[]): PromptFileSettings {
  const settings: PromptFileSettings = {};
  lines.forEach((text, i) => {
    const line = first + i;
    if (text.trim() === '' || text.trimStart().startsWith('#')) return;
    const match = /^\s*([A-Za-z_]+)\s*:\s*(.*?)\s*$/.exec(text);
    if (!match) {
      errors.push({
        line,
        message: `expected 'key: value' (server, model, max_tokens, stop or chat_template_kwargs), found '${text.trim()}'`,
      });
      return;
    }
    const key = match[1]!;
    const v = value(match[2]!);
    switch (key) {
      case 'server':
      case 'model':
        if (typeof v !== 'string' || v === '')
          errors.push({ line, message: `${key} must be a non-empty text` });
        else settings[key] = v;
        break;
      case 'max_tokens':
        if (typeof v !== 'number' || !Number.isInteger(v) || v < 1)
          errors.push({ line, message: 'max_tokens must be a whole number, 1 or more' });
        else settings.maxTokens = v;
        break;
      case 'chat_template_kwargs':
        if (typeof v === 'object' && v !== null && !Array.isArray(v))
          settings.chatTemplateKwargs = v as Record<string, unknown>;
        else
          errors.push({
            line,
            message: 'chat_template_kwargs must be a JSON object, e.g. {"enable_thinking": false}',
          });
        break;
      case 'stop':
        if (typeof v === 'string' && v !== '') settings.stop = [v];
        else if (Array.isArray(v) && v.length > 0 && v.every((s) => typeof s === 'string' && s !== ''))
          settings.stop = v as string[];
        else
          errors.push({
            line,
            message: 'stop must be a text or a JSON list of texts, e.g. ["\\n\\n", "###"]',
          });
        break;
      default:
        errors.push({
          line,
          message: `unknown key '${key}': use server, model, max_tokens, stop or chat_template_kwargs`,
        });
    }
  });
  return settings;
}

export function parsePromptFile(text: string): PromptFile {
  const lines = text.split(/\r?\n/);
  const errors: PromptFileError[] = [];
  let settings: PromptFileSettings = {};
  let start = 0;
  if (lines[0]?.trim() === FRONT_MATTER) {
    const end = lines.findIndex((l, i) => i > 0 && l.trim() === FRONT_MATTER);
    if (end < 0) {
      errors.push({
        line: 0,
        message: `front matter opened with '${FRONT_MATTER}' is never closed: add a '${FRONT_MATTER}' line after it`,
      });
      return { settings, blocks: [], errors };
    }
    settings = readSettings(lines.slice(1, end), 1, errors);
    start = end + 1;
  }
  const blocks: PromptBlock[] = [];
  let current: number[] = [];
  const flush = () => {
    // Blank lines around a block are layout, not prompt.
    const kept = current.filter((i) => lines[i]!.trim() !== '');
    if (kept.length > 0) {
      const first = kept[0]!;
      const last = kept[kept.length - 1]!;
      const block: PromptBlock = {
        text: lines.slice(first, last + 1).join('\n'),
        line: first,
        endLine: last,
      };
      if (ROLE_MARKER.test(lines[first]!)) {
        block.messages = conversation(lines, first, last);
        // What a pipeline without a `messages` input gets: openai-serve's flattening.
        block.text = chatPrompt(block.messages);
      }
      blocks.push(block);
    }
    current = [];
  };
  for (let i = start; i < lines.length; i++) {
    if (lines[i]!.trim() === BLOCK_SEPARATOR) flush();
    else current.push(i);
  }
  flush();
  return { settings, blocks, errors };
}

/** `@role` at the start of a line (optionally followed by the message's first line) opens a message. */
const ROLE_MARKER = /^@(system|developer|user|assistant|tool)\b[ \t]?(.*)$/;

/** The messages of a block whose first line is a role marker; blank lines around each content are layout. */
function conversation(lines: string[], first: number, last: number): ChatMessage[] {
  const messages: { role: string; lines: string[] }[] = [];
  for (let i = first; i <= last; i++) {
    const marker = ROLE_MARKER.exec(lines[i]!);
    if (marker) messages.push({ role: marker[1]!, lines: marker[2] ? [marker[2]] : [] });
    else messages[messages.length - 1]!.lines.push(lines[i]!);
  }
  return messages.map(({ role, lines: content }) => {
    while (content.length > 0 && content[0]!.trim() === '') content.shift();
    while (content.length > 0 && content[content.length - 1]!.trim() === '') content.pop();
    return { role, content: content.join('\n') };
  });
}
