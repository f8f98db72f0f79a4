/**
 * The hooks and custom steps shipped in samples/, with the entry functions the differential
 * test runs: every exported hook and execute function.
 */
import path from 'node:path';
import { ROOT, type Program } from './harness.js';

const sample = (file: string, entry: string): Program => ({
  name: `samples/${file}#${entry}`,
  file: path.join(ROOT, 'samples', file),
  entry,
});

export const SAMPLE_PROGRAMS: Program[] = [
  sample('llama2-tensorrt-llm/hooks/llama2-chat.ts', 'beforeEncode'),
  sample('llama2-tensorrt-llm/hooks/llama2-chat.ts', 'afterDecode'),
  sample('gpt2-tensorrt-llm/hooks/stop-sequence.ts', 'startStream'),
  sample('gpt2-tensorrt-llm/hooks/stop-sequence.ts', 'onChunk'),
  sample('gpt2-tensorrt-llm/hooks/stop-sequence.ts', 'endStream'),
  sample('gpt2-tensorrt-llm/hooks/stop-sequence.ts', 'afterDecode'),
  sample('distilbert-onnx/steps/label.ts', 'execute'),
];
