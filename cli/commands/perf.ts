/**
 * `triton-studio perf`: measure (the default subcommand), compare two reports, report as HTML/CSV.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import {
  ARRIVAL_DISTRIBUTIONS,
  asComparable,
  compareReports,
  formatComparison,
  formatPerfReport,
  formatSweepReport,
  parseSlos,
  PERF_ANALYZER_WINDOWS,
  PERF_ENGINES,
  profileCsv,
  profileExport,
  renderHtmlReport,
  reportCsv,
  runSweep,
  sweepCsv,
  writePerfReport,
  writeReportFile,
  type ArrivalDistribution,
  type Endpoint,
  type LoadSpec,
  type PerfEngine,
  type SweepReport,
} from '../../client/index.js';
import { action } from '../action.js';
import {
  connectTransport,
  withConnectionOptions,
  withEndpointOption,
  type ConnectionOptions,
} from '../connection.js';
import { onInterrupt } from '../interrupt.js';
import { CliError, type Output } from '../io.js';
import { positiveNumber, seconds, wholeNumber } from '../options.js';
import { perfInputs, withPerfInputOptions, type PerfInputOptions } from '../perfInputs.js';
import { liveProgress } from '../perfProgress.js';

export interface PerfCliOptions extends PerfInputOptions {
  model: string;
  metricsUrl?: string;
  useServerTokenCount?: boolean;
  endpoint: Endpoint;
  engine?: PerfEngine;
  concurrency?: number[];
  requestRate?: number[];
  distribution: ArrivalDistribution;
  gammaShape?: number;
  seed?: number;
  requests?: number;
  duration?: number;
  windows?: number | true;
  maxWindows: number;
  numRuns: number;
  warmup: number;
  prompt: string;
  inputFile?: string;
  maxTokens: number;
  stream?: boolean;
  goodput?: Record<string, number>;
  requestTimeout?: number;
  export?: string;
  profileExport?: string;
  csv?: string;
  html?: string;
  json?: boolean;
}

/** `perf …` measures (the default subcommand); `perf compare A B` compares two reports. */
export function perfCommand(): Command {
  const measure = measureCommand();
  return (
    new Command('perf')
      .description('latency test (the default: perf --url … --model …), or perf compare A.json B.json')
      .addCommand(measure, { isDefault: true })
      .addCommand(compareCommand())
      .addCommand(reportCommand())
      // `perf --url … --model …` runs measure, so its options belong on this page too.
      .addHelpText('after', () => `\nThe default command, perf measure:\n${measure.helpInformation()}`)
  );
}

function measureCommand(): Command {
  return withPerfInputOptions(
    withEndpointOption(
      withConnectionOptions(
        new Command('measure').description(
          'latency test: closed-loop concurrency or open-loop request rate, sweeps, TTFT / ITL / latency percentiles, server breakdown',
        ),
      ),
    ),
  )
    .requiredOption('--model <name>', 'the ensemble to measure')
    .option('--concurrency <n,…>', 'requests in flight; a list sweeps (default 1)', list(wholeNumber(1)))
    .option(
      '--request-rate <r,…>',
      'send R requests/s on a schedule instead (open loop); a list sweeps',
      list(positiveNumber),
    )
    .addOption(
      new Option(
        '--engine <engine>',
        'what sends the requests: native (ts-perf-driver, C++ over nghttp2; the default for the gRPC endpoints) or node',
      ).choices(PERF_ENGINES),
    )
    .addOption(
      new Option('--distribution <kind>', 'gaps between scheduled sends')
        .choices([...ARRIVAL_DISTRIBUTIONS])
        .default('constant'),
    )
    .option('--gamma-shape <k>', 'gamma distribution shape (1 = Poisson, below 1 burstier)', positiveNumber)
    .option('--seed <n>', 'seed for random send gaps: the same seed, the same schedule', wholeNumber(0))
    .option(
      '--requests <n>',
      'measured requests per run (default 100 unless --duration or --windows)',
      wholeNumber(1),
    )
    .option('--duration <seconds>', 'measure for this long instead of a request count', seconds)
    .option(
      '--windows [seconds]',
      "measure in windows (default 5 s) until the last 3 agree within 10% (perf_analyzer's stability rule)",
      seconds,
    )
    .option('--max-windows <n>', 'give up on stability after this many windows', wholeNumber(3), 10)
    .option('--num-runs <n>', 'repeat every load point; reports 95% confidence intervals', wholeNumber(1), 1)
    .option('--warmup <n>', 'unmeasured requests first', wholeNumber(0), 5)
    .option(
      '--prompt <text>',
      'prompt sent with every request',
      'The quick brown fox jumps over the lazy dog',
    )
    .option(
      '--input-file <jsonl>',
      'prompts sent in turn: one {"text": …, "output_length"?: n} per line (GenAI-Perf / AIPerf shape)',
    )
    .option('--max-tokens <n>', 'tokens to generate per request', wholeNumber(1), 16)
    .option('--stream', 'streamed requests; also reports TTFT, time to second token and ITL')
    .option(
      '--use-server-token-count',
      "without --tokenizer: token counts from the server's answers (OpenAI's usage), as AIPerf's option",
    )
    .option(
      '--metrics-url <url>',
      "Triton's Prometheus metrics (e.g. http://127.0.0.1:8002/metrics): adds pending requests per model to the server breakdown",
    )
    .option('--goodput <slos>', 'count requests meeting SLOs, e.g. ttft:50,itl:5 (ms)', slos)
    .option('--request-timeout <seconds>', 'per-request deadline (failures count as errors)', seconds)
    .option(
      '--export <file>',
      'write the full report as JSON (one run: triton-studio.perf; a sweep: triton-studio.perf-sweep)',
    )
    .option('--profile-export <file>', "write GenAI-Perf's profile_export JSON (one load point)")
    .option('--csv <file>', 'write the metrics as CSV')
    .option('--html <file>', 'write a self-contained HTML report with charts')
    .option('--json', 'print the report as JSON')
    .action(action(measure));
}

/** `perf measure`: the sweep, its report and files; exit 1 when a request failed, 130 when interrupted. */
async function measure(out: Output, opts: ConnectionOptions & PerfCliOptions): Promise<number> {
  const loads = measuredLoads(opts);
  const { inputs, tokenizer } = await perfInputs(opts, out.progress.bind(out));
  const controller = new AbortController();
  // The first interrupt stops sending and lets the requests in flight finish (the report
  // follows); a second quits at once, for a server that never answers them.
  const release = onInterrupt((signal) => {
    if (!controller.signal.aborted) {
      controller.abort();
      out.progress('stopping: waiting for the requests in flight (interrupt again to quit now)');
    } else {
      process.exit(signal === 'SIGINT' ? 130 : 143);
    }
  });
  const client = connectTransport(opts);
  const progress = out.json ? undefined : liveProgress();
  try {
    out.progress(`measuring ${opts.model} at ${client.url}…`);
    const sweep = await runSweep(client, {
      model: opts.model,
      prompt: opts.prompt,
      inputs,
      tokenizer,
      metricsUrl: opts.metricsUrl,
      serverTokenCounts: opts.useServerTokenCount,
      engine: opts.engine ?? 'auto',
      maxTokens: opts.maxTokens,
      stream: opts.stream,
      slos: opts.goodput,
      timeoutMs: opts.requestTimeout && opts.requestTimeout * 1000,
      windows: stabilityWindows(opts),
      keepRecords: opts.html !== undefined,
      loads,
      numRuns: opts.numRuns,
      signal: controller.signal,
      onProgress: progress?.update,
    });
    progress?.stop();
    const single =
      sweep.points.length === 1 && sweep.points[0]!.runs.length === 1 ? sweep.points[0]!.runs[0]! : undefined;
    writeFiles(opts, sweep);
    out.result(single ?? sweep);
    out.info(single ? formatPerfReport(single) : formatSweepReport(sweep));
    for (const file of [opts.export, opts.profileExport, opts.csv, opts.html]) {
      if (file) out.info(`written: ${file}`);
    }
    const runs = sweep.points.flatMap((p) => p.runs);
    if (sweep.cancelled) return 130;
    return runs.some((r) => r.results.errors > 0) ? 1 : 0;
  } finally {
    progress?.stop();
    release();
    client.close();
    tokenizer?.close();
  }
}

/** The load points asked for, once the options that exclude each other are checked. */
function measuredLoads(opts: PerfCliOptions): LoadSpec[] {
  if (opts.requests !== undefined && opts.duration !== undefined) {
    throw new CliError('give --requests or --duration, not both', 2);
  }
  if (opts.windows !== undefined && (opts.requests !== undefined || opts.duration !== undefined)) {
    throw new CliError('--windows measures until stable: leave out --requests and --duration', 2);
  }
  if (opts.requestRate !== undefined && opts.concurrency !== undefined) {
    throw new CliError('give --concurrency or --request-rate, not both', 2);
  }
  const loads = loadPoints(opts);
  if (opts.profileExport && loads.length * opts.numRuns > 1) {
    throw new CliError(
      '--profile-export describes one run: give one load point and --num-runs 1 (or use --export)',
      2,
    );
  }
  return loads;
}

/** --windows: perf_analyzer's stability rule, with the window length and count given. */
function stabilityWindows(opts: PerfCliOptions) {
  if (opts.windows === undefined) return undefined;
  return {
    ...PERF_ANALYZER_WINDOWS,
    windowS: opts.windows === true ? PERF_ANALYZER_WINDOWS.windowS : opts.windows,
    maxWindows: opts.maxWindows,
  };
}

function compareCommand(): Command {
  return new Command('compare')
    .description(
      'compare two perf reports (--export JSON): the change of every metric, and whether it exceeds run-to-run noise',
    )
    .argument('<a>', 'the baseline report')
    .argument('<b>', 'the report to compare with it')
    .option('--json', 'print the comparison as JSON')
    .action(
      action(async (out, a: string, b: string) => {
        const comparison = compareReports(readReport(a), readReport(b), [a, b]);
        out.result(comparison);
        out.info(formatComparison(comparison));
        if (comparison.points.length === 0)
          throw new CliError('the two reports have no load point in common');
      }),
    );
}

/**
 * `perf report A.json [B.json] --html out.html`: the latency report of saved runs, two side by
 * side: the document VS Code's latency report shows and exports for the same files.
 */
function reportCommand(): Command {
  return new Command('report')
    .description(
      'write the HTML report (and CSV) of saved runs (perf --export, or VS Code latency runs); two runs side by side',
    )
    .argument('<files...>', 'one or two report files')
    .option('--html <file>', 'write the self-contained HTML report')
    .option('--csv <file>', 'write the metrics as CSV')
    .option('--json', 'print the files written as JSON')
    .action(
      action(async (out, files: string[], opts: { html?: string; csv?: string }) => {
        if (files.length > 2) throw new CliError(`give one or two report files (got ${files.length})`, 2);
        if (!opts.html && !opts.csv)
          throw new CliError('nothing to write: give --html <file> and/or --csv <file>', 2);
        const runs = files.map((file) => ({ label: basename(file, '.json'), report: readReport(file) }));
        if (opts.html) writeReportFile(opts.html, renderHtmlReport(runs));
        if (opts.csv) writeReportFile(opts.csv, reportCsv(runs));
        const written = [opts.html, opts.csv].filter((f): f is string => f !== undefined);
        out.result({ written });
        for (const file of written) out.info(`written: ${file}`);
      }),
    );
}

function readReport(file: string): SweepReport {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    return asComparable(JSON.parse(text), file);
  } catch (error) {
    throw new CliError(`${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function loadPoints(opts: PerfCliOptions): LoadSpec[] {
  const amount = {
    requests: opts.duration === undefined && opts.windows === undefined ? (opts.requests ?? 100) : undefined,
    durationS: opts.duration,
    warmupRequests: opts.warmup,
  };
  if (opts.requestRate !== undefined) {
    return opts.requestRate.map((rate) => ({
      mode: 'request-rate',
      rate,
      distribution: opts.distribution,
      gammaShape: opts.gammaShape,
      seed: opts.seed,
      ...amount,
    }));
  }
  return (opts.concurrency ?? [1]).map((concurrency) => ({ mode: 'concurrency', concurrency, ...amount }));
}

function writeFiles(opts: PerfCliOptions, sweep: SweepReport): void {
  const single =
    sweep.points.length === 1 && sweep.points[0]!.runs.length === 1 ? sweep.points[0]!.runs[0]! : undefined;
  if (opts.export) writePerfReport(opts.export, single ?? sweep);
  if (opts.profileExport && single) {
    writeReportFile(opts.profileExport, `${JSON.stringify(profileExport(single), null, 2)}\n`);
  }
  if (opts.csv) writeReportFile(opts.csv, single ? profileCsv(single) : sweepCsv(sweep));
  if (opts.html) writeReportFile(opts.html, renderHtmlReport(sweep));
}

/** `1,4,16` → [1, 4, 16], each parsed by `item`. */
function list(item: (value: string) => number) {
  return (value: string): number[] => value.split(',').map((part) => item(part.trim()));
}

function slos(text: string): Record<string, number> {
  try {
    return parseSlos(text);
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
}
