/**
 * Check Prerequisites (the walkthrough's first step): what Build and the local server need on
 * this machine, each found with its version or missing with how to get it.
 */
import { spawnSync } from 'node:child_process';
import type { Ctx } from '../context.js';
import { commandAction, notify, type Outcome } from '../commands/ui.js';
import { chooseTritonserver } from './tritonserverBinary.js';

export const CHECK_PREREQUISITES_COMMAND = 'tritonStudio.checkPrerequisites';

export interface Prerequisite {
  name: string;
  /** What needs it. */
  for: string;
  found?: string;
  /** How to get it, when missing. */
  how: string;
}

const TABLE: { name: string; for: string; command: string[]; how: string; optional?: () => boolean }[] = [
  {
    name: 'C++ compiler (g++ ≥ 11)',
    for: 'Build Backends',
    command: ['g++', '--version'],
    how: 'Debian/Ubuntu: sudo apt-get install g++ make · Fedora: sudo dnf install gcc-c++ make',
  },
  {
    name: 'CMake ≥ 3.20',
    for: 'Build Backends',
    command: ['cmake', '--version'],
    how: 'Debian/Ubuntu: sudo apt-get install cmake · Fedora: sudo dnf install cmake · or pip install cmake',
  },
  {
    name: 'Native libraries (nlohmann-json, …)',
    for: 'Build Backends',
    command: ['sh', '-c', 'test -f /usr/include/nlohmann/json.hpp && echo nlohmann-json present'],
    how: 'Debian/Ubuntu: sudo apt-get install nlohmann-json3-dev (the list: backends/DEPENDENCIES.txt in the extension)',
  },
  {
    name: 'Python 3.11 with venv',
    for: 'Install Local Server (the Triton server comes from PyPI)',
    command: ['python3.11', '-c', 'import venv, sys; print("Python", sys.version.split()[0])'],
    how: 'Debian/Ubuntu: sudo apt-get install python3.11 python3.11-venv · or set tritonStudio.localServer.tritonserver to a tritonserver you have',
  },
];

export function checkPrerequisites(
  ctx: Ctx,
): Outcome<{ prerequisites: Prerequisite[]; tritonserver?: string }> {
  const prerequisites = TABLE.map((p): Prerequisite => {
    const [command, ...args] = p.command;
    const r = spawnSync(command!, args, { encoding: 'utf8', timeout: 10_000 });
    const found = r.status === 0 ? (r.stdout || r.stderr).split('\n')[0]!.trim() : undefined;
    return { name: p.name, for: p.for, found, how: p.how };
  });
  const tritonserver = chooseTritonserver(ctx.storage).binary;
  ctx.log('prerequisites:');
  for (const p of prerequisites)
    ctx.log(`  ${p.found ? '✓' : '✗'} ${p.name} (for ${p.for}): ${p.found ?? `missing — ${p.how}`}`);
  ctx.log(
    `  ${tritonserver ? '✓' : '✗'} tritonserver: ${tritonserver ?? 'not installed — run Install Local Server'}`,
  );
  const missing = prerequisites.filter((p) => !p.found);
  const summary = missing.length
    ? `Missing: ${missing.map((p) => `${p.name} — ${p.how}`).join('; ')}`
    : 'Everything Build and the local server need is present.';
  const actions = [
    { title: 'Show Details', run: () => ctx.output.show(true) },
    ...(!tritonserver && !missing.some((p) => p.name.startsWith('Python'))
      ? [commandAction('Install Local Server', 'tritonStudio.installLocalServer')]
      : []),
  ];
  void notify(missing.length ? 'warning' : 'info', summary, ...actions);
  return { ok: true, prerequisites, tritonserver };
}
