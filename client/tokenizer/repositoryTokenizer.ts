/**
 * The native tokenizer a served pipeline speaks, found in its generated model repository, and the
 * `ts-tokenize` tool that runs it from Node: what a latency test counts tokens with when it knows
 * the repository behind the model it measures (the CLI's `perf --tokenizer`, found by itself).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildBackends, DETOKENIZER_FILE, TOKENIZER_FILE } from '../../generator/index.js';
import { packageRoot } from '../paths.js';
import { readRepository, type RepositoryModelEntry } from '../repository.js';
import { NativeTokenizer } from './nativeTokenizer.js';

function fileIn(entry: RepositoryModelEntry, name: string): string | undefined {
  for (const version of [...entry.versions].reverse()) {
    const file = join(entry.dir, version, name);
    if (existsSync(file)) return file;
  }
  return undefined;
}

/**
 * The tokenizer that decodes `model`'s answers: an orchestrator's own (its detokenizer.json when
 * it decodes with another tokenizer than it encodes), else, for an ensemble, that of the step
 * that writes an ensemble output (the detokenize step), else of its last step holding one.
 * Undefined when the repository does not hold the model or it has no native tokenizer (a vLLM
 * model tokenizes inside the server).
 */
export function repositoryTokenizer(repository: string, model: string): string | undefined {
  let entries: RepositoryModelEntry[];
  try {
    entries = readRepository(repository);
  } catch {
    return undefined;
  }
  const byName = new Map(entries.map((e) => [e.name, e]));
  const entry = byName.get(model);
  if (!entry) return undefined;
  const own = fileIn(entry, DETOKENIZER_FILE) ?? fileIn(entry, TOKENIZER_FILE);
  if (own || !entry.isEnsemble) return own;
  const outputs = new Set((entry.config.output ?? []).map((o) => o.name));
  const steps = [...(entry.config.ensemble_scheduling?.step ?? [])].reverse();
  const writesOutput = steps.filter((s) => Object.values(s.output_map ?? {}).some((t) => outputs.has(t)));
  for (const step of [...writesOutput, ...steps]) {
    const stepEntry = byName.get(step.model_name);
    const file = stepEntry && (fileIn(stepEntry, DETOKENIZER_FILE) ?? fileIn(stepEntry, TOKENIZER_FILE));
    if (file) return file;
  }
  return undefined;
}

/** Where the backends are built (an installed extension passes folders in its own storage). */
export interface BackendsLocation {
  /** The backends build tree; default the package's `build/backends`. */
  buildDir?: string;
  /** Where third-party sources are downloaded; default the package's `.cache/deps`. */
  dependencySourcesDir?: string;
  /** The llama folder (llama.cpp's headers, libraries, models); default the package's `.cache/llama`. */
  llamaDir?: string;
}

/** `tools/ts-tokenize` of the backends build tree, built (incrementally, by CMake) before use. */
export async function tokenizeTool(
  progress: (line: string) => void = () => undefined,
  location: BackendsLocation = {},
): Promise<string> {
  const buildDir = location.buildDir ?? join(packageRoot(), 'build', 'backends');
  const binary = join(buildDir, 'tools', 'ts-tokenize');
  if (!existsSync(binary)) progress('building the native tokenizer (ts-tokenize), once…');
  await buildBackends({
    buildDir,
    dependencySourcesDir: location.dependencySourcesDir,
    targets: ['ts-tokenize'],
  });
  return binary;
}

/** A running native tokenizer over `tokenizerFile` (close it when done). */
export async function openNativeTokenizer(
  tokenizerFile: string,
  progress?: (line: string) => void,
  location?: BackendsLocation,
): Promise<NativeTokenizer> {
  return new NativeTokenizer(await tokenizeTool(progress, location), tokenizerFile);
}
