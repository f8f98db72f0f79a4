/**
 * The extensionTestsPath module: VS Code's extension host calls `run()` and reports its outcome
 * (resolved = pass) to the workbench, which passes it to the launcher as the exit code.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Mocha from 'mocha';
import { NO_PIPELINE_SUITE, TEST_ENV, VSIX_SUITES } from './testEnv.js';

export function run(): Promise<void> {
  const mocha = new Mocha({
    ui: 'bdd',
    color: false,
    // Prompts go through a real server; the first one also sets up the gRPC channel.
    timeout: 60_000,
    grep: process.env[TEST_ENV.grep],
  });
  // Sorted: the files run in name order, the prompt tests last so the screenshot shows an answer.
  // The workspace without a pipeline file runs its own suite only; every other run, all the rest.
  // The profile with the installed .vsix runs its own suite only, too.
  const only =
    process.env[TEST_ENV.noPipelineWorkspace] === '1'
      ? [NO_PIPELINE_SUITE]
      : process.env[TEST_ENV.vsixExtensionsDir]
        ? VSIX_SUITES
        : undefined;
  const own = [NO_PIPELINE_SUITE, ...VSIX_SUITES];
  for (const file of readdirSync(__dirname)
    .filter((f) => f.endsWith('.test.js') && (only ? only.includes(f) : !own.includes(f)))
    .sort()) {
    mocha.addFile(join(__dirname, file));
  }
  return new Promise((resolve, reject) => {
    const failedTests: { name: string; message: string }[] = [];
    const runner = mocha.run((failures) => {
      writeResults(runner.stats, failedTests);
      if (failures > 0) reject(new Error(`${failures} extension test(s) failed`));
      else resolve();
    });
    runner.on('fail', (test, err: Error) =>
      failedTests.push({ name: test.fullTitle(), message: String(err?.message ?? err) }),
    );
  });
}

/**
 * Counts, and the failed tests by name, for scripts/test-summary.mjs, which adds up every stage of
 * `npm test` and names the failures again at the end, where CI's tail shows them.
 */
function writeResults(
  stats: Mocha.Stats | undefined,
  failedTests: { name: string; message: string }[],
): void {
  const file = process.env[TEST_ENV.results];
  if (!file) return;
  mkdirSync(dirname(file), { recursive: true });
  const counts = {
    numPassedTests: stats?.passes ?? 0,
    numFailedTests: stats?.failures ?? 0,
    numPendingTests: stats?.pending ?? 0,
    failedTests,
  };
  writeFileSync(file, `${JSON.stringify(counts)}\n`);
}
