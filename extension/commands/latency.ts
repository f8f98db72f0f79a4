/**
 * Run Latency Test (one load level, or a concurrency sweep for latency vs load) and Compare
 * Latency Runs. Each run is saved as JSON under `.triton-studio/reports/` (the CLI's `perf
 * --export` shape) and opened in the latency report panel.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import * as vscode from 'vscode';
import {
  asComparable,
  openNativeTokenizer,
  repositoryTokenizer,
  runSweep,
  type NativeTokenizer,
  type LabelledReport,
  type LoadSpec,
  type PerfReport,
  type SweepReport,
} from '../../client/index.js';
import type { Ctx, ServerTarget } from '../context.js';
import { readPromptSettings } from '../settings.js';
import { LatencyReportPanel, type ExportFormat } from '../views/latencyReport.js';
import { describePromptFailure } from './promptFailure.js';
import type { PromptRequest } from './sendPrompt.js';
import {
  errorMessage,
  notify,
  openOutput,
  openSetting,
  showError,
  withProgress,
  type ErrorAction,
  type Outcome,
} from './ui.js';

const DEFAULT_PROMPT = 'Triton Studio serves LLMs without Python.';

export interface LatencyTestRequest extends Partial<PromptRequest> {
  /** Concurrency levels to run one after the other (a sweep: latency vs load). */
  concurrency?: number[];
  /** Measured requests per level. */
  requests?: number;
}

const PRESETS: { label: string; detail: string; concurrency: number[]; requests: number }[] = [
  { label: 'Quick', detail: '20 requests at concurrency 1', concurrency: [1], requests: 20 },
  {
    label: 'Load sweep',
    detail: 'concurrency 1, 2, 4, 8, 40 requests each: latency vs load',
    concurrency: [1, 2, 4, 8],
    requests: 40,
  },
  { label: 'Long', detail: '200 requests at concurrency 4', concurrency: [4], requests: 200 },
];

export async function runLatencyTestCommand(
  ctx: Ctx,
  arg?: unknown,
): Promise<Outcome<{ file: string; reports: PerfReport[] }> | undefined> {
  const request: LatencyTestRequest =
    typeof arg === 'object' && arg !== null && !(arg instanceof vscode.Uri)
      ? (arg as LatencyTestRequest)
      : {};
  const inputs = await askForInputs(request);
  if (!inputs) return undefined;
  let settings;
  try {
    const target = await ctx.server(request.uri, request.serverUrl);
    settings = readPromptSettings(request.uri, target.url, request);
    const { model } = settings;
    const sweep = await measureSweep(ctx, target, settings, inputs);
    const reports = sweep.points.flatMap((p) => p.runs);
    // A cancelled run is not saved: its partial levels would read like a finished run in a comparison.
    if (sweep.cancelled || reports.length === 0) {
      ctx.log(`latency test of ${model} cancelled: nothing saved`);
      return { ok: false, error: 'Latency test cancelled.', cancelled: true };
    }
    const file = saveRun(ctx, model, sweep);
    new LatencyReportPanel(ctx, [{ label: basename(file, '.json'), report: sweep }]);
    return { ok: true, file, reports };
  } catch (error) {
    const failure = describePromptFailure(error, settings);
    if (failure.cancelled) return { ok: false, error: 'Latency test cancelled.', cancelled: true };
    const actions: ErrorAction[] = failure.setting ? [openSetting(failure.setting)] : [openOutput(ctx)];
    void showError(ctx, `Latency test failed: ${failure.message}`, ...actions);
    return { ok: false, error: failure.message };
  }
}

/** The load levels and the prompt of a run: from the request, else picked and typed; undefined if dismissed. */
async function askForInputs(request: LatencyTestRequest): Promise<LatencyInputs | undefined> {
  let plan = request.concurrency
    ? { concurrency: request.concurrency, requests: request.requests ?? 20 }
    : undefined;
  if (!plan) {
    const pick = await vscode.window.showQuickPick(PRESETS, { title: 'Triton Studio: Run Latency Test' });
    if (!pick) return undefined;
    plan = pick;
  }
  const prompt =
    request.text ??
    (await vscode.window.showInputBox({
      title: 'Triton Studio: Run Latency Test',
      prompt: 'The prompt every request sends',
      value: DEFAULT_PROMPT,
    }));
  if (prompt === undefined) return undefined;
  return { concurrency: plan.concurrency, requests: plan.requests, prompt };
}

interface LatencyInputs {
  concurrency: number[];
  requests: number;
  prompt: string;
}

/**
 * The latency lab's own sweep, as `triton-studio perf --concurrency …` runs it: the saved file is
 * what `perf --export` writes, and `perf compare` / `perf compare --html` read it.
 */
async function measureSweep(
  ctx: Ctx,
  target: ServerTarget,
  { model, maxTokens }: { model: string; maxTokens: number },
  { concurrency: levels, requests, prompt }: LatencyInputs,
): Promise<SweepReport> {
  const loads: LoadSpec[] = levels.map((concurrency) => ({
    mode: 'concurrency',
    concurrency,
    requests,
    warmupRequests: Math.min(5, concurrency * 2),
  }));
  return withProgress(`Triton Studio: latency test of ${model}`, async (report, signal) => {
    const tokenizer = await nativeTokenizerOf(ctx, target, model, report);
    try {
      return await runSweep(target.client, {
        model,
        prompt,
        maxTokens,
        stream: true,
        loads,
        signal,
        tokenizer,
        // Per-request records feed the throughput-over-time chart; Prometheus the pending requests.
        keepRecords: true,
        metricsUrl: target.metricsUrl,
        onProgress: (p) => {
          if (p.completed === 0 && !p.report)
            report(`concurrency ${loadLevel(p.load)}: ${requests} requests`);
          if (!p.report) return;
          const r = p.report.results;
          ctx.log(
            `${model} @ ${target.url} c=${loadLevel(p.load)}: p50 ${r.latency.p50Ms} ms, p99 ${r.latency.p99Ms} ms, ${r.requestsPerSecond} req/s, ${r.errors} errors`,
          );
        },
      });
    } finally {
      tokenizer?.close();
    }
  });
}

/**
 * The measured model's own native tokenizer, when a repository the extension knows holds the model
 * (the local server's, else the last one generated): tokens are then counted as `triton-studio
 * perf --tokenizer` counts them. Otherwise (a remote server's model, a vLLM model) output tokens
 * are the streamed chunks, and the report says so (no tokenizer in it).
 */
async function nativeTokenizerOf(
  ctx: Ctx,
  target: ServerTarget,
  model: string,
  report: (message: string) => void,
): Promise<NativeTokenizer | undefined> {
  const served = target.local ? ctx.localServer.running?.modelRepository : undefined;
  for (const repository of new Set([served, ctx.lastRepository])) {
    const file = repository && repositoryTokenizer(repository, model);
    if (!file) continue;
    ctx.log(`counting tokens with ${model}'s native tokenizer ${file}`);
    try {
      return await openNativeTokenizer(file, report, {
        buildDir: ctx.storage.backendsBuildDir,
        dependencySourcesDir: ctx.storage.dependencySourcesDir,
      });
    } catch (error) {
      ctx.log(`the native tokenizer cannot run (${errorMessage(error)}): output tokens are streamed chunks`);
      return undefined;
    }
  }
  ctx.log(`no native tokenizer known for ${model}: output tokens are streamed chunks`);
  return undefined;
}

function loadLevel(load: LoadSpec): string {
  return load.mode === 'concurrency' ? String(load.concurrency) : `${load.rate}/s`;
}

function saveRun(ctx: Ctx, model: string, sweep: SweepReport): string {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? ctx.extension.globalStorageUri.fsPath;
  const dir = join(folder, '.triton-studio', 'reports');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${model}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(sweep, null, 2)}\n`);
  ctx.log(`latency run saved to ${file}`);
  return file;
}

/** A saved run, a `perf --export` file (one run or a sweep), or a run saved by an older version. */
function readRun(file: string): LabelledReport {
  const label = basename(file, '.json');
  return { label, report: asComparable(JSON.parse(readFileSync(file, 'utf8')), label) };
}

/** Opens one saved run (or a `triton-studio perf --export` file) in the report panel. */
export async function openLatencyReport(
  ctx: Ctx,
  arg?: unknown,
): Promise<Outcome<{ charts: string[] }> | undefined> {
  const files = await pickRuns(arg, 1);
  if (!files) return undefined;
  return showRuns(ctx, files);
}

/** Compare Latency Runs: two runs side by side. */
export async function compareLatencyRuns(
  ctx: Ctx,
  a?: unknown,
  b?: unknown,
): Promise<Outcome<{ charts: string[] }> | undefined> {
  const files = typeof a === 'string' && typeof b === 'string' ? [a, b] : await pickRuns(undefined, 2);
  if (!files) return undefined;
  return showRuns(ctx, files);
}

async function showRuns(ctx: Ctx, files: string[]): Promise<Outcome<{ charts: string[] }>> {
  try {
    const panel = new LatencyReportPanel(ctx, files.map(readRun));
    return { ok: true, charts: await panel.rendered };
  } catch (error) {
    void showError(ctx, `Cannot open the latency report: ${errorMessage(error)}`);
    return { ok: false, error: errorMessage(error) };
  }
}

async function pickRuns(arg: unknown, count: number): Promise<string[] | undefined> {
  if (typeof arg === 'string') return [arg];
  if (arg instanceof vscode.Uri) return [arg.fsPath];
  const found = await vscode.workspace.findFiles('**/.triton-studio/reports/*.json', undefined, 200);
  const items = found
    .map((uri) => ({
      label: basename(uri.fsPath, '.json'),
      description: vscode.workspace.asRelativePath(uri),
      uri,
    }))
    .sort((x, y) => y.label.localeCompare(x.label));
  const browse = {
    label: '$(folder-opened) Browse…',
    description: 'a report file elsewhere (triton-studio perf --export)',
    uri: undefined,
  };
  const picked = await vscode.window.showQuickPick([...items, browse], {
    title:
      count === 2
        ? 'Triton Studio: pick the two latency runs to compare'
        : 'Triton Studio: pick a latency run',
    canPickMany: count > 1,
  });
  if (!picked) return undefined;
  const list = Array.isArray(picked) ? picked : [picked];
  if (list.some((p) => !p.uri)) {
    const chosen = await vscode.window.showOpenDialog({
      canSelectMany: count > 1,
      filters: { 'Latency report': ['json'] },
    });
    return chosen?.map((u) => u.fsPath).slice(0, count);
  }
  if (list.length !== count) {
    void notify('warning', `Pick exactly ${count} runs (${list.length} picked).`);
    return undefined;
  }
  return list.map((p) => p.uri!.fsPath);
}

/** Export Latency Report: the open report as JSON, CSV, HTML or PNG. */
export async function exportLatencyReport(
  ctx: Ctx,
  format?: unknown,
  file?: unknown,
): Promise<Outcome<{ file: string }> | undefined> {
  const panel = LatencyReportPanel.active;
  if (!panel) {
    const message = 'No latency report is open: run a latency test or open a saved run first.';
    void showError(ctx, message);
    return { ok: false, error: message };
  }
  const chosen: ExportFormat | undefined =
    typeof format === 'string' && ['json', 'csv', 'html', 'png'].includes(format)
      ? (format as ExportFormat)
      : ((await vscode.window.showQuickPick(['json', 'csv', 'html', 'png'], {
          title: 'Export the latency report as',
        })) as ExportFormat | undefined);
  if (!chosen) return undefined;
  await panel.rendered;
  const written = await panel.exportTo(chosen, typeof file === 'string' ? file : undefined);
  return written ? { ok: true, file: written } : undefined;
}
