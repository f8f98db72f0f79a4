/**
 * A tokenize step's truncation/padding parameters (the table in model/encoderParameters.ts): a
 * value out of range or an unknown strategy is an error at the value (the step would refuse to
 * load); settings where Hugging Face aborts (stride not below the length a text is cut to) or
 * silently skips truncation (max_length below the special tokens' count) are warnings, since
 * the step follows HF there (a clear error per request, or no cut).
 */
import { ENCODER_PARAMETERS, type EncoderParameter } from '../../model/encoderParameters.js';
import type { ResolvedStep } from '../resolve.js';
import type { JsonPath } from '../source.js';
import type { CheckContext } from './context.js';

export interface SpecialCounts {
  single: number;
  pair: number;
}

/** Where a parameter's diagnostic points: its own value, or the preset that set it. */
function at(ctx: CheckContext, step: ResolvedStep, name: string): JsonPath {
  const own = ctx.pipeline.steps[step.index]?.parameters?.[name] !== undefined;
  return own ? [...step.path, 'parameters', name] : [...step.path, 'preset'];
}

function valueProblem(p: EncoderParameter, value: string): string | undefined {
  if (p.choices) {
    if (p.choices.includes(value)) return undefined;
    return `"${p.name}" is ${JSON.stringify(value)}; use one of ${p.choices.map((c) => `"${c}"`).join(', ')} (${p.doc}).`;
  }
  if (/^\d+$/.test(value.trim()) && Number(value) >= (p.min ?? 0)) return undefined;
  return `"${p.name}" must be a whole number ≥ ${p.min ?? 0} (${p.doc}); got ${JSON.stringify(value)}.`;
}

/** Values and strategies: needs nothing but the pipeline. */
export function checkEncoderParameters(ctx: CheckContext): void {
  for (const step of ctx.steps.filter((s) => s.kind === 'tokenize')) {
    for (const p of ENCODER_PARAMETERS) {
      const value = step.parameters[p.name];
      if (value === undefined) continue;
      const problem = valueProblem(p, value);
      if (problem) ctx.report(at(ctx, step, p.name), p.choices ? 'TS-E091' : 'TS-E090', problem);
    }
    if (step.parameters.padding_strategy === 'fixed' && step.parameters.padding_length === undefined) {
      ctx.report(
        at(ctx, step, 'padding_strategy'),
        'TS-E092',
        '"padding_strategy": "fixed" pads every row to "padding_length", which is not set: set it (e.g. 128), or use "batch_longest".',
      );
    }
  }
}

function count(step: ResolvedStep, name: string): number | undefined {
  const value = step.parameters[name];
  return value !== undefined && /^\d+$/.test(value.trim()) ? Number(value) : undefined;
}

/**
 * Lengths against the tokenizer's special tokens (`specials` of the step's tokenizer.json; 0 when
 * unknown): HF subtracts them from max_length before cutting.
 */
export function checkEncoderLengths(
  ctx: CheckContext,
  specials: (step: ResolvedStep) => SpecialCounts | undefined,
): void {
  for (const step of ctx.steps.filter((s) => s.kind === 'tokenize')) {
    const maxLength = count(step, 'max_length');
    if (maxLength === undefined || maxLength < 1) continue; // < 1: TS-E090 says so
    const pair = step.inputs.some((p) => p.role === 'textPair');
    const known = specials(step);
    const added = known ? (pair ? known.pair : known.single) : 0;
    if (maxLength < added) {
      ctx.report(
        at(ctx, step, 'max_length'),
        'TS-W091',
        `"max_length": ${maxLength} is below the ${added} special tokens the tokenizer adds to ${pair ? 'a pair' : 'a text'}: ` +
          `Hugging Face's subtraction then wraps and skips the exact cut (only its per-word early limit applies), and this step does the same. Use at least ${added + 1}.`,
        'warning',
      );
      continue;
    }
    const stride = count(step, 'stride');
    if (stride === undefined || stride === 0) continue;
    // The shortest cut: a pair under longest_first may be cut to half of what the specials leave.
    const left = maxLength - added;
    const longestFirst = (step.parameters.truncation_strategy ?? 'longest_first') === 'longest_first';
    const cut = pair && longestFirst ? Math.floor(left / 2) : left;
    if (stride < cut) continue;
    ctx.report(
      at(ctx, step, 'stride'),
      'TS-W090',
      `"stride": ${stride} is not below ${cut}, the length a ${pair ? "pair's text" : 'text'} is cut to ` +
        `(max_length ${maxLength} minus ${added} special tokens${cut < left ? ', halved for a pair' : ''}): Hugging Face aborts ` +
        `when it has to cut a text that far, and this step refuses such a request. Lower the stride (0 unless you need overflow windows) or raise max_length.`,
      'warning',
    );
  }
}
