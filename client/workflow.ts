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
import { generateRepository, hasErrors, type Diagnostic } from '../generator/index.js';
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
import { startSharedServer } from './server/sharedServer.js';

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

export async function runWorkflow(options: WorkflowOptions): Promise<WorkflowResult> {
  const until = WORKFLOW_STAGES.indexOf(options.until ?? 'perf');
  const repository = join(options.workDir, 'repo');
  const result: WorkflowResult = {
    ok: false,
    cancelled: false,
    workDir: options.workDir,
    repository,
    timingsMs: {},
    diagnostics: [],
  };
  const serverChoice = options.server ?? { kind: 'private' };
  const progress = (stage: WorkflowStage) => (line: string) => options.onProgress?.(stage, line);
  let current: WorkflowStage | undefined;
  let server: LocalServer | undefined;
  let client: TritonClient | undefined;

  const stage = async <T>(
    name: WorkflowStage,
    fn: () => Promise<T>,
    summarize: (value: T) => string,
  ): Promise<T | undefined> => {
    if (WORKFLOW_STAGES.indexOf(name) > until) return undefined;
    current = name;
    if (options.signal?.aborted) throw new StageFailure('cancelled');
    options.onStage?.({ stage: name, state: 'started' });
    const start = performance.now();
    try {
      const value = await fn();
      const ms = Math.round(performance.now() - start);
      result.timingsMs[name] = ms;
      if (options.signal?.aborted) throw new StageFailure('cancelled');
      options.onStage?.({ stage: name, state: 'finished', ms, summary: summarize(value) });
      return value;
    } catch (error) {
      const ms = Math.round(performance.now() - start);
      result.timingsMs[name] = ms;
      const message = options.signal?.aborted ? 'cancelled' : errorText(error);
      options.onStage?.({ stage: name, state: 'failed', ms, error: message });
      throw new StageFailure(message);
    }
  };

  try {
    const generated = await stage(
      'generate',
      async () => {
        const r = await generateRepository({ pipelinePath: options.pipeline, outDir: repository });
        result.diagnostics = r.diagnostics;
        if (hasErrors(r.diagnostics) || !r.ensembleName) {
          throw new Error(`${options.pipeline} has errors: nothing was generated`);
        }
        progress('generate')(`${r.files.length} files in ${repository}`);
        return r;
      },
      (r) => `${r.files.length} files, ensemble ${r.ensembleName}`,
    );
    result.ensemble = generated?.ensembleName;

    result.build = await stage(
      'build',
      async () => {
        const built = await buildRepository(repository, {
          onOutput: options.onBuildOutput,
          signal: options.signal,
        });
        for (const m of built.built) progress('build')(`${m.model}: ${m.library}`);
        return built;
      },
      (b) => `${b.built.length} backend libraries`,
    );

    if (serverChoice.kind === 'private') {
      server = await stage(
        'serve',
        () =>
          startLocalServer({
            modelRepository: repository,
            tritonserver: serverChoice.tritonserver,
            logFile: join(options.workDir, 'tritonserver.log'),
          }),
        (s) => `tritonserver ${s.pid} at ${s.grpcUrl}`,
      );
      if (server) {
        result.server = {
          grpcUrl: server.grpcUrl,
          httpUrl: server.httpUrl,
          metricsUrl: server.metricsUrl,
          pid: server.pid,
          logFile: server.logFile,
        };
        progress('serve')(`tritonserver ${server.pid} at ${server.grpcUrl} (log ${server.logFile})`);
        client = new TritonClient(server.grpcUrl);
      }
    } else if (serverChoice.kind === 'shared') {
      const shared = await stage(
        'serve',
        () => startSharedServer({ tritonserver: serverChoice.tritonserver }),
        (s) =>
          `${s.started ? 'started' : 'using'} the shared tritonserver ${s.server.pid} at ${s.server.grpcUrl}`,
      );
      if (shared) {
        if (shared.recovered) progress('serve')(shared.recovered);
        result.server = { ...shared.server };
        client = new TritonClient(shared.server.grpcUrl);
      }
    } else if (until >= WORKFLOW_STAGES.indexOf('serve')) {
      client = serverChoice.client;
      result.server = { grpcUrl: client.url };
      options.onStage?.({ stage: 'serve', state: 'skipped', reason: `using the server at ${client.url}` });
    }

    const active = client;
    result.deploy = await stage(
      'deploy',
      async () => {
        const deployed = await deployRepository(active!, {
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
      (d) => `${d.models.length} models ready on ${d.server}`,
    );

    const ensemble = result.ensemble!;
    const prompt = { text: options.prompt?.text ?? DEFAULT_PROMPT, ...options.prompt };
    result.prompt = await stage(
      'prompt',
      async () => {
        const answer = await sendPrompt(active!, {
          model: ensemble,
          text: prompt.text,
          maxTokens: prompt.maxTokens ?? 16,
          stream: prompt.stream,
          signal: options.signal,
          onText: prompt.stream ? options.onText : undefined,
        });
        if (!prompt.stream) options.onText?.(answer.text);
        return answer;
      },
      (a) => `ttft ${a.ttftMs.toFixed(1)} ms, latency ${a.latencyMs.toFixed(1)} ms`,
    );

    result.perf = await stage(
      'perf',
      async () => {
        const report = await runLatencyTest(active!, {
          model: ensemble,
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
      (r) =>
        `${r.results.requests} requests, ${r.results.requestsPerSecond.toFixed(1)} req/s, p50 ${r.results.latency.p50Ms.toFixed(1)} ms`,
    );
    result.ok = true;
  } catch (error) {
    result.cancelled = Boolean(options.signal?.aborted);
    result.failedStage = current;
    result.error = errorText(error);
  } finally {
    // A client of our own is closed; the shared server keeps running for the next caller.
    if (serverChoice.kind !== 'existing') client?.close();
    await server?.stop();
  }
  return result;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
