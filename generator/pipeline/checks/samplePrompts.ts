/**
 * Sample prompts (`samplePrompts`): the editor sends each to the ensemble's STRING input, so a
 * pipeline that takes no text cannot answer them; and one prompt twice is a lens twice.
 */
import type { CheckContext } from './context.js';

export function checkSamplePrompts(ctx: CheckContext): void {
  const prompts = ctx.pipeline.samplePrompts;
  if (!prompts || prompts.length === 0) return;
  if (!ctx.inputs.some((i) => i.dataType === 'STRING')) {
    ctx.report(
      ['samplePrompts'],
      'TS-W012',
      'The pipeline has sample prompts but no STRING ensemble input to send them to: add a text input (e.g. "text_input") or remove "samplePrompts".',
      'warning',
      true,
    );
  }
  prompts.forEach((prompt, i) => {
    if (prompts.indexOf(prompt) < i)
      ctx.report(
        ['samplePrompts', i],
        'TS-W012',
        `Sample prompt ${i + 1} repeats sample prompt ${prompts.indexOf(prompt) + 1}: remove one.`,
        'warning',
      );
  });
}
