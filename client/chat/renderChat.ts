/**
 * The model's chat template rendered by the native engine (backends/chat-template, the same C++
 * the steps run) from Node: the `ts-render-chat` tool in batch mode, built on first use.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildBackends } from '../../generator/index.js';
import { packageRoot } from '../paths.js';

/** The arguments of transformers' apply_chat_template(tokenize=False). */
export interface ChatRenderRequest {
  /** OpenAI-style messages: `role`, `content` (string or typed parts), `tool_calls`, … */
  messages: unknown[];
  tools?: unknown[];
  documents?: unknown[];
  addGenerationPrompt?: boolean;
  continueFinalMessage?: boolean;
  /** chat_template_kwargs such as `enable_thinking`. */
  kwargs?: Record<string, unknown>;
  /** A template of a config's named list ("default", "tool_use"); transformers' choice when absent. */
  templateName?: string;
  /** strftime_now's clock, in seconds since the epoch (the current time when absent). */
  now?: number;
}

/** Why a template did not render: `raised` is the template's own raise_exception message. */
export interface ChatRenderFailure {
  kind: 'syntax' | 'unsupported' | 'raised' | 'runtime' | 'limit' | 'config';
  message: string;
  line?: number;
  column?: number;
  construct?: string;
}

export class ChatRenderError extends Error {
  constructor(readonly failure: ChatRenderFailure) {
    super(failure.message);
    this.name = 'ChatRenderError';
  }
}

export interface ChatTemplateSource {
  /** The model's tokenizer_config.json (its chat_template and special tokens). */
  tokenizerConfig: string;
  /** A Jinja file used instead of the config's chat_template. */
  chatTemplate?: string;
}

/** `build/backends/tools/ts-render-chat`, built (incrementally, by CMake) before use. */
export async function renderChatTool(progress: (line: string) => void = () => undefined): Promise<string> {
  const buildDir = join(packageRoot(), 'build', 'backends');
  const binary = join(buildDir, 'tools', 'ts-render-chat');
  if (!existsSync(binary)) progress('building the native chat-template engine (ts-render-chat), once…');
  await buildBackends({ buildDir, targets: ['ts-render-chat'] });
  return binary;
}

/**
 * Renders each request with one template (one process for all of them); each answer is the text
 * or the failure, in order. A template that cannot be loaded rejects with ChatRenderError.
 */
export async function renderChats(
  source: ChatTemplateSource,
  requests: readonly ChatRenderRequest[],
  progress?: (line: string) => void,
): Promise<Array<{ text: string } | { error: ChatRenderFailure }>> {
  const binary = await renderChatTool(progress);
  const args = ['--tokenizer-config', source.tokenizerConfig, '--batch'];
  if (source.chatTemplate !== undefined) args.push('--chat-template', source.chatTemplate);
  const input = requests.map((r) => `${JSON.stringify(toWire(r))}\n`).join('');
  const { code, stdout, stderr } = await runTool(binary, args, input);
  const lines = stdout.split('\n').filter((l) => l !== '');
  const answers = lines.map((l) => JSON.parse(l) as { text: string } | { error: ChatRenderFailure });
  if (code !== 0 || answers.length !== requests.length) {
    const first = answers[0];
    if (first && 'error' in first) throw new ChatRenderError(first.error);
    throw new ChatRenderError({
      kind: 'config',
      message: stderr.trim().replace(/^ts-render-chat: /, '') || `ts-render-chat exited with ${code}`,
    });
  }
  return answers;
}

/** Renders one request; its failure rejects with ChatRenderError. */
export async function renderChat(
  source: ChatTemplateSource,
  request: ChatRenderRequest,
  progress?: (line: string) => void,
): Promise<string> {
  const [answer] = await renderChats(source, [request], progress);
  if (!answer) throw new ChatRenderError({ kind: 'config', message: 'ts-render-chat gave no answer' });
  if ('error' in answer) throw new ChatRenderError(answer.error);
  return answer.text;
}

/** A request as ts-render-chat reads it (one JSON line in batch mode). */
export function toWire(r: ChatRenderRequest): Record<string, unknown> {
  return {
    messages: r.messages,
    ...(r.tools !== undefined && { tools: r.tools }),
    ...(r.documents !== undefined && { documents: r.documents }),
    add_generation_prompt: r.addGenerationPrompt ?? false,
    continue_final_message: r.continueFinalMessage ?? false,
    kwargs: r.kwargs ?? {},
    ...(r.templateName !== undefined && { template_name: r.templateName }),
    ...(r.now !== undefined && { now: r.now }),
  };
}

function runTool(
  binary: string,
  args: string[],
  input: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(binary, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolveRun({ code: code ?? 1, stdout, stderr }));
    child.stdin.on('error', () => undefined); // a template that fails to load closes stdin early
    child.stdin.end(input);
  });
}
