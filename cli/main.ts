/** The `triton-studio` program: every command registered, argv in, exit code out. */
import { Command, CommanderError } from 'commander';
import { buildCommand } from './commands/build.js';
import { deployCommand } from './commands/deploy.js';
import { fetchModelCommand } from './commands/fetchModel.js';
import { generateCommand } from './commands/generate.js';
import { importCommand } from './commands/import.js';
import { importGgufCommand } from './commands/importGguf.js';
import { k8sCommand } from './commands/k8s.js';
import { newCommand } from './commands/new.js';
import { perfCommand } from './commands/perf.js';
import { promptCommand } from './commands/prompt.js';
import { renderChatCommand } from './commands/renderChat.js';
import { runCommand } from './commands/run.js';
import { serveCommand } from './commands/serve.js';
import { openaiServeCommand } from './commands/openaiServe.js';
import { serverCommand } from './commands/server.js';
import { statusCommand } from './commands/status.js';
import { studyCommand } from './commands/study.js';
import { tokenizeCommand } from './commands/tokenize.js';
import { undeployCommand } from './commands/undeploy.js';
import { validateCommand } from './commands/validate.js';
import { installInterruptHandling } from './interrupt.js';
import { CliError } from './io.js';

/** The `triton-studio` command line: the same operations as the VS Code commands, for terminals and CI. */
export function createProgram(): Command {
  const program = new Command('triton-studio')
    .description('Build, deploy and measure Python-free Triton LLM ensembles')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  for (const command of [
    tokenizeCommand(),
    renderChatCommand(),
    validateCommand(),
    newCommand(),
    generateCommand(),
    importCommand(),
    importGgufCommand(),
    fetchModelCommand(),
    buildCommand(),
    serveCommand(),
    serverCommand(),
    deployCommand(),
    statusCommand(),
    undeployCommand(),
    promptCommand(),
    openaiServeCommand(),
    perfCommand(),
    studyCommand(),
    runCommand(),
    k8sCommand(),
  ]) {
    program.addCommand(reportingUsageErrors(command));
  }
  return program;
}

/**
 * A wrong command line exits 2 with a usage hint at every level: commander sets neither on
 * subcommands, so `server start --bogus` would otherwise exit the process directly.
 */
function reportingUsageErrors(command: Command): Command {
  command.exitOverride().showHelpAfterError('(run with --help for usage)');
  for (const subcommand of command.commands) reportingUsageErrors(subcommand);
  return command;
}

/** Runs the CLI; resolves with the process exit code (2 for a wrong command line). */
export async function runCli(argv: string[]): Promise<number> {
  const removeInterruptHandling = installInterruptHandling();
  try {
    await createProgram().parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are successes; anything else commander already explained on stderr.
      return error.exitCode === 0 ? 0 : 2;
    }
    process.stderr.write(`triton-studio: error: ${error instanceof Error ? error.message : String(error)}\n`);
    // An option parser's CliError (a wrong command line) keeps its exit code, 2.
    return error instanceof CliError ? error.exitCode : 1;
  } finally {
    removeInterruptHandling();
  }
}
