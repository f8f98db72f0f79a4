/** Helpers the HTTP transports share: a whole answer as a prompt result, a stateless session. */
import type { PromptResult } from '../prompt.js';
import type { PromptRequest, PromptSession } from './types.js';

/** A one-response answer as a prompt result: the whole text is its only chunk. */
export function whole(text: string, latencyMs: number, request: PromptRequest): PromptResult {
  if (text !== '') request.onText?.(text);
  return {
    text,
    chunks: text === '' ? [] : [text],
    chunkMs: text === '' ? [] : [latencyMs],
    responses: 1,
    ttftMs: latencyMs,
    latencyMs,
  };
}

/** A session over per-request HTTP calls: nothing to release (connections belong to the transport). */
export function session(send: PromptSession['send']): PromptSession {
  return { send, close: () => undefined };
}
