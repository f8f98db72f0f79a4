// Adds up the results every test stage wrote under out/test-results/ and prints one closing line
// ("N passed, N failed, N skipped"). A stage that wrote no results counts as a failure, so a
// suite that silently ran nothing cannot look green.
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2] ?? 'out/test-results';
const stages = ['unit.json', 'integration.json', 'vscode.json', 'vscode-no-pipeline.json'];
let passed = 0;
let failed = 0;
let skipped = 0;
let missing = 0;
for (const name of stages) {
  const file = join(dir, name);
  if (!existsSync(file)) {
    console.error(`test summary: ${file} is missing — that stage did not run to completion`);
    missing++;
    continue;
  }
  const r = JSON.parse(readFileSync(file, 'utf8'));
  passed += r.numPassedTests ?? 0;
  failed += r.numFailedTests ?? 0;
  skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
}
console.log(`\n${passed} passed, ${failed + missing} failed, ${skipped} skipped`);
process.exit(failed + missing > 0 || passed === 0 ? 1 : 0);
