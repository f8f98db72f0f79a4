/**
 * The hook contract of tokenize/detokenize steps, once: which exported functions of a hooks
 * module (`"hooks": "hooks/x.ts"`) a step calls, with which signature, and where. The validator
 * checks a module against it, the C++ printer calls what it lists, and docs/HOOKS.md's contract
 * is checked against it by `test/unit/model-tables.test.ts`. Custom steps (`"source"`) have one
 * function, `execute` (CUSTOM_STEP_EXPORT).
 */
import type { NativeStepKind } from './portRoles.js';

/** A parameter or result type as the compiler names it (`TsType` kinds, or a module interface). */
export type HookValue = 'string' | 'StreamState' | 'HookInputs';

export interface HookDescriptor {
  readonly name: string;
  /** The step kind that calls it; the other kind ignores it (one module may serve both). */
  readonly stepKind: NativeStepKind;
  readonly params: readonly { readonly name: string; readonly type: HookValue; readonly optional?: true }[];
  readonly returns: HookValue;
  /** Exports that only make sense together (the streaming trio). */
  readonly group?: 'stream';
  readonly runs: string;
}

export const HOOK_EXPORTS = [
  {
    name: 'beforeEncode',
    stepKind: 'tokenize',
    params: [
      { name: 'prompt', type: 'string' },
      { name: 'inputs', type: 'HookInputs', optional: true },
    ],
    returns: 'string',
    runs: 'once per batch row, before encoding (prompt or chat template)',
  },
  {
    name: 'afterDecode',
    stepKind: 'detokenize',
    params: [{ name: 'text', type: 'string' }],
    returns: 'string',
    runs: 'once per answer that is not streamed: the whole decoded text',
  },
  {
    name: 'startStream',
    stepKind: 'detokenize',
    params: [],
    returns: 'StreamState',
    group: 'stream',
    runs: 'once per streamed request, before its first chunk',
  },
  {
    name: 'onChunk',
    stepKind: 'detokenize',
    params: [
      { name: 'state', type: 'StreamState' },
      { name: 'chunk', type: 'string' },
    ],
    returns: 'string',
    group: 'stream',
    runs: 'on every non-empty text delta of a streamed answer',
  },
  {
    name: 'endStream',
    stepKind: 'detokenize',
    params: [{ name: 'state', type: 'StreamState' }],
    returns: 'string',
    group: 'stream',
    runs: 'once when a streamed answer ends: what it returns is the last delta',
  },
] as const satisfies readonly HookDescriptor[];

export type HookName = (typeof HOOK_EXPORTS)[number]['name'];

/** The interface whose fields become optional STRING inputs of the step ("" when absent). */
export const HOOK_INPUTS_INTERFACE = 'HookInputs';
/** The per-request state of the streaming hooks. */
export const STREAM_STATE_INTERFACE = 'StreamState';

/** The one export of a custom step module. */
export const CUSTOM_STEP_EXPORT = {
  name: 'execute',
  signature: 'execute(rows: Row[], params?: Parameters): Out[]',
  runs: "once per request, over that request's batch rows",
} as const;

export function hooksOf(kind: NativeStepKind): readonly HookDescriptor[] {
  return HOOK_EXPORTS.filter((h) => h.stepKind === kind);
}

/** `name(a: T, b?: U): R`, as docs/HOOKS.md writes the signature. */
export function hookSignature(h: HookDescriptor): string {
  const params = h.params.map((p) => `${p.name}${'optional' in p ? '?' : ''}: ${p.type}`).join(', ');
  return `${h.name}(${params}): ${h.returns}`;
}

/**
 * What one call of a compiled module may take (issue 25): its time, and the memory its values
 * hold at once. Going over fails that request with an error that names the budget; the runtime
 * (backends/tsrt, ts_core.h) checks time at every call and loop iteration, memory at every
 * allocation. A recursion deeper than the stack allows is a RangeError, as in Node.
 */
export const MODULE_BUDGET = { timeMs: 10_000, memoryMB: 256 } as const;

/** A step's `budget` in the pipeline file: either limit may be left to its default; 0 lifts it. */
export interface ModuleBudget {
  timeMs?: number;
  memoryMB?: number;
}

/** The C++ statement that opens a call's budget in generated code. */
export function budgetScope(budget: ModuleBudget = {}): string {
  const timeMs = budget.timeMs ?? MODULE_BUDGET.timeMs;
  const bytes = (budget.memoryMB ?? MODULE_BUDGET.memoryMB) * 1024 * 1024;
  return `const tsrt::BudgetScope tsrt_budget(tsrt::Limits{${timeMs}, ${bytes}});`;
}
