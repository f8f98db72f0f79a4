/** `triton-studio run`: generate, build, serve on a private server and prompt, in one go. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { formatPerfReport, runWorkflow, writePerfReport } from '../../client/index.js';
import { action } from '../action.js';
import { onInterrupt } from '../interrupt.js';
import { wholeNumber } from '../options.js';
import { describeModel } from './deploy.js';

interface RunOptions {
  workDir?: string;
  keep?: boolean;
  prompt: string;
  maxTokens: number;
  stream?: boolean;
  requests: number;
  concurrency: number;
  export?: string;
}

export function runCommand(): Command {
  return new Command('run')
    .description(
      'the whole job: generate, build, start the local server, deploy, send a prompt, run a short latency test, stop',
    )
    .argument('<pipeline>', 'the *.pipeline.json file')
    .option('--work-dir <dir>', 'keep the repository here (default: a temporary folder, removed afterwards)')
    .option('--keep', 'keep the temporary folder (repository and server log)')
    .option('--prompt <text>', 'the prompt to send', 'Triton Studio serves LLMs without Python.')
    .option('--max-tokens <n>', 'tokens to generate', wholeNumber(1), 16)
    .option('--stream', 'stream the answer')
    .option('--requests <n>', 'requests in the latency test', wholeNumber(1), 20)
    .option('--concurrency <n>', 'concurrency of the latency test', wholeNumber(1), 2)
    .option('--export <file>', 'write the latency report as JSON')
    .option('--json', 'print every stage result as JSON')
    .action(
      action(async (out, pipeline: string, opts: RunOptions) => {
        const temporary = opts.workDir === undefined;
        const workDir = resolve(opts.workDir ?? mkdtempSync(join(tmpdir(), 'triton-studio-run-')));
        // Ctrl-C cancels the run: the build stops, the private server is stopped, the folder kept.
        const cancel = new AbortController();
        const stopInterrupts = onInterrupt((signal) => {
          if (cancel.signal.aborted) process.exit(signal === 'SIGINT' ? 130 : 143); // a second Ctrl-C
          out.progress('cancelling…');
          cancel.abort();
        });
        let result;
        try {
          result = await runWorkflow({
            pipeline,
            workDir,
            prompt: { text: opts.prompt, maxTokens: opts.maxTokens, stream: opts.stream },
            load: {
              mode: 'concurrency',
              concurrency: opts.concurrency,
              requests: opts.requests,
              warmupRequests: 2,
            },
            signal: cancel.signal,
            onStage: (e) => {
              if (e.state === 'started') out.progress(`[${e.stage}]`);
              if (e.state === 'started' && e.stage === 'prompt') {
                out.info(`prompt: ${opts.prompt}`);
                out.write('answer: ');
              }
              if (e.state === 'finished' && e.stage === 'prompt') out.info(`\n(${e.summary})\n`);
            },
            onProgress: (_stage, line) => out.progress(`  ${line}`),
            onModel: (s) => out.progress(describeModel(s)),
            onText: (chunk) => out.write(chunk),
          });
        } finally {
          stopInterrupts();
        }
        out.diagnostics(result.diagnostics);
        if (result.perf) {
          if (opts.export) writePerfReport(opts.export, result.perf);
          out.info(formatPerfReport(result.perf));
        }
        // A failed run keeps its folder: the repository and the server log explain the failure.
        if (temporary && !opts.keep && result.ok) rmSync(workDir, { recursive: true, force: true });
        else out.progress(`work folder kept: ${workDir}`);
        if (!result.ok) {
          out.error(`${result.failedStage ?? 'run'}: ${result.error}`);
          return result.cancelled ? 130 : 1;
        }
        out.result(result);
        return 0;
      }),
    );
}
