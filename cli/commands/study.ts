/** `triton-studio study batching`: the effective-batching experiment and its report. */
import { Command, InvalidArgumentError, Option } from 'commander';
import { SingleBar, Presets } from 'cli-progress';
import {
  formatStudyReport,
  llamaStudyTarget,
  LLAMA_STUDY_MODES,
  renderStudyHtml,
  runBatchingStudy,
  SCHEDULING_MODES,
  writeReportFile,
  type SchedulingMode,
  type StudyProgress,
} from '../../client/index.js';
import { action } from '../action.js';
import type { Output } from '../io.js';
import { connect, withConnectionOptions, type ConnectionOptions } from '../connection.js';
import { onInterrupt } from '../interrupt.js';
import { positiveNumber, seconds, wholeNumber } from '../options.js';

const ENGINES = ['sim-llm', 'llama-cpp'] as const;

interface StudyCliOptions {
  engine: (typeof ENGINES)[number];
  modes?: SchedulingMode[];
  startRate: number;
  steps: number;
  stepSeconds: number;
  minTokens: number;
  maxTokens: number;
  seed: number;
  maxBatch?: number;
  decodeUs?: number;
  library?: string;
  gguf?: string;
  tokenizer?: string;
  threads?: number;
  maxSequences?: number;
  export?: string;
  html?: string;
  json?: boolean;
}

/** `study batching`: the effective-batching experiment against sim-llm's or the llama.cpp step's scheduling modes. */
export function studyCommand(): Command {
  return new Command('study')
    .description('experiments that run several set-ups on one server and compare them')
    .addCommand(batchingCommand().exitOverride().showHelpAfterError('(run with --help for usage)'));
}

function batchingCommand(): Command {
  return withConnectionOptions(
    new Command('batching').description(
      'none vs static vs dynamic vs in-flight batching in sim-llm (or none vs dynamic vs in-flight in the llama.cpp step on a real model) under one seeded mixed workload: throughput, latency per output token, latency vs requested tokens',
    ),
  )
    .addOption(
      new Option(
        '--engine <name>',
        'what serves the workload: sim-llm (timing model) or llama-cpp (a real GGUF model on the CPU)',
      )
        .choices([...ENGINES])
        .default('sim-llm'),
    )
    .addOption(
      new Option(
        '--modes <list>',
        `scheduling modes to run, in order (default: all the engine has; sim-llm: ${SCHEDULING_MODES.join(',')}; llama-cpp: ${LLAMA_STUDY_MODES.join(',')})`,
      ).argParser(modes),
    )
    .option('--start-rate <r>', 'first offered rate, requests/s; each step doubles it', positiveNumber, 1)
    .option(
      '--steps <n>',
      'at most this many rate steps per mode (a mode stops at saturation)',
      wholeNumber(1),
      8,
    )
    .option('--step-seconds <s>', 'seconds of arrivals per step', seconds, 8)
    .option('--min-tokens <n>', 'fewest tokens a request asks for', wholeNumber(1), 1)
    .option('--max-tokens <n>', 'most tokens a request asks for', wholeNumber(1), 200)
    .option(
      '--seed <n>',
      'seeds arrivals and requested tokens: the same seed, the same workload',
      wholeNumber(0),
      1,
    )
    .option('--max-batch <n>', "sim-llm's batch rows (default 8)", wholeNumber(1))
    .option('--decode-us <us>', "sim-llm's decode step at batch 1, µs (default 2000)", positiveNumber)
    .option('--library <file>', 'libtriton_sim_llm.so to upload (default: built from this checkout)')
    .option(
      '--gguf <file>',
      'llama-cpp: the GGUF model (default: SmolLM2-135M-Instruct from `npm run setup`)',
    )
    .option('--tokenizer <file>', "llama-cpp: the model's tokenizer.json (default: SmolLM2's)")
    .option(
      '--threads <n>',
      "llama-cpp: ggml threads (default 0: one fewer than the server's CPUs; more than that spin-waits)",
      wholeNumber(0),
    )
    .option('--max-sequences <n>', 'llama-cpp: requests decoded together (default 4)', wholeNumber(1))
    .option('--export <file>', 'write the report as JSON')
    .option('--html <file>', 'write a self-contained HTML report with charts')
    .option('--json', 'print the report as JSON')
    .action(action(runStudy));
}

/** Runs the study on the engine asked for and prints (or writes) its report. */
async function runStudy(out: Output, opts: ConnectionOptions & StudyCliOptions): Promise<number> {
  const controller = new AbortController();
  const release = onInterrupt(() => controller.abort());
  const client = connect(opts);
  const progress = out.json ? undefined : studyProgress();
  try {
    out.progress(`batching study at ${client.url} (Ctrl-C ends it after the requests in flight)…`);
    const target =
      opts.engine === 'llama-cpp'
        ? await llamaStudyTarget({
            gguf: opts.gguf,
            tokenizer: opts.tokenizer,
            threads: opts.threads,
            maxSequences: opts.maxSequences,
          })
        : undefined;
    const report = await runBatchingStudy(client, {
      target,
      modes: opts.modes,
      startRate: opts.startRate,
      maxSteps: opts.steps,
      stepS: opts.stepSeconds,
      minTokens: opts.minTokens,
      maxTokens: opts.maxTokens,
      seed: opts.seed,
      model: {
        ...(opts.maxBatch !== undefined ? { maxBatch: opts.maxBatch } : {}),
        ...(opts.decodeUs !== undefined ? { decodeUsPerStep: opts.decodeUs } : {}),
      },
      library: opts.library,
      signal: controller.signal,
      onProgress: progress?.update,
    });
    progress?.stop();
    if (opts.export) writeReportFile(opts.export, `${JSON.stringify(report, null, 2)}\n`);
    if (opts.html) writeReportFile(opts.html, renderStudyHtml(report));
    out.result(report);
    out.info(formatStudyReport(report));
    for (const file of [opts.export, opts.html]) if (file) out.info(`written: ${file}`);
    return report.cancelled ? 130 : 0;
  } finally {
    progress?.stop();
    release();
    client.close();
  }
}

function modes(text: string): SchedulingMode[] {
  const list = text.split(',').map((m) => m.trim());
  const unknown = list.find((m) => !(SCHEDULING_MODES as readonly string[]).includes(m));
  if (unknown !== undefined) {
    throw new InvalidArgumentError(
      `scheduling mode '${unknown}' is not one of ${SCHEDULING_MODES.join(', ')}`,
    );
  }
  return list as SchedulingMode[];
}

/** One progress bar per rate step, on stderr. */
function studyProgress(): { update: (p: StudyProgress) => void; stop: () => void } {
  const bar = new SingleBar(
    {
      stream: process.stderr,
      format: '{mode} @ {rate}/s |{bar}| {value}/{total} requests · {errors} failed',
      hideCursor: true,
      noTTYOutput: false,
    },
    Presets.shades_classic,
  );
  let active = false;
  return {
    update: (p) => {
      const payload = { mode: p.mode, rate: p.rate, errors: p.errors };
      if (p.completed === 0 && !p.step) {
        if (active) bar.stop();
        bar.start(p.total, 0, payload);
        active = true;
      } else {
        bar.update(p.completed, payload);
      }
      if (p.step && active) {
        bar.stop();
        active = false;
      }
    },
    stop: () => {
      if (active) bar.stop();
      active = false;
    },
  };
}
