import { Command } from 'commander';
import { runLatencyTest } from '../../client/perf/latencyTest.js';
import { formatPerfReport, writePerfReport } from '../../client/perf/report.js';
import { action } from '../action.js';
import { connect, withConnectionOptions, type ConnectionOptions } from '../connection.js';
import { CliError } from '../io.js';
import { seconds, wholeNumber } from '../options.js';

export interface PerfCliOptions {
  model: string;
  concurrency: number;
  requests?: number;
  duration?: number;
  warmup: number;
  prompt: string;
  maxTokens: number;
  stream?: boolean;
  export?: string;
}

export function perfCommand(): Command {
  return withConnectionOptions(
    new Command('perf').description(
      'latency test: keep N prompts in flight, measure request latency (and TTFT when streaming) percentiles',
    ),
  )
    .requiredOption('--model <name>', 'the ensemble to measure')
    .option('--concurrency <n>', 'requests in flight', wholeNumber(1), 1)
    .option('--requests <n>', 'measured requests (default 100 unless --duration)', wholeNumber(1))
    .option('--duration <seconds>', 'measure for this long instead of a request count', seconds)
    .option('--warmup <n>', 'unmeasured requests first', wholeNumber(0), 5)
    .option(
      '--prompt <text>',
      'prompt sent with every request',
      'The quick brown fox jumps over the lazy dog',
    )
    .option('--max-tokens <n>', 'tokens to generate per request', wholeNumber(1), 16)
    .option('--stream', 'streamed requests; also reports time to first token')
    .option('--export <file>', 'write the full report as JSON')
    .option('--json', 'print the report as JSON')
    .action(
      action(async (out, opts: ConnectionOptions & PerfCliOptions) => {
        if (opts.requests !== undefined && opts.duration !== undefined) {
          throw new CliError('give --requests or --duration, not both', 2);
        }
        const client = connect(opts);
        try {
          out.progress(`measuring ${opts.model} at ${client.url}…`);
          const report = await runLatencyTest(client, {
            model: opts.model,
            prompt: opts.prompt,
            maxTokens: opts.maxTokens,
            stream: opts.stream,
            load: {
              mode: 'concurrency',
              concurrency: opts.concurrency,
              requests: opts.duration === undefined ? (opts.requests ?? 100) : undefined,
              durationS: opts.duration,
              warmupRequests: opts.warmup,
            },
          });
          if (opts.export) writePerfReport(opts.export, report);
          out.result(report);
          out.info(formatPerfReport(report));
          if (opts.export) out.info(`report written to ${opts.export}`);
          return report.results.errors > 0 ? 1 : 0;
        } finally {
          client.close();
        }
      }),
    );
}
