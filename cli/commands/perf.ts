import { Command, InvalidArgumentError, Option } from 'commander';
import {
  ARRIVAL_DISTRIBUTIONS,
  formatPerfReport,
  parseSlos,
  runLatencyTest,
  writePerfReport,
  type ArrivalDistribution,
  type LoadSpec,
} from '../../client/index.js';
import { action } from '../action.js';
import { connect, withConnectionOptions, type ConnectionOptions } from '../connection.js';
import { CliError } from '../io.js';
import { positiveNumber, seconds, wholeNumber } from '../options.js';

export interface PerfCliOptions {
  model: string;
  concurrency?: number;
  requestRate?: number;
  distribution: ArrivalDistribution;
  seed?: number;
  goodput?: Record<string, number>;
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
    .option('--concurrency <n>', 'requests in flight (default 1)', wholeNumber(1))
    .option('--request-rate <r>', 'send R requests/s on a schedule instead (open loop)', positiveNumber)
    .addOption(
      new Option('--distribution <kind>', 'gaps between scheduled sends')
        .choices([...ARRIVAL_DISTRIBUTIONS])
        .default('constant'),
    )
    .option('--seed <n>', 'seed for random send gaps: the same seed, the same schedule', wholeNumber(0))
    .option('--goodput <slos>', 'count requests meeting SLOs, e.g. ttft:50,itl:5 (ms)', slos)
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
        if (opts.requestRate !== undefined && opts.concurrency !== undefined) {
          throw new CliError('give --concurrency or --request-rate, not both', 2);
        }
        const amount = {
          requests: opts.duration === undefined ? (opts.requests ?? 100) : undefined,
          durationS: opts.duration,
          warmupRequests: opts.warmup,
        };
        const load: LoadSpec =
          opts.requestRate !== undefined
            ? {
                mode: 'request-rate',
                rate: opts.requestRate,
                distribution: opts.distribution,
                seed: opts.seed,
                ...amount,
              }
            : { mode: 'concurrency', concurrency: opts.concurrency ?? 1, ...amount };
        const client = connect(opts);
        try {
          out.progress(`measuring ${opts.model} at ${client.url}…`);
          const report = await runLatencyTest(client, {
            model: opts.model,
            prompt: opts.prompt,
            maxTokens: opts.maxTokens,
            stream: opts.stream,
            slos: opts.goodput,
            load,
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

function slos(text: string): Record<string, number> {
  try {
    return parseSlos(text);
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
}
