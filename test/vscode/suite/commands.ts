/**
 * Running the extension's commands from a suite: every Triton Studio command answers
 * `{ ok: true, … }` or `{ ok: false, error }`, and `run` fails the test with that error.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

export type Ok<T> = { ok: true } & T;
export type Result<T> = Ok<T> | { ok: false; error: string; setting?: string };

/** Runs `tritonStudio.<command>` and returns its answer, failing unless it is ok. */
export async function run<T extends object>(command: string, ...args: unknown[]): Promise<Ok<T>> {
  const outcome = await vscode.commands.executeCommand<Result<T> | undefined>(
    `tritonStudio.${command}`,
    ...args,
  );
  assert.ok(outcome, `${command} returned nothing`);
  assert.ok(outcome.ok, `${command} failed: ${outcome.ok ? '' : outcome.error}`);
  return outcome;
}
