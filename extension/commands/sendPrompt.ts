/**
 * Send Prompt: a prompt (or a .prompt file block) to a pipeline, its answer in the output channel.
 */
import { performance } from 'node:perf_hooks';
import * as vscode from 'vscode';
import { sendPrompt, type ChatPromptInputs, type PromptResult } from '../../client/index.js';
import type { Ctx } from '../context.js';
import { readPromptSettings, type PromptSettings } from '../settings.js';
import type { AnswerSession } from '../views/answerPanel.js';
import type { PromptRecord } from '../views/promptOutput.js';
import { describePromptFailure } from './promptFailure.js';
import { showError, startLocalServerAction, openSetting, type ErrorAction } from './ui.js';

export const SEND_PROMPT_COMMAND = 'tritonStudio.sendPrompt';

/** A prompt with its own settings (a `.prompt` file block); each one left out comes from the settings. */
export interface PromptRequest {
  text: string;
  /** A conversation (a `.prompt` file's `@role` block), sent to the pipeline's chat template. */
  chat?: ChatPromptInputs;
  serverUrl?: string;
  model?: string;
  maxTokens?: number;
  /** The answer is cut before the first of these, and the request stopped there. */
  stop?: string[];
  /** The document whose folder settings apply. */
  uri?: vscode.Uri;
}

/**
 * What the command resolves to, so callers (tests, other extensions, keybindings with args) can
 * use the answer. `undefined` when the user dismissed the prompt input.
 */
export type SendPromptOutcome =
  | ({ ok: true; stoppedAt?: string } & PromptRecord &
      Pick<PromptResult, 'text' | 'latencyMs' | 'ttftMs' | 'responses'>)
  | { ok: false; error: string; setting?: string; cancelled: boolean };

/**
 * "Triton Studio: Send Prompt": sends the given text (or PromptRequest), else the editor
 * selection, else what the user types, to the configured model; the answer streams into the
 * answer panel and is logged to the output channel.
 */
export async function sendPromptCommand(ctx: Ctx, given?: unknown): Promise<SendPromptOutcome | undefined> {
  const editor = vscode.window.activeTextEditor;
  // A string is the prompt; an object may carry its own settings (a CodeLens) with or without the text.
  const partial: Partial<PromptRequest> =
    typeof given === 'string' ? { text: given } : isPromptRequest(given) ? given : {};
  const text = partial.text ?? selectedText(editor) ?? (await askForPrompt(ctx.draftPrompt));
  const request: PromptRequest | undefined = text === undefined ? undefined : { ...partial, text };
  if (request === undefined) return undefined;
  const prompt = request.text;

  let settings: PromptSettings | undefined;
  let record: PromptRecord | undefined;
  // Cancelling the progress notification, or Stop in the answer panel, aborts the request.
  const abort = new AbortController();
  let session: AnswerSession | undefined;
  try {
    const scope = request.uri ?? editor?.document.uri;
    const target = await ctx.server(scope, request.serverUrl);
    settings = readPromptSettings(scope, target.url, request);
    record = { ...settings, prompt };
    const { model, maxTokens } = settings;
    session = ctx.answers.begin({ prompt, model, serverUrl: target.url, maxTokens }, () => abort.abort());
    const { final, stoppedAt } = await streamAnswer(target.client, settings, request, session, abort);
    session.done(final);
    ctx.draftPrompt = undefined;
    ctx.prompts.showAnswer(record, final);
    const { text, latencyMs, ttftMs, responses } = final;
    return {
      ok: true,
      ...record,
      text,
      latencyMs,
      ttftMs,
      responses,
      ...(stoppedAt !== undefined ? { stoppedAt } : {}),
    };
  } catch (error) {
    // A prompt the user typed is kept: the input box offers it again, and so does Send Again.
    const typed = partial.text === undefined && selectedText(editor) === undefined;
    return reportFailure(ctx, error, { request, settings, record, session, typed }, abort.signal.aborted);
  }
}

/**
 * Streams the answer into the answer panel under a cancellable progress notification; the answer
 * is cut (and the request stopped) at the first of the request's stop words.
 */
async function streamAnswer(
  client: Parameters<typeof sendPrompt>[0],
  { model, maxTokens }: PromptSettings,
  request: PromptRequest,
  session: AnswerSession,
  abort: AbortController,
): Promise<{ final: PromptResult; stoppedAt?: string }> {
  let answer = '';
  let stoppedAt: string | undefined;
  const started = performance.now();
  let firstAt: number | undefined;
  const result = await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: `Triton Studio: ${model} is answering…`,
      cancellable: true,
    },
    async (_progress, token) => {
      token.onCancellationRequested(() => abort.abort());
      try {
        return await sendPrompt(client, {
          model,
          text: request.text,
          chat: request.chat,
          maxTokens,
          stream: true,
          signal: abort.signal,
          onText: (chunk) => {
            if (stoppedAt !== undefined) return;
            firstAt ??= performance.now();
            const before = answer.length;
            answer += chunk;
            const hit = firstStop(answer, request.stop);
            if (hit) {
              stoppedAt = hit.word;
              answer = answer.slice(0, hit.index);
              if (answer.length > before) session.chunk(answer.slice(before));
              abort.abort();
              return;
            }
            session.chunk(chunk);
          },
        });
      } catch (error) {
        if (stoppedAt === undefined) throw error;
        // Stopped at a stop word: the answer so far is the answer.
        return undefined;
      }
    },
  );
  if (stoppedAt === undefined && result) return { final: result };
  const now = performance.now();
  const final: PromptResult = {
    text: answer,
    chunks: [answer],
    responses: result?.responses ?? 0,
    ttftMs: (firstAt ?? now) - started,
    latencyMs: now - started,
  };
  return { final, stoppedAt };
}

/** Shows a failed prompt in the output channel, the answer panel and a toast with the buttons that fix it. */
function reportFailure(
  ctx: Ctx,
  error: unknown,
  sent: {
    request: PromptRequest;
    settings?: PromptSettings;
    record?: PromptRecord;
    session?: AnswerSession;
    typed: boolean;
  },
  aborted: boolean,
): SendPromptOutcome {
  const { request, settings, record, session, typed } = sent;
  const failure = describePromptFailure(error, settings, aborted);
  if (failure.unreachable && settings) ctx.connections.forget(settings.serverUrl);
  ctx.prompts.showError(failure.message, record);
  session?.fail(failure.message, failure.cancelled);
  if (typed) ctx.draftPrompt = request.text;
  if (!failure.cancelled) {
    // The button that fixes the failure first.
    const actions: ErrorAction[] = [];
    if (failure.setting) actions.push(openSetting(failure.setting));
    // Offered only when there is a generated repository for a local server to serve.
    if (failure.unreachable && !ctx.localServer.running && ctx.lastRepository)
      actions.push(startLocalServerAction);
    if (typed)
      actions.push({
        title: 'Send Again',
        run: () => vscode.commands.executeCommand(SEND_PROMPT_COMMAND, request),
      });
    void showError(ctx, failure.message, ...actions);
  }
  return { ok: false, error: failure.message, setting: failure.setting, cancelled: failure.cancelled };
}

function isPromptRequest(value: unknown): value is Partial<PromptRequest> {
  return typeof value === 'object' && value !== null && !(value instanceof vscode.Uri);
}

/** Where the first stop word starts in `text`, if any. */
export function firstStop(
  text: string,
  stop: string[] | undefined,
): { word: string; index: number } | undefined {
  let best: { word: string; index: number } | undefined;
  for (const word of stop ?? []) {
    if (word === '') continue;
    const index = text.indexOf(word);
    if (index >= 0 && (!best || index < best.index)) best = { word, index };
  }
  return best;
}

/** The selections' text (several selections joined by newlines); undefined when nothing is selected. */
function selectedText(editor: vscode.TextEditor | undefined): string | undefined {
  if (!editor) return undefined;
  const parts = editor.selections.filter((s) => !s.isEmpty).map((s) => editor.document.getText(s));
  return parts.length > 0 ? parts.join('\n') : undefined;
}

async function askForPrompt(draft: string | undefined): Promise<string | undefined> {
  return vscode.window.showInputBox({
    title: 'Triton Studio: Send Prompt',
    value: draft,
    prompt: 'Text to send to the configured model (select text in an editor to send that instead)',
    ignoreFocusOut: true,
    validateInput: (value) =>
      value.trim() === '' ? 'Type a prompt: the model needs at least one token.' : undefined,
  });
}
