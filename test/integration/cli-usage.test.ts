/**
 * `triton-studio --help` and a wrong command line: the commands it lists, and exit code 2 with a
 * usage hint, in child processes as users run it.
 */
import { describe, expect, it } from 'vitest';
import { cli } from './cli-fixture.js';

describe('triton-studio (command line)', () => {
  it('lists its commands with --help and exits 0', async () => {
    const run = await cli(['--help']);
    expect(run.code).toBe(0);
    for (const command of [
      'tokenize',
      'validate',
      'generate',
      'import',
      'build',
      'serve',
      'deploy',
      'prompt',
      'perf',
      'run',
    ]) {
      expect(run.stdout).toContain(command);
    }
  });

  it('exits 2 with a usage hint for a wrong command line', async () => {
    const missing = await cli(['prompt', 'hi']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required option '--url <host:port>' not specified");
    const badNumber = await cli(['perf', '--url', '127.0.0.1:1', '--model', 'm', '--concurrency', '0']);
    expect(badNumber.code).toBe(2);
    expect(badNumber.stderr).toContain("expected a whole number ≥ 1, got '0'");
    const both = await cli([
      'perf',
      '--url',
      '127.0.0.1:1',
      '--model',
      'm',
      '--concurrency',
      '2',
      '--request-rate',
      '5',
    ]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('give --concurrency or --request-rate, not both');
    const nested = await cli(['server', 'start', '--no-such-option']);
    expect(nested.code).toBe(2);
    expect(nested.stderr).toContain("unknown option '--no-such-option'");
    expect(nested.stderr).toContain('(run with --help for usage)');
  });
});
