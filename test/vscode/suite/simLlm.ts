/**
 * Test helpers for sim-llm: the answer it gives for a prompt, and token counts by the reference
 * tokenizer.
 */
import { Tokenizer } from 'tokenizers';
import { testEnv } from './testEnv.js';

let reference: Tokenizer | undefined;

/**
 * The exact answer of the gpt2-sim ensemble: sim-llm echoes the prompt's token ids cyclically,
 * cut at max_tokens, and the detokenize step decodes them. Computed with Hugging Face's own
 * tokenizer (npm `tokenizers`), independently of the C++ steps under test.
 */
export async function expectedAnswer(
  prompt: string,
  maxTokens = Number(testEnv('maxTokens')),
): Promise<string> {
  reference ??= Tokenizer.fromFile(testEnv('referenceTokenizer'));
  const ids = (await reference.encode(prompt, null, { addSpecialTokens: false })).getIds();
  return reference.decode(
    Array.from({ length: maxTokens }, (_, i) => ids[i % ids.length]!),
    true,
  );
}

/** Tokens in `text` by Hugging Face's own GPT-2 tokenizer (no special tokens, as perf counts). */
export async function referenceTokenCount(text: string): Promise<number> {
  reference ??= Tokenizer.fromFile(testEnv('referenceTokenizer'));
  return (await reference.encode(text, null, { addSpecialTokens: false })).getIds().length;
}
