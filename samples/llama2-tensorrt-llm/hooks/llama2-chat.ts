/**
 * Llama-2 chat template as a before-encode hook: the prompt becomes one user turn, with the
 * optional system prompt the request may carry (the `system_prompt` input of the step).
 * Compiled to C++ by Triton Studio (docs/HOOKS.md).
 */

/** Optional request inputs this hook reads: each field is an optional STRING input of the step. */
export interface HookInputs {
  system_prompt: string;
}

const B_INST = '[INST]';
const E_INST = '[/INST]';

export function beforeEncode(prompt: string, inputs: HookInputs): string {
  const system = inputs.system_prompt.trim();
  const sys = system !== '' ? `<<SYS>>\n${system}\n<</SYS>>\n\n` : '';
  return `${B_INST} ${sys}${prompt.trim()} ${E_INST}`;
}

/** Llama-2 sometimes repeats the closing marker; the answer ends before it. */
export function afterDecode(text: string): string {
  const end = text.indexOf(E_INST);
  return (end >= 0 ? text.slice(0, end) : text).trim();
}
