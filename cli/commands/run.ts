import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Command } from 'commander';
import { deployRepository } from '../../client/deploy.js';
import { TritonClient } from '../../client/grpc/client.js';
import { runLatencyTest } from '../../client/perf/latencyTest.js';
import { formatPerfReport, writePerfReport } from '../../client/perf/report.js';
import { sendPrompt } from '../../client/prompt.js';
import { startLocalServer, type LocalServer } from '../../client/server/localServer.js';
import { buildRepository } from '../../generator/build/index.js';
import { generateRepository, hasErrors } from '../../generator/index.js';
import { action } from '../action.js';
import { CliError } from '../io.js';
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
        const repo = join(workDir, 'repo');
        const timings: Record<string, number> = {};
        const timed = async <T>(stage: string, fn: () => Promise<T> | T): Promise<T> => {
          out.progress(`[${stage}]`);
          const start = performance.now();
          try {
            return await fn();
          } finally {
            timings[stage] = Math.round(performance.now() - start);
          }
        };
        let server: LocalServer | undefined;
        let client: TritonClient | undefined;
        let succeeded = false;
        try {
          const generated = await timed('generate', () =>
            generateRepository({ pipelinePath: pipeline, outDir: repo }),
          );
          out.diagnostics(generated.diagnostics);
          if (hasErrors(generated.diagnostics) || !generated.ensembleName) {
            throw new CliError(`${pipeline} has errors: nothing was generated`);
          }
          const ensemble = generated.ensembleName;
          out.progress(`  ${generated.files.length} files in ${repo}`);

          const built = await timed('build', () => buildRepository(repo));
          for (const m of built.built) out.progress(`  ${m.model}: ${m.library}`);

          server = await timed('serve', () =>
            startLocalServer({ modelRepository: repo, logFile: join(workDir, 'tritonserver.log') }),
          );
          out.progress(`  tritonserver ${server.pid} at ${server.grpcUrl} (log ${server.logFile})`);
          client = new TritonClient(server.grpcUrl);
          const activeClient = client;

          const deployed = await timed('deploy', () =>
            deployRepository(activeClient, {
              repository: repo,
              mode: 'local',
              onModel: (s) => out.progress(describeModel(s)),
            }),
          );
          if (!deployed.ok) throw new CliError(`deploy failed; server log: ${server.logFile}`);

          const answer = await timed('prompt', () => {
            out.info(`prompt: ${opts.prompt}`);
            out.write('answer: ');
            return sendPrompt(activeClient, {
              model: ensemble,
              text: opts.prompt,
              maxTokens: opts.maxTokens,
              stream: opts.stream,
              onText: opts.stream ? (chunk) => out.write(chunk) : undefined,
            });
          });
          out.write(`${opts.stream ? '' : answer.text}\n`);
          out.info(`(ttft ${answer.ttftMs.toFixed(1)} ms, latency ${answer.latencyMs.toFixed(1)} ms)\n`);

          const report = await timed('perf', () =>
            runLatencyTest(activeClient, {
              model: ensemble,
              prompt: opts.prompt,
              maxTokens: opts.maxTokens,
              stream: opts.stream,
              load: {
                mode: 'concurrency',
                concurrency: opts.concurrency,
                requests: opts.requests,
                warmupRequests: 2,
              },
            }),
          );
          if (opts.export) writePerfReport(opts.export, report);
          out.info(formatPerfReport(report));
          out.result({
            ok: report.results.errors === 0,
            workDir,
            repository: repo,
            ensemble,
            timingsMs: timings,
            deploy: deployed,
            prompt: answer,
            perf: report,
          });
          succeeded = report.results.errors === 0;
          return succeeded ? 0 : 1;
        } finally {
          client?.close();
          if (server) await server.stop();
          // A failed run keeps its folder: the repository and the server log explain the failure.
          if (temporary && !opts.keep && succeeded) rmSync(workDir, { recursive: true, force: true });
          else out.progress(`work folder kept: ${workDir}`);
        }
      }),
    );
}
