/**
 * A chat template's preview: a conversation rendered by the native engine the steps run
 * (`ts-render-chat`), its special tokens marked and its tokens counted by the native tokenizer
 * (`ts-tokenize`, without added special tokens: the template writes them, as apply_chat_template
 * encodes). What the editor's preview beside a pipeline shows; no JavaScript re-implementation of
 * either.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildBackends } from '../../generator/index.js';
import { packageRoot } from '../paths.js';
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

/** `build/backends/tools/ts-render-chat`, built (incrementally) before use. */
export async function renderChatTool(progress: (line: string) => void = () => undefined): Promise<string> {
  const buildDir = join(packageRoot(), 'build', 'backends');
  const binary = join(buildDir, 'tools', 'ts-render-chat');
  if (!existsSync(binary)) progress('building the native chat-template renderer (ts-render-chat), once…');
  await buildBackends({ buildDir, targets: ['ts-render-chat'] });
  return binary;
}

export async function previewChat(request: ChatPreviewRequest): Promise<ChatPreview> {
  const args = ['--tokenizer-config', request.tokenizerConfig, '--batch'];
  if (request.chatTemplate) args.push('--chat-template', request.chatTemplate);
  const line = JSON.stringify({
    messages: asTheStepSeesThem(request.messages),
    ...(request.tools !== undefined && { tools: request.tools }),
    add_generation_prompt: request.addGenerationPrompt ?? true,
    kwargs: request.kwargs ?? {},
  });
  return finish(await run(await renderChatTool(), args, `${line}\n`), request);
}

/** Text parts joined with "\n", as the tokenize step joins them (backends/triton chat_prompt.cc). */
function asTheStepSeesThem(messages: unknown): unknown {
  if (!Array.isArray(messages)) return messages;
  return messages.map((m: unknown) => {
    const content = (m as { content?: unknown } | null)?.content;
    if (
      !Array.isArray(content) ||
      !content.every((p: { type?: unknown; text?: unknown }) => p?.type === 'text')
    )
      return m;
    return { ...(m as object), content: content.map((p: { text?: unknown }) => String(p.text)).join('\n') };
  });
}

async function finish(stdout: string, request: ChatPreviewRequest): Promise<ChatPreview> {
  let parsed: { text?: string; error?: { kind?: string; message?: string; line?: number; column?: number } };
  try {
    parsed = JSON.parse(stdout.trim().split('\n')[0] ?? '') as typeof parsed;
  } catch {
    return { ok: false, kind: 'tool', error: `ts-render-chat answered no JSON: ${stdout.slice(0, 200)}` };
  }
  if (parsed.error || parsed.text === undefined) {
    const e = parsed.error ?? {};
    return {
      ok: false,
      kind: e.kind ?? 'unknown',
      error: e.message ?? 'the template gave no text',
      ...(e.line !== undefined && { line: e.line }),
      ...(e.column !== undefined && { column: e.column }),
    };
  }
  const tokenizer = new NativeTokenizer(await tokenizeTool(), request.tokenizer);
  try {
    const tokens = await tokenizer.count(parsed.text);
    return {
      ok: true,
      text: parsed.text,
      segments: markSpecialTokens(parsed.text, specialTokens(request.tokenizer)),
      tokens,
    };
  } finally {
    tokenizer.close();
  }
}

function run(tool: string, args: string[], input: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(tool, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.on('error', reject);
    child.on('close', () => resolve(Buffer.concat(out).toString('utf8')));
    child.stdin.end(input);
  });
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
