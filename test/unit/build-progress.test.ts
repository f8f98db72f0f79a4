/** Build Backends' progress: named stages, only forward, never 100% before the build returns. */
import { describe, expect, it } from 'vitest';
import { BuildProgress } from '../../extension/commands/buildProgress.js';

/** Drives a BuildProgress and records what the notification would show. */
function recorder() {
  const shown: { message: string; increment: number }[] = [];
  const progress = new BuildProgress((message, increment) => shown.push({ message, increment }));
  return { progress, shown };
}

describe('Build Backends progress', () => {
  it('names each stage and where it is among them', () => {
    const { progress, shown } = recorder();
    progress.enter({ name: 'the shared native backends', index: 0, total: 3 });
    progress.enter({ name: 'preprocessing', index: 1, total: 3 });
    expect(shown.map((s) => s.message)).toEqual([
      '0% · step 1/3: the shared native backends',
      '33% · step 2/3: preprocessing',
    ]);
  });

  it("only goes forward, though CMake's percentage restarts at 0% for every target and project", () => {
    const { progress, shown } = recorder();
    progress.enter({ name: 'the shared native backends', index: 0, total: 2 });
    for (const line of [
      '[ 40%] Building CXX object tokenizers/CMakeFiles/x.dir/bpe.cc.o',
      '[100%] Linking CXX static library libts_tokenizers.a',
      '[  5%] Building CXX object sim-llm/CMakeFiles/y.dir/model.cc.o',
      '-- Configuring done',
    ])
      progress.line(line);
    progress.enter({ name: 'postprocessing', index: 1, total: 2 });
    progress.line('[ 50%] Building CXX object CMakeFiles/step.dir/step.cc.o');
    progress.line('[ 10%] Linking CXX shared library libtriton_postprocessing.so');
    const percents = shown.map((s) => Number(/^(\d+)%/.exec(s.message)![1]));
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    expect(percents.at(-1)).toBe(75);
    expect(shown.reduce((sum, s) => sum + s.increment, 0)).toBe(progress.percent);
    expect(shown[2]!.message).toBe(
      '50% · step 1/2: the shared native backends — Linking CXX static library libts_tokenizers.a',
    );
  });

  it('never claims 100% before the build has returned', () => {
    const { progress } = recorder();
    progress.enter({ name: 'last', index: 0, total: 1 });
    progress.line('[100%] Built target everything');
    expect(progress.percent).toBe(99);
  });
});
