/** The TypeScript → C++ compiler for hooks and custom steps (docs/HOOKS.md). */
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
