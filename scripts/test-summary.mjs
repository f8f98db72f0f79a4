// Adds up the results every test stage wrote under out/test-results/ and prints one closing line
// ("N passed, N failed, N skipped"): vitest's JSON reports and ctest's JUnit XML. A stage that wrote no results counts as a failure, so a
// suite that silently ran nothing cannot look green. The failed tests are named again just above that line, since CI keeps only
// the tail of the log.
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2] ?? 'out/test-results';
const stages = [
  'ctest.xml',
  'unit.json',
  'integration.json',
  'integration-tokenizers.json',
  'vscode.json',
  'vscode-no-pipeline.json',
  'vscode-vsix.json',
];
let passed = 0;
let failed = 0;
let skipped = 0;
let missing = 0;
const failures = [];
for (const name of stages) {
  const file = join(dir, name);
  if (!existsSync(file)) {
    console.error(`test summary: ${file} is missing — that stage did not run to completion`);
    missing++;
    continue;
  }
  const r = name.endsWith('.xml')
    ? junitCounts(readFileSync(file, 'utf8'))
    : JSON.parse(readFileSync(file, 'utf8'));
  passed += r.numPassedTests ?? 0;
  failed += r.numFailedTests ?? 0;
  skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  for (const f of failedTests(r))
    failures.push(`${name}: ${f.name}${f.message ? `\n    ${firstLine(f.message)}` : ''}`);
}
const flakyFile = join(dir, 'integration-flaky.json');
const flaky = existsSync(flakyFile) ? JSON.parse(readFileSync(flakyFile, 'utf8')) : [];
if (flaky.length > 0) console.log(`\nflaky (failed, then passed on the retry):\n  ${flaky.join('\n  ')}`);
if (failures.length > 0) console.log(`\nfailed:\n  ${failures.join('\n  ')}`);
console.log(`\n${passed} passed, ${failed + missing} failed, ${skipped} skipped`);
process.exit(failed + missing > 0 || passed === 0 ? 1 : 0);

// vitest's JSON names each failed test, and each file that failed outside a test (an import error,
// a failing hook); ctest's and mocha's results carry a failedTests list of their own.
function failedTests(r) {
  if (r.failedTests) return r.failedTests;
  const out = [];
  for (const file of r.testResults ?? []) {
    const tests = (file.assertionResults ?? []).filter((t) => t.status === 'failed');
    for (const t of tests) out.push({ name: t.fullName, message: t.failureMessages?.[0] ?? '' });
    if (file.status === 'failed' && tests.length === 0)
      out.push({ name: file.name, message: file.message ?? '' });
  }
  return out;
}

function firstLine(message) {
  return String(message).trim().split('\n')[0].slice(0, 300);
}

// ctest --output-junit: one <testsuite tests= failures= skipped= disabled=> for the whole run.
function junitCounts(xml) {
  const suite = /<testsuite\b([^>]*)>/.exec(xml);
  if (!suite) return { numPassedTests: 0, numFailedTests: 1 };
  const attr = (key) => Number(new RegExp(`\\b${key}="(\\d+)"`).exec(suite[1])?.[1] ?? 0);
  const skipped = attr('skipped') + attr('disabled');
  return {
    numPassedTests: attr('tests') - attr('failures') - skipped,
    numFailedTests: attr('failures'),
    numPendingTests: skipped,
    failedTests: [...xml.matchAll(/<testcase name="([^"]*)"[^>]*status="fail"/g)].map((m) => ({
      name: m[1],
      message: '',
    })),
  };
}
