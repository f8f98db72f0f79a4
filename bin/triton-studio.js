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

load()
  .runCli(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  });
