/**
 * A vitest reporter for `npm test` that writes, to the file in TS_RUN_OUT, what vitest's JSON report
 * leaves out and the closing summary (scripts/test-summary.mjs) must name:
 * - `flaky`: tests that failed and then passed on a retry (the server lane retries once, because a
 *   shared 2-core box can stall a real server past a timing bound), so a flaky test is seen;
 * - `errors`: errors thrown outside any test's await (a promise rejected after its test ended, an
 *   `'error'` event nobody listens to). vitest fails the run on them, exit code 1, while every test
 *   in its JSON report passed; without this file the log's tail would show a green count and a red
 *   exit with nothing between them.
 */
import { writeFileSync } from 'node:fs';
import type { Reporter, SerializedError, TestCase, TestModule } from 'vitest/node';

interface RunRecord {
  flaky: string[];
  errors: { message: string; test?: string; file?: string; stack: string }[];
}

export default class RunReporter implements Reporter {
  private readonly flaky: string[] = [];

  onTestCaseResult(testCase: TestCase): void {
    if (testCase.diagnostic()?.flaky) this.flaky.push(testCase.fullName);
  }

  onTestRunEnd(_modules: readonly TestModule[], errors: readonly SerializedError[]): void {
    const out = process.env.TS_RUN_OUT;
    if (!out) return;
    const record: RunRecord = {
      flaky: this.flaky,
      errors: errors.map((e) => {
        // vitest tags an error with the test that was running when it surfaced, when it knows.
        const tagged = e as SerializedError & { VITEST_TEST_NAME?: string; VITEST_TEST_PATH?: string };
        return {
          message: `${e.name ?? 'Error'}: ${e.message}`,
          test: tagged.VITEST_TEST_NAME,
          file: tagged.VITEST_TEST_PATH,
          stack: (e.stack ?? '').split('\n').slice(1, 6).join('\n'),
        };
      }),
    };
    writeFileSync(out, `${JSON.stringify(record, null, 1)}\n`);
  }
}
