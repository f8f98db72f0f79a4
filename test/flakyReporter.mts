/**
 * A vitest reporter that writes the tests which failed and then passed on a retry to the file in
 * TS_FLAKY_OUT (a JSON array of full names). `npm test` retries an integration test once, because a
 * shared 2-core box can stall a real server past a timing bound; scripts/test-summary.mjs names
 * every such test at the end of the log, so a flaky test is seen, not hidden.
 */
import { writeFileSync } from 'node:fs';
import type { Reporter, TestCase } from 'vitest/node';

export default class FlakyReporter implements Reporter {
  private readonly flaky: string[] = [];

  onTestCaseResult(testCase: TestCase): void {
    if (testCase.diagnostic()?.flaky) this.flaky.push(testCase.fullName);
  }

  onTestRunEnd(): void {
    const out = process.env.TS_FLAKY_OUT;
    if (out) writeFileSync(out, `${JSON.stringify(this.flaky)}\n`);
  }
}
