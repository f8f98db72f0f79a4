// Adds up what every test stage left under out/test-results/ and prints the closing summary of
// `npm test`: one line per stage (its counts and its exit code), the tests that were flaky, the
// errors raised outside any test, the failed tests, and one closing line ("N passed, N failed,
// N skipped"). CI keeps only the tail of the log, so whatever made the run fail is named here.
// The run fails when a stage wrote no results (a suite that silently ran nothing cannot look
// green), when a test file ran no test (vitest lists the files it never reached, after its worker
// died, as passed with no tests), when a test failed, or when a stage exited non-zero with every test passed (vitest does
// so on an error outside a test).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2] ?? 'out/test-results';
/** Each stage: its name in exits.tsv (scripts/test.sh), its result files, runReporter's record. */
const STAGES = [
  { stage: 'ctest', label: 'C++ unit tests', files: ['ctest.xml'] },
  { stage: 'unit', label: 'unit tests', files: ['unit.json'], run: 'unit.run.json' },
  {
    stage: 'integration',
    label: 'integration: server lane',
    files: ['integration.json'],
    run: 'integration.run.json',
  },
  {
    stage: 'integration-cpu',
    label: 'integration: CPU lane',
    files: ['integration-cpu.json'],
    run: 'integration-cpu.run.json',
  },
  {
    stage: 'vscode',
    label: 'extension tests',
    files: ['vscode.json', 'vscode-no-pipeline.json', 'vscode-vsix.json'],
  },
];

const exits = readExits(join(dir, 'exits.tsv'));
const total = { passed: 0, failed: 0, skipped: 0 };
const rows = [];
const failures = [];
const flaky = [];
const outside = [];
const badExits = [];
for (const { stage, label, files, run } of STAGES) {
  const row = { label, passed: 0, failed: 0, skipped: 0, exit: exits.get(stage) ?? 'did not run' };
  for (const name of files) {
    const file = join(dir, name);
    if (!existsSync(file)) {
      failures.push(`${name}: missing — that stage did not run to completion`);
      row.failed++;
      continue;
    }
    const r = name.endsWith('.xml')
      ? junitCounts(readFileSync(file, 'utf8'))
      : JSON.parse(readFileSync(file, 'utf8'));
    row.passed += r.numPassedTests ?? 0;
    row.failed += r.numFailedTests ?? 0;
    row.skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
    for (const f of failedTests(r))
      failures.push(`${name}: ${f.name}${f.message ? `\n    ${firstLine(f.message)}` : ''}`);
    for (const f of filesWithoutTests(r)) {
      failures.push(`${name}: ${f} ran no test (the run stopped before it)`);
      row.failed++;
    }
  }
  if (run && existsSync(join(dir, run))) {
    const record = JSON.parse(readFileSync(join(dir, run), 'utf8'));
    flaky.push(...record.flaky);
    for (const e of record.errors)
      outside.push(
        `[${label}] ${e.message}${e.test ? `\n    surfaced during: ${e.test}` : ''}${e.file ? `\n    in: ${e.file}` : ''}` +
          (e.stack ? `\n${e.stack.replace(/^\s*/gm, '      ')}` : ''),
      );
  }
  if (row.exit !== '0') badExits.push(`${label} exited ${row.exit}`);
  for (const key of ['passed', 'failed', 'skipped']) total[key] += row[key];
  rows.push(row);
}

console.log(
  `\n${'stage'.padEnd(28)}${'passed'.padStart(7)}${'failed'.padStart(7)}${'skipped'.padStart(8)}  exit`,
);
for (const r of rows)
  console.log(
    `${r.label.padEnd(28)}${String(r.passed).padStart(7)}${String(r.failed).padStart(7)}${String(r.skipped).padStart(8)}  ${r.exit}`,
  );
if (flaky.length > 0) console.log(`\nflaky (failed, then passed on the retry):\n  ${flaky.join('\n  ')}`);
if (outside.length > 0)
  console.log(`\nerrors outside any test (vitest fails the run on them):\n  ${outside.join('\n  ')}`);
if (failures.length > 0) console.log(`\nfailed:\n  ${failures.join('\n  ')}`);
const line = `${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`;
console.log(`\n${badExits.length > 0 ? `${line}; ${badExits.join(', ')}` : line}`);
process.exit(total.failed > 0 || badExits.length > 0 || total.passed === 0 ? 1 : 0);

/** scripts/test.sh's `exited STAGE CODE` lines. */
function readExits(file) {
  const exits = new Map();
  if (!existsSync(file)) return exits;
  for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    const [stage, code] = line.split('\t');
    exits.set(stage, code);
  }
  return exits;
}

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

// A vitest file always declares tests (skipped ones are listed as pending): one listed with none
// was never collected.
function filesWithoutTests(r) {
  return (r.testResults ?? [])
    .filter((file) => (file.assertionResults ?? []).length === 0 && file.status !== 'failed')
    .map((file) => file.name);
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
