/**
 * The rules that keep the tree a place a newcomer can find their way in (issue 27): no
 * hand-written source file over 500 lines, no product function over 80 lines (TypeScript and
 * C++), one naming style per folder. The exceptions are listed here, each with its reason; a file or function that
 * shrinks below the limit must leave the list (so the list only ever gets shorter). Import cycles
 * are refused by dependency-cruiser in `npm run lint` (.dependency-cruiser.cjs).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, extname } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { cppFunctionSpans } from './cpp-function-spans';

const MAX_FILE_LINES = 500;
const MAX_FUNCTION_LINES = 80;

/** Files over MAX_FILE_LINES, and why they may be. */
const LONG_FILES: Record<string, string> = {
  'test/integration/openai-front-hardening.test.ts':
    'landed with the OpenAI hardening; to split by request shape',
  'backends/perf-driver/perf_driver.cc':
    'one epoll loop and its state machine; to split: load schedule / output batches',
  'backends/tokenizers/src/decoders.cc': "one file per HF component family, as tokenizers' decoders.rs is",
  'bench/perf/vs-perf-analyzer.ts': 'a bench script; to split: tool runners / report tables',
  'test/tscompile/harness.ts': 'the differential harness: driver generation and the Node side; to split',
  'test/unit/pipeline-validate.test.ts': 'one describe per check family; to split by family',
  'test/unit/generator.test.ts': 'to split by what it pins (repository writer, layout, manifests)',
  'test/integration/cli.test.ts': 'one shared server for every command; to split by command',
  'test/integration/perf-endpoints.test.ts': 'one server per endpoint family; to split',
  'test/integration/native-steps.test.ts': 'one build shared by its tests; to split by step kind',
  'test/integration/perf-lab.test.ts': 'one server shared by the lab tests',
  'test/vscode/suite/workflow.test.ts': 'one code-server session; to split by command group',
  'test/vscode/suite/graphEditor.test.ts': 'follows issue 27 item 2',
};

/** Product functions over MAX_FUNCTION_LINES (`file#name`), and why they may be. */
const LONG_FUNCTIONS: Record<string, string> = {
  'cli/commands/openaiServe.ts#openaiServeCommand': "declarative: commander's option list of openai-serve",
  'generator/tscompile/compile.ts#compileFile':
    'one pass over the module statements; to split per declaration kind',
  'cli/commands/perf.ts#measureCommand': "declarative: commander's option list of perf measure",
  'cli/commands/server.ts#serverCommand': "declarative: commander's subcommands of server",
  'cli/commands/k8s.ts#k8sCommand': "declarative: commander's option list of k8s",
  'client/openai/server.ts#startOpenAiServer': 'being reworked by the OpenAI hardening (issue 25 item 1)',
  'generator/tscompile/typeConversion.ts#convertType': 'one switch over the type kinds of the subset',
  'generator/k8s/manifests.ts#kubernetesObjects': 'declarative: the manifests as object literals',
  'generator/build/elf.ts#readElfDynamic': "one pass over the ELF's dynamic section",
  'client/perf/latencyTest.ts#runLatencyTest': 'to split: engine choice / run / report',
  'extension/commands/sendPrompt.ts#sendPromptCommand': 'to split: pick the target / send / show',
  'generator/pipeline/checks/modules.ts#checkModules':
    'one check over every module; to split per module kind',
  'generator/pipeline/checks/modules.ts#checkModules>anon': 'the per-module callback of checkModules',
  'client/perf/load/nativeEngine.ts#runNativeLoad': "the driver's protocol as one state machine",
  'extension/commands/latency.ts#runLatencyTestCommand': 'to split: inputs / run / report',
  'client/server/localServer.ts#startOnce': 'to split: spawn / wait for ready',
  'client/deploy/load.ts#loadAll': 'the candidate and serve loads in dependency order',
  'client/deploy/load.ts#deployModel': 'one model load and its failure causes',
  'backends/tools/ts_tokenize_bench.cc#main': 'a bench tool: options, runs and its report; to split',
  'backends/tools/ts_render_chat.cc#main': 'a CLI: options, input and output; to split',
  'backends/perf-driver/perf_driver.cc#main': 'to split with its file',
  'backends/triton/src/tokenize_step.cc#TokenizeRunner::EncodeRows':
    'being reworked by issue 22 (truncation, padding, pairs)',
  'backends/llama-cpp/llama_step.cc#Run': 'being reworked by issues 26 and 28 (real model, aarch64)',
};

const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => f && !f.startsWith('node_modules/') && existsSync(f));

/** Hand-written source: code, not data; generated files say so in their first line. */
const SOURCE = /\.(ts|tsx|mts|mjs|cjs|js|cc|h|cpp|hbs|sh|py)$/;
const sources = tracked.filter(
  (f) =>
    SOURCE.test(f) &&
    !f.startsWith('test/tscompile/corpus/') &&
    !/^(\/\/|#) Generated by/.test(readFileSync(f, 'utf8').slice(0, 200)),
);
const lineCount = (f: string): number => readFileSync(f, 'utf8').split('\n').length - 1;

describe('no file over 500 lines', () => {
  it('holds for every hand-written source file outside the allow-list', () => {
    const over = sources.filter((f) => lineCount(f) > MAX_FILE_LINES && !(f in LONG_FILES));
    expect(over.map((f) => `${f}: ${lineCount(f)} lines`)).toEqual([]);
  });

  it('lists only files that are still over the limit', () => {
    const stale = Object.keys(LONG_FILES).filter(
      (f) => !tracked.includes(f) || lineCount(f) <= MAX_FILE_LINES,
    );
    expect(stale).toEqual([]);
  });
});

/** Every function-like body of a file with its line span, named as `file#name`. */
function functionLengths(file: string): Map<string, number> {
  const text = readFileSync(file, 'utf8');
  const kind = file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, kind);
  const lengths = new Map<string, number>();
  const visit = (node: ts.Node, owner: string): void => {
    let name = owner;
    if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body) {
      const fn = node as ts.FunctionLikeDeclaration;
      const parent = node.parent;
      name =
        fn.name?.getText(sf) ??
        (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)
          ? parent.name.getText(sf)
          : `${owner}>anon`);
      const first = sf.getLineAndCharacterOfPosition(fn.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(fn.end).line;
      const key = `${file}#${name}`;
      lengths.set(key, Math.max(lengths.get(key) ?? 0, last - first + 1));
    }
    ts.forEachChild(node, (child) => visit(child, name));
  };
  visit(sf, '');
  return lengths;
}

/** The product's C++ functions with their line spans, as `file#name`. */
function cppFunctionLengths(file: string): Map<string, number> {
  const spans = cppFunctionSpans(readFileSync(file, 'utf8'));
  return new Map([...spans].map(([name, n]) => [`${file}#${name}`, n]));
}

describe('no product function over 80 lines', () => {
  const product = sources.filter(
    (f) => /^(generator|client|cli|extension)\//.test(f) && /\.(ts|tsx|mts)$/.test(f),
  );
  const cppProduct = sources.filter((f) => /^backends\/(?!.*\/(test|fuzz)\/).*\.(cc|h|cpp)$/.test(f));
  const lengths = new Map([
    ...product.flatMap((f) => [...functionLengths(f)]),
    ...cppProduct.flatMap((f) => [...cppFunctionLengths(f)]),
  ]);

  it('finds the C++ functions (the counter reads every backend)', () => {
    expect(cppProduct.length).toBeGreaterThan(100);
    expect(lengths.get('backends/chat-template/src/runtime.cc#Runtime::Lookup')).toBeGreaterThan(3);
  });

  it('holds for generator/, client/, cli/, extension/ and backends/ outside the allow-list', () => {
    const over = [...lengths].filter(([key, n]) => n > MAX_FUNCTION_LINES && !(key in LONG_FUNCTIONS));
    expect(over.map(([key, n]) => `${key}: ${n} lines`)).toEqual([]);
  });

  it('lists only functions that are still over the limit', () => {
    const stale = Object.keys(LONG_FUNCTIONS).filter((key) => (lengths.get(key) ?? 0) <= MAX_FUNCTION_LINES);
    expect(stale).toEqual([]);
  });
});

describe('every product source file says its job', () => {
  const product = sources.filter(
    (f) =>
      (/^(generator|client|cli|extension)\//.test(f) && /\.(ts|tsx|mts)$/.test(f) && !f.endsWith('.d.ts')) ||
      /^backends\/(?!.*\/(test|fuzz)\/).*\.(cc|h|cpp)$/.test(f),
  );

  it('starts with a comment (after a #! line), TypeScript and C++ alike', () => {
    const silent = product.filter((f) => {
      const text = readFileSync(f, 'utf8').replace(/^#!.*\n/, '');
      return !/^(\/\/|\/\*)/.test(text);
    });
    expect(product.length).toBeGreaterThan(400);
    expect(silent).toEqual([]);
  });

  it('holds for tests too: a test file starts with what it pins', () => {
    const tests = sources.filter((f) => f.startsWith('test/') && /\.(ts|tsx|mts)$/.test(f));
    const silent = tests.filter((f) => !/^(\/\/|\/\*)/.test(readFileSync(f, 'utf8')));
    expect(tests.length).toBeGreaterThan(100);
    expect(silent).toEqual([]);
  });
});

describe('every extension command goes through COMMANDS', () => {
  it('registers commands only in extension/commands/index.ts, where the table and its trust gate are', () => {
    const registering = sources.filter(
      (f) =>
        f.startsWith('extension/') &&
        /\bregister(TextEditor)?Command\(/.test(readFileSync(f, 'utf8')) &&
        f !== 'extension/commands/index.ts',
    );
    expect(registering).toEqual([]);
    const table = readFileSync('extension/commands/index.ts', 'utf8');
    expect(table).toMatch(/COMMANDS\.map\(\(spec\) =>\s*vscode\.commands\.registerCommand\(spec\.id/);
    expect(table.match(/registerCommand\(/g)).toHaveLength(1);
  });
});

describe('one naming style per folder', () => {
  /** camelCase or kebab-case (snake_case is C++'s); one lower-case word fits any. */
  const style = (name: string): string | undefined =>
    /[A-Z]/.test(name)
      ? 'camelCase'
      : name.includes('-')
        ? 'kebab-case'
        : name.includes('_')
          ? 'snake_case'
          : undefined;

  /** Each language keeps its own convention (Python and C++ snake_case, shell kebab-case). */
  const language = (file: string): string =>
    ({ '.py': 'python', '.sh': 'shell', '.cc': 'c++', '.h': 'c++', '.cpp': 'c++', '.hbs': 'template' })[
      extname(file)
    ] ?? 'typescript';

  it('holds for every folder and language: its files are all camelCase, all kebab-case or all snake_case', () => {
    const styles = new Map<string, Map<string, string[]>>();
    for (const file of sources) {
      // A declaration file of an npm package carries the package's name.
      if (file.endsWith('.d.ts')) continue;
      const name = basename(file, extname(file)).replace(/\.(test|build)$/, '');
      const s = style(name);
      if (!s) continue;
      const key = `${dirname(file)} (${language(file)})`;
      const folder = styles.get(key) ?? new Map<string, string[]>();
      folder.set(s, [...(folder.get(s) ?? []), basename(file)]);
      styles.set(key, folder);
    }
    const mixed = [...styles]
      .filter(([, byStyle]) => byStyle.size > 1)
      .map(
        ([folder, byStyle]) =>
          `${folder}: ${[...byStyle].map(([s, files]) => `${s} (${files.join(', ')})`).join(' / ')}`,
      );
    expect(mixed).toEqual([]);
  });
});
