/**
 * The C++ that hands a compiled hooks module to a native step: a `Hooks()` function filling
 * `triton_studio::steps::StepHooks` (backends/triton/include/triton_studio/step_hooks.h) with
 * lambdas that convert UTF-8 to JavaScript strings and call the module's functions. Only the hooks
 * the step's kind calls are wired (model/hooks.ts); the module itself is `module.h`.
 */
import {
  budgetScope,
  HOOK_INPUTS_INTERFACE,
  STREAM_STATE_INTERFACE,
  type HookName,
  type ModuleBudget,
} from '../../model/hooks.js';
import { cppName, type CompiledModule } from '../../tscompile/index.js';
import { cppStringLiteral } from './escape.js';

export interface StepHooksModel {
  module: CompiledModule;
  /** The module as the pipeline names it (relative to the pipeline file). */
  source: string;
  /** The hooks this step calls. */
  hooks: HookName[];
  /** The HookInputs fields the step reads as optional inputs (tokenize). */
  inputs: string[];
  /** What one call of the module may take (the step's `budget`). */
  budget?: ModuleBudget;
}

/** The body of the generated `Hooks()` function. */
export function renderHooksFunction(model: StepHooksModel): string {
  const { module, hooks } = model;
  const BUDGET_SCOPE = budgetScope(model.budget);
  const fn = (name: HookName): string => `mod::${module.functions.get(name)!.cppName}`;
  const lines: string[] = ['  triton_studio::steps::StepHooks h;'];
  if (hooks.includes('beforeEncode')) {
    const takesInputs = module.functions.get('beforeEncode')!.params.length > 1;
    lines.push(`  h.input_names = {${model.inputs.map(cppStringLiteral).join(', ')}};`);
    lines.push(
      '  h.before_encode = [](const std::string& prompt, const std::vector<std::string>& in) {',
      '    (void)in;',
      `    ${BUDGET_SCOPE}`,
    );
    if (takesInputs) {
      lines.push(`    auto inputs = std::make_shared<mod::${HOOK_INPUTS_INTERFACE}>();`);
      model.inputs.forEach((name, i) =>
        lines.push(`    inputs->${cppName(name)} = tsrt::fromUtf8(in[${i}]);`),
      );
      lines.push(`    return tsrt::toUtf8(${fn('beforeEncode')}(tsrt::fromUtf8(prompt), inputs));`);
    } else {
      lines.push(`    return tsrt::toUtf8(${fn('beforeEncode')}(tsrt::fromUtf8(prompt)));`);
    }
    lines.push('  };');
  }
  if (hooks.includes('afterDecode')) {
    lines.push(
      `  h.after_decode = [](const std::string& text) { ${BUDGET_SCOPE} return tsrt::toUtf8(${fn('afterDecode')}(tsrt::fromUtf8(text))); };`,
    );
  }
  if (hooks.includes('onChunk')) {
    // The state handed around as void* is a holder of the module's own (reference-counted) value.
    const holder = `std::shared_ptr<mod::${STREAM_STATE_INTERFACE}>`;
    const state = `*static_cast<${holder}*>(state)`;
    lines.push(
      `  h.start_stream = []() -> std::shared_ptr<void> { ${BUDGET_SCOPE} return std::make_shared<${holder}>(${fn('startStream')}()); };`,
      `  h.on_chunk = [](void* state, const std::string& chunk) { ${BUDGET_SCOPE} return tsrt::toUtf8(${fn('onChunk')}(${state}, tsrt::fromUtf8(chunk))); };`,
      `  h.end_stream = [](void* state) { ${BUDGET_SCOPE} return tsrt::toUtf8(${fn('endStream')}(${state})); };`,
    );
  }
  lines.push('  return h;');
  return lines.join('\n');
}
