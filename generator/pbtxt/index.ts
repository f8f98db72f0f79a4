/** The config.pbtxt reader and writer: parse, print and JSON conversion of model configurations. */
export { parsePbtxt, PbtxtSyntaxError, type PbtxtParseResult } from './parse.js';
export { printPbtxt, quote as quotePbtxtString, PbtxtWriteError, type PrintOptions } from './print.js';
export { modelConfigToJson, modelConfigFromJson, ModelConfigJsonError, type JsonValue } from './json.js';
export type { ModelConfig, ModelTensor, PbMessage, PbValue } from './types.js';
export { MESSAGES, ENUMS, type MessageDescriptor, type FieldDescriptor } from './descriptor.js';
