/**
 * The run workflow — generate → build → serve → deploy → prompt → perf — as one function that
 * the CLI (`triton-studio run`) and the VS Code extension both call. Callers see each stage
 * start, finish or fail through callbacks, stream build output and the answer, and cancel with
 * an AbortSignal. The function never throws for a failing stage: the result names the stage
 * that failed and why, and says where the work folder and the server log are.
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildRepository, type RepositoryBuild } from '../generator/build/index.js';
import { generateRepository, hasErrors, type Diagnostic, type GenerateResult } from '../generator/index.js';
import {
  deployOutcomeText,
  deployRepository,
  type DeployResult,
  type ModelDeployStatus,
} from './deploy/index.js';
import { TritonClient } from './grpc/client.js';
import { runLatencyTest, type PerfReport } from './perf/latencyTest.js';
import type { LoadSpec } from './perf/load/loadSpec.js';
import { sendPrompt, type PromptResult } from './prompt.js';
import { startLocalServer, type LocalServer } from './server/localServer.js';
import { startSharedServer, type SharedServerStart } from './server/sharedServer.js';

export const WORKFLOW_STAGES = ['generate', 'build', 'serve', 'deploy', 'prompt', 'perf'] as const;
export type WorkflowStage = (typeof WORKFLOW_STAGES)[number];

/** Where the workflow deploys. */
export type WorkflowServer =
  /** Start a tritonserver on the generated repository for this run, stopped at the end. */
  | { kind: 'private'; tritonserver?: string }
  /** The shared local server (`triton-studio server start`), started when it is not running; models are uploaded. */
  | { kind: 'shared'; tritonserver?: string }
  /** A server that is already running (a remote one): models are uploaded. */
  | { kind: 'existing'; client: TritonClient };

export interface WorkflowOptions {
  pipeline: string;
  /** The repository is generated into `<workDir>/repo`; a private server logs to `<workDir>/tritonserver.log`. */
  workDir: string;
  /** The last stage to run (default 'perf'): 'build' stops before any server is involved. */
  until?: WorkflowStage;
  /** Default: a private local server. */
  server?: WorkflowServer;
  prompt?: { text: string; maxTokens?: number; stream?: boolean };
  /** The latency test's load; default 20 requests at concurrency 2 after 2 warm-up requests. */
  load?: LoadSpec;
  signal?: AbortSignal;
  /** Each stage as it starts, finishes, fails or is skipped. */
  onStage?: (event: WorkflowStageEvent) => void;
  /** One line per thing a stage achieved (files written, libraries built, the server's address). */
  onProgress?: (stage: WorkflowStage, line: string) => void;
  /** The build tools' own output, line by line (for an output channel; the CLI leaves it out). */
  onBuildOutput?: (line: string) => void;
  /** Each deployed model, as deploy reports it. */
  onModel?: (status: ModelDeployStatus) => void;
  /** The answer as it streams in (with `prompt.stream`), or whole once it is complete. */
  onText?: (chunk: string) => void;
}

export type WorkflowStageEvent =
  | { stage: WorkflowStage; state: 'started' }
  /** `summary`: what the stage achieved, in one line for people ("4 models ready", "ttft 9.1 ms, …"). */
  | { stage: WorkflowStage; state: 'finished'; ms: number; summary: string }
  | { stage: WorkflowStage; state: 'failed'; ms: number; error: string }
  | { stage: WorkflowStage; state: 'skipped'; reason: string };

export interface WorkflowResult {
  ok: boolean;
  /** Set when the workflow was cancelled through its signal. */
  cancelled: boolean;
  /** The stage that failed (or was running when cancelled). */
  failedStage?: WorkflowStage;
  error?: string;
  workDir: string;
  repository: string;
  ensemble?: string;
  /** Milliseconds per stage that ran, in order. */
  timingsMs: Partial<Record<WorkflowStage, number>>;
  diagnostics: Diagnostic[];
  build?: RepositoryBuild;
  /** The server deployed to (a private one is already stopped unless kept). */
  server?: { grpcUrl: string; httpUrl?: string; metricsUrl?: string; pid?: number; logFile?: string };
  deploy?: DeployResult;
  prompt?: PromptResult;
  perf?: PerfReport;
}

const DEFAULT_PROMPT = 'Triton Studio serves LLMs without Python.';
const DEFAULT_LOAD: LoadSpec = { mode: 'concurrency', concurrency: 2, requests: 20, warmupRequests: 2 };

/** A stage's failure, carrying the message the result reports. */
class StageFailure extends Error {}

/** What the stages of one run share. */
interface Run {
  options: WorkflowOptions;
  result: WorkflowResult;
  repository: string;
  serverChoice: WorkflowServer;
  prompt: { text: string; maxTokens?: number; stream?: boolean };
  server?: LocalServer;
  client?: TritonClient;
  progress: (stage: WorkflowStage, line: string) => void;
}

/**
 * One stage: `run` does the work (it may record what it learnt in the result as it goes, e.g. a
 * failed deploy's report), `summarize` says what it achieved in one line, and `keep` stores its
 * value once it has finished. `skip` (the serve stage with a server that is already running)
 * says why the stage has nothing to do, without starting it.
 */
interface StageSpec<T> {
  name: WorkflowStage;
  skip?: (run: Run) => string | undefined;
  run: (run: Run) => Promise<T>;
  summarize: (value: T) => string;
  keep?: (run: Run, value: T) => void;
}

/** A stage as the table holds it (each value type stays inside its own stage). */
function stage<T>(spec: StageSpec<T>): StageSpec<unknown> {
  return spec as unknown as StageSpec<unknown>;
}

/** Every stage, run in the order of WORKFLOW_STAGES. */
const STAGES: Record<WorkflowStage, StageSpec<unknown>> = {
  generate: stage<GenerateResult>({
    name: 'generate',
    run: async ({ options, result, repository, progress }) => {
      const r = await generateRepository({ pipelinePath: options.pipeline, outDir: repository });
      result.diagnostics = r.diagnostics;
      if (hasErrors(r.diagnostics) || !r.ensembleName) {
        throw new Error(`${options.pipeline} has errors: nothing was generated`);
      }
      progress('generate', `${r.files.length} files in ${repository}`);
      return r;
    },
    summarize: (r) => `${r.files.length} files, ensemble ${r.ensembleName}`,
    keep: ({ result }, r) => (result.ensemble = r.ensembleName),
  }),
  build: stage<RepositoryBuild>({
    name: 'build',
    run: async ({ options, repository, progress }) => {
      const built = await buildRepository(repository, {
        onOutput: options.onBuildOutput,
        signal: options.signal,
      });
      for (const m of built.built) progress('build', `${m.model}: ${m.library}`);
      return built;
    },
    summarize: (b) => `${b.built.length} backend libraries`,
    keep: ({ result }, b) => (result.build = b),
  }),
  serve: stage(serveStage()),
  deploy: stage<DeployResult>({
    name: 'deploy',
    run: async ({ options, result, repository, serverChoice, client }) => {
      const deployed = await deployRepository(client!, {
        repository,
        mode: serverChoice.kind === 'private' ? 'local' : 'remote',
        signal: options.signal,
        onModel: options.onModel,
      });
      result.deploy = deployed;
      if (!deployed.ok) {
        const failed = deployed.models.filter((m) => m.state !== 'ready').map((m) => m.model);
        throw new Error(
          `${failed.join(', ')} not ready: ${deployOutcomeText(deployed)}` +
            (result.server?.logFile ? `; server log: ${result.server.logFile}` : ''),
        );
      }
      return deployed;
    },
    summarize: (d) => `${d.models.length} models ready on ${d.server}`,
    keep: ({ result }, d) => (result.deploy = d),
  }),
  prompt: stage<PromptResult>({
    name: 'prompt',
    run: async ({ options, result, prompt, client }) => {
      const answer = await sendPrompt(client!, {
        model: result.ensemble!,
        text: prompt.text,
        maxTokens: prompt.maxTokens ?? 16,
        stream: prompt.stream,
        signal: options.signal,
        onText: prompt.stream ? options.onText : undefined,
      });
      if (!prompt.stream) options.onText?.(answer.text);
      return answer;
    },
    summarize: (a) => `ttft ${a.ttftMs.toFixed(1)} ms, latency ${a.latencyMs.toFixed(1)} ms`,
    keep: ({ result }, a) => (result.prompt = a),
  }),
  perf: stage<PerfReport>({
    name: 'perf',
    run: async ({ options, result, prompt, client }) => {
      const report = await runLatencyTest(client!, {
        model: result.ensemble!,
        prompt: prompt.text,
        maxTokens: prompt.maxTokens ?? 16,
        stream: prompt.stream,
        load: options.load ?? DEFAULT_LOAD,
        signal: options.signal,
      });
      if (report.results.errors > 0) {
        result.perf = report;
        throw new Error(
          `${report.results.errors} of ${report.results.requests} requests failed: ${report.results.errorMessages.join('; ')}`,
        );
      }
      return report;
    },
    summarize: (r) =>
      `${r.results.requests} requests, ${r.results.requestsPerSecond.toFixed(1)} req/s, p50 ${r.results.latency.p50Ms.toFixed(1)} ms`,
    keep: ({ result }, r) => (result.perf = r),
  }),
};

/** Serve: a private tritonserver on the repository, the shared one, or the one given (skipped). */
function serveStage(): StageSpec<LocalServer | SharedServerStart> {
  return {
    name: 'serve',
    skip: (run) => {
      if (run.serverChoice.kind !== 'existing') return undefined;
      run.client = run.serverChoice.client;
      run.result.server = { grpcUrl: run.client.url };
      return `using the server at ${run.client.url}`;
    },
    run: ({ options, repository, serverChoice }) =>
      serverChoice.kind === 'private'
        ? startLocalServer({
            modelRepository: repository,
            tritonserver: serverChoice.tritonserver,
            logFile: join(options.workDir, 'tritonserver.log'),
          })
        : startSharedServer({
            tritonserver: serverChoice.kind === 'shared' ? serverChoice.tritonserver : undefined,
          }),
    summarize: (s) =>
      'server' in s
        ? `${s.started ? 'started' : 'using'} the shared tritonserver ${s.server.pid} at ${s.server.grpcUrl}`
        : `tritonserver ${s.pid} at ${s.grpcUrl}`,
    keep: (run, s) => {
      if ('server' in s) {
        if (s.recovered) run.progress('serve', s.recovered);
        run.result.server = { ...s.server };
        run.client = new TritonClient(s.server.grpcUrl);
        return;
      }
      run.server = s;
      run.result.server = {
        grpcUrl: s.grpcUrl,
        httpUrl: s.httpUrl,
        metricsUrl: s.metricsUrl,
        pid: s.pid,
        logFile: s.logFile,
      };
      run.progress('serve', `tritonserver ${s.pid} at ${s.grpcUrl} (log ${s.logFile})`);
      run.client = new TritonClient(s.grpcUrl);
    },
  };
}

export async function runWorkflow(options: WorkflowOptions): Promise<WorkflowResult> {
  const until = WORKFLOW_STAGES.indexOf(options.until ?? 'perf');
  const repository = join(options.workDir, 'repo');
  const run: Run = {
    options,
    repository,
    serverChoice: options.server ?? { kind: 'private' },
    prompt: { text: options.prompt?.text ?? DEFAULT_PROMPT, ...options.prompt },
    result: {
      ok: false,
      cancelled: false,
      workDir: options.workDir,
      repository,
      timingsMs: {},
      diagnostics: [],
    },
    progress: (stage, line) => options.onProgress?.(stage, line),
  };
  const { result } = run;
  let current: WorkflowStage | undefined;
  try {
    for (const spec of WORKFLOW_STAGES.slice(0, until + 1).map((name) => STAGES[name])) {
      const skipped = spec.skip?.(run);
      if (skipped !== undefined) {
        options.onStage?.({ stage: spec.name, state: 'skipped', reason: skipped });
        continue;
      }
      current = spec.name;
      await runStage(run, spec);
    }
    result.ok = true;
  } catch (error) {
    result.cancelled = Boolean(options.signal?.aborted);
    result.failedStage = current;
    result.error = errorText(error);
  } finally {
    // A client of our own is closed; the shared server keeps running for the next caller.
    if (run.serverChoice.kind !== 'existing') run.client?.close();
    await run.server?.stop();
  }
  return result;
}

/** One stage with its events and timing; a failure (or a cancel) ends the run as a StageFailure. */
async function runStage<T>(run: Run, spec: StageSpec<T>): Promise<void> {
  const { options, result } = run;
  if (options.signal?.aborted) throw new StageFailure('cancelled');
  options.onStage?.({ stage: spec.name, state: 'started' });
  const start = performance.now();
  try {
    const value = await spec.run(run);
    // Kept before a cancel is looked at: a server started as the user cancelled is still stopped.
    spec.keep?.(run, value);
    const ms = Math.round(performance.now() - start);
    result.timingsMs[spec.name] = ms;
    if (options.signal?.aborted) throw new StageFailure('cancelled');
    options.onStage?.({ stage: spec.name, state: 'finished', ms, summary: spec.summarize(value) });
  } catch (error) {
    const ms = Math.round(performance.now() - start);
    result.timingsMs[spec.name] = ms;
    const message = options.signal?.aborted ? 'cancelled' : errorText(error);
    options.onStage?.({ stage: spec.name, state: 'failed', ms, error: message });
    throw new StageFailure(message);
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
