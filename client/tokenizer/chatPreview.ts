/**
 * A chat template's preview: a conversation rendered by the native engine the steps run
 * (`ts-render-chat`), its special tokens marked and its tokens counted by the native tokenizer
 * (`ts-tokenize`, without added special tokens: the template writes them, as apply_chat_template
 * encodes). What the editor's preview beside a pipeline shows; no JavaScript re-implementation of
 * either.
 */
import { readFileSync } from 'node:fs';
import { ChatRenderError, renderChat } from '../chat/renderChat.js';
import { asTheStepSeesThem } from '../chat/stepRender.js';
import { NativeTokenizer } from './nativeTokenizer.js';
import { tokenizeTool } from './repositoryTokenizer.js';

export interface ChatPreviewRequest {
  /** The model's tokenizer_config.json (special tokens, and the template unless `chatTemplate`). */
  tokenizerConfig: string;
  /** A Jinja file used instead of the config's template. */
  chatTemplate?: string;
  /** The tokenizer.json that counts the tokens and knows which are special. */
  tokenizer: string;
  messages: unknown;
  tools?: unknown;
  kwargs?: Record<string, unknown>;
  addGenerationPrompt?: boolean;
}

export interface TextSegment {
  text: string;
  special: boolean;
}

export type ChatPreview =
  | { ok: true; text: string; segments: TextSegment[]; tokens: number }
  | { ok: false; error: string; kind: string; line?: number; column?: number };

export async function previewChat(request: ChatPreviewRequest): Promise<ChatPreview> {
  let text: string;
  try {
    text = await renderChat(
      {
        tokenizerConfig: request.tokenizerConfig,
        ...(request.chatTemplate && { chatTemplate: request.chatTemplate }),
      },
      {
        messages: asTheStepSeesThem(request.messages),
        ...(request.tools !== undefined && { tools: request.tools as unknown[] }),
        addGenerationPrompt: request.addGenerationPrompt ?? true,
        ...(request.kwargs && { kwargs: request.kwargs }),
      },
    );
  } catch (error) {
    if (!(error instanceof ChatRenderError)) throw error;
    const f = error.failure;
    return {
      ok: false,
      kind: f.kind,
      error: f.message,
      ...(f.line !== undefined && { line: f.line }),
      ...(f.column !== undefined && { column: f.column }),
    };
  }
  const tokenizer = new NativeTokenizer(await tokenizeTool(), request.tokenizer);
  try {
    const tokens = await tokenizer.count(text);
    return { ok: true, text, segments: markSpecialTokens(text, specialTokens(request.tokenizer)), tokens };
  } finally {
    tokenizer.close();
  }
}

/** The special tokens of a tokenizer.json (its added tokens marked special). */
export function specialTokens(tokenizerJson: string): string[] {
  const json = JSON.parse(readFileSync(tokenizerJson, 'utf8')) as {
    added_tokens?: { content: string; special?: boolean }[];
  };
  return (json.added_tokens ?? []).filter((t) => t.special && t.content !== '').map((t) => t.content);
}

/** `text` cut into runs of plain text and special tokens (the longest token wins where several start). */
export function markSpecialTokens(text: string, special: readonly string[]): TextSegment[] {
  const tokens = [...special].sort((a, b) => b.length - a.length);
  const segments: TextSegment[] = [];
  let plain = '';
  let i = 0;
  while (i < text.length) {
    const hit = tokens.find((t) => text.startsWith(t, i));
    if (hit) {
      if (plain) segments.push({ text: plain, special: false });
      plain = '';
      segments.push({ text: hit, special: true });
      i += hit.length;
    } else {
      plain += text[i];
      i += 1;
    }
  }
  if (plain) segments.push({ text: plain, special: false });
  return segments;
}
