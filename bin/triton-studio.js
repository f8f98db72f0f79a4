#!/usr/bin/env node
// Entry point of the `triton-studio` command. In a checkout (TypeScript sources and tsx present)
// it runs the sources directly, so the command always matches the code; in a packaged install it
// runs the bundle `out/cli.js` that `npm run compile` produces.
/* eslint-disable @typescript-eslint/no-require-imports -- a plain CommonJS entry point that must run without a build step */
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const sources = join(root, 'cli', 'main.ts');
const bundle = join(root, 'out', 'cli.js');

function load() {
  if (existsSync(sources)) {
    try {
      require('tsx/cjs/api').register();
      return require(sources);
    } catch (error) {
      if (!(error && error.code === 'MODULE_NOT_FOUND' && /'tsx/.test(error.message))) throw error;
    }
  }
  if (existsSync(bundle)) return require(bundle);
  process.stderr.write(
    'triton-studio: error: neither the TypeScript sources with tsx nor out/cli.js were found: ' +
      'run `npm install` (and `npm run compile` for the bundle)\n',
  );
  process.exit(1);
}

/**
 * `perf` runs in a Node started with --no-memory-reducer: about 8 s after start-up V8's memory
 * reducer runs full collections (40-60 ms of CPU) in a process as quiet as perf's is while the
 * native engine measures, which at 20 requests/s doubled perf's client CPU per request. V8 takes
 * the flag only at start-up (not in NODE_OPTIONS, not from v8.setFlagsFromString), hence the
 * child; signals reach it, and its exit code is this command's.
 */
function runPerfInQuietNode() {
  const { spawn } = require('node:child_process');
  const child = spawn(
    process.execPath,
    [...process.execArgv, '--no-memory-reducer', process.argv[1], ...process.argv.slice(2)],
    { stdio: 'inherit' },
  );
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('error', (error) => {
    process.stderr.write(`triton-studio: error: cannot start ${process.execPath}: ${error.message}\n`);
    process.exitCode = 1;
  });
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? 128 + (require('node:os').constants.signals[signal] ?? 0);
  });
}

if (process.argv[2] === 'perf' && !process.execArgv.includes('--no-memory-reducer')) {
  runPerfInQuietNode();
} else {
  load()
    .runCli(process.argv.slice(2))
    .then((code) => {
      process.exitCode = code;
    });
}
