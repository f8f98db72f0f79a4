/**
 * A generated model repository as deploy reads it: each model's config, version files, whether
 * it is an ensemble (or an orchestrator) and which models it depends on, in load order.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { ORCHESTRATES_PARAMETER, parsePbtxt, type ModelConfig } from '../generator/index.js';

/** One model folder of a Triton model repository, as deploy needs it. */
export interface RepositoryModelEntry {
  /** Folder name = model name (Triton requires them to match). */
  name: string;
  dir: string;
  config: ModelConfig;
  isEnsemble: boolean;
  /** A model clients call: an ensemble, or a generated native orchestrator (it stands where the ensemble would). */
  callable: boolean;
  /** Models an ensemble's steps name, or the model an orchestrator calls (empty for other models). */
  dependencies: string[];
  /** Numeric version folders, e.g. ['1']. */
  versions: string[];
}

/** A problem with the repository on disk, before any server is involved. */
export class RepositoryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RepositoryError';
  }
}

/**
 * Reads every model folder (a folder with a config.pbtxt) and orders them so each model comes
 * after the models it depends on: steps first, then ensembles (an ensemble of ensembles after
 * its inner ones). Config errors are reported compiler-style with file:line:col.
 */
export function readRepository(repository: string): RepositoryModelEntry[] {
  let names: string[];
  try {
    names = readdirSync(repository, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
  } catch {
    throw new RepositoryError(
      `model repository ${repository} cannot be read: generate one with \`triton-studio generate PIPELINE --out REPO\``,
    );
  }
  const entries: RepositoryModelEntry[] = [];
  for (const name of names) {
    const dir = join(repository, name);
    const configFile = join(dir, 'config.pbtxt');
    let text: string;
    try {
      text = readFileSync(configFile, 'utf8');
    } catch {
      continue; // not a model folder
    }
    const parsed = parsePbtxt(text, configFile);
    if (!parsed.config) {
      const d = parsed.diagnostics[0];
      const where = d ? `${configFile}:${d.range.start.line + 1}:${d.range.start.column + 1}` : configFile;
      throw new RepositoryError(
        `${where}: error ${d?.code ?? ''}: ${d?.message ?? 'cannot parse config.pbtxt'}`.trim(),
      );
    }
    const config = parsed.config;
    if (config.name !== undefined && config.name !== '' && config.name !== name) {
      throw new RepositoryError(
        `${configFile}: the config names the model '${config.name}' but its folder is '${name}': Triton needs them equal`,
      );
    }
    const isEnsemble = config.platform === 'ensemble';
    // A generated orchestrator names the model step it calls through the server API.
    const orchestrates = config.parameters?.[ORCHESTRATES_PARAMETER]?.string_value;
    entries.push({
      name,
      dir,
      config,
      isEnsemble,
      callable: isEnsemble || orchestrates !== undefined,
      dependencies: isEnsemble
        ? [...new Set((config.ensemble_scheduling?.step ?? []).map((s) => s.model_name))]
        : orchestrates
          ? [orchestrates]
          : [],
      versions: readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory() && /^\d+$/.test(d.name))
        .map((d) => d.name)
        .sort((a, b) => Number(a) - Number(b)),
    });
  }
  if (entries.length === 0) {
    throw new RepositoryError(`${repository} holds no model folder (a folder with a config.pbtxt)`);
  }
  return dependencyOrder(entries);
}

function dependencyOrder(entries: RepositoryModelEntry[]): RepositoryModelEntry[] {
  const byName = new Map(entries.map((e) => [e.name, e]));
  const ordered: RepositoryModelEntry[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (entry: RepositoryModelEntry, path: string[]) => {
    if (state.get(entry.name) === 'done') return;
    if (state.get(entry.name) === 'visiting') {
      throw new RepositoryError(
        `ensembles depend on each other in a cycle: ${[...path, entry.name].join(' → ')}`,
      );
    }
    state.set(entry.name, 'visiting');
    for (const dep of entry.dependencies) {
      const target = byName.get(dep);
      if (target) visit(target, [...path, entry.name]);
    }
    state.set(entry.name, 'done');
    ordered.push(entry);
  };
  // Steps before ensembles, each group alphabetical, so the order is stable and readable.
  for (const entry of [...entries.filter((e) => !e.isEnsemble), ...entries.filter((e) => e.isEnsemble)])
    visit(entry, []);
  return ordered;
}

/**
 * Every file under the model's version folders, keyed as Triton's load API names them
 * (`1/tokenizer.json`, `1/libtriton_preprocessing.so`).
 */
export function versionFiles(entry: RepositoryModelEntry): Record<string, Buffer> {
  return readFiles(entry.dir, entry.versions);
}

/** Every file below `folders` of `root` (default: all of it), keyed by its `/`-separated path from `root`. */
export function readFiles(root: string, folders: readonly string[] = ['']): Record<string, Buffer> {
  const files: Record<string, Buffer> = {};
  const walk = (dir: string) => {
    for (const item of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, item.name);
      if (item.isDirectory()) walk(path);
      else if (item.isFile() || (item.isSymbolicLink() && statSync(path).isFile())) {
        files[relative(root, path).split(sep).join('/')] = readFileSync(path);
      }
    }
  };
  for (const folder of folders) walk(join(root, folder));
  return files;
}
