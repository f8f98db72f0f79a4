/**
 * The TypeScript → C++ compiler for hooks and custom steps (docs/HOOKS.md). `compileModule`
 * (`compile.ts`) reads one module with ts-morph and the TypeScript checker and prints it as C++ in
 * its own namespace. `types.ts` is the subset's types, `typeConversion.ts` maps checker types onto
 * them; `emit/emitter.ts` holds one function's translation state, `emit/{statements,expressions,
 * operators}.ts` translate the constructs; `builtins/` is the standard library as tables, one per
 * family (`table.ts` is the row: the JS method, its runtime call, its result type). Anything
 * outside the subset becomes a TS-E080 diagnostic at its node. The C++ includes only
 * `backends/tsrt/include/triton_studio/ts_runtime.h` (one header per builtins table). The bundle
 * turns this file into a lazy stub (scripts/bundle.mjs); the compiled code answers as Node does
 * (test/integration/tscompile-differential.test.ts).
 */
export {
  compileModule,
  compileModules,
  type CompiledModule,
  type FunctionInfo,
  type ModuleSource,
} from './compile.js';
export {
  cppType,
  typeName,
  TYPED_ARRAYS,
  type StructField,
  type TsType,
  type TypedArrayName,
} from './types.js';
export {
  customStepInterface,
  hookInterface,
  type CustomModuleInterface,
  type HookModuleInterface,
  type ModulePort,
  type PortPlan,
} from './stepInterface.js';
export { cppName } from './cppText.js';
