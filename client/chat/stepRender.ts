/**
 * A conversation rendered exactly as a tokenize step renders its `messages` input
 * (backends/triton/src/chat_prompt.cc): text parts joined with "\n", `add_generation_prompt` true
 * unless `chat_template_kwargs` says otherwise (it and `continue_final_message` are taken out of
 * the template variables there), by the native engine the step runs. What the step then encodes
 * without adding special tokens: its ids are the ids the model step receives.
 */
import type { ChatRenderRequest } from './renderChat.js';

export interface StepConversation {
  messages: unknown;
  tools?: unknown;
  chatTemplateKwargs?: Record<string, unknown>;
}

/** The render request the step makes of a conversation. */
export function stepRenderRequest(chat: StepConversation): ChatRenderRequest {
  const kwargs = { ...chat.chatTemplateKwargs };
  const control = (name: string): boolean | undefined => {
    const value = kwargs[name];
    delete kwargs[name];
    return typeof value === 'boolean' ? value : undefined;
  };
  const addGenerationPrompt = control('add_generation_prompt') ?? true;
  const continueFinalMessage = control('continue_final_message') ?? false;
  return {
    messages: asTheStepSeesThem(chat.messages),
    ...(chat.tools !== undefined && chat.tools !== null && { tools: chat.tools as unknown[] }),
    addGenerationPrompt: addGenerationPrompt && !continueFinalMessage,
    continueFinalMessage,
    kwargs,
  };
}

/** Text parts joined with "\n", as the tokenize step joins them (chat_prompt.cc). */
export function asTheStepSeesThem(messages: unknown): unknown[] {
  if (!Array.isArray(messages)) throw new Error('messages must be a JSON array of {"role", "content"}');
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
