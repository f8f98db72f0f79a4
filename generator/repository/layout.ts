/**
 * Where a generation puts what is not the model repository. Triton treats every folder of a
 * repository as a model and every non-numeric folder of a model as a bad version (Triton 2.51
 * logs "ignore version directory 'src' which fails to convert to integral number" for each, and
 * lists even hidden top-level folders in the repository index), so the native steps' C++
 * sources live in a sibling folder: `REPO.src/<model>/{step.cc,CMakeLists.txt}`.
 */
import { basename, dirname, join, resolve } from 'node:path';

/** The folder holding the native steps' sources of the repository `repository`. */
export function stepSourcesDir(repository: string): string {
  const repo = resolve(repository);
  return join(dirname(repo), `${basename(repo)}.src`);
}
