/**
 * The CPU architectures Triton Studio builds native steps for, in one table: what `build --arch`
 * accepts, how each is cross-built (CMake toolchain file), what a built library's ELF header says
 * (`e_machine`), and the names the rest of the world uses for it (Node's `process.arch`, Debian's
 * multiarch, Kubernetes' `kubernetes.io/arch`, NVIDIA's image platforms). Deploy's library check,
 * the Kubernetes manifests and docs/GPU.md derive from it (test/unit/architectures.test.ts).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export type TargetArch = 'x86_64' | 'aarch64';

export interface Architecture {
  /** The name `--arch` takes, as `uname -m` prints it on the server. */
  arch: TargetArch;
  /** Node's `process.arch` on such a machine. */
  nodeArch: string;
  /** ELF `e_machine` of a library built for it, and readelf's name for that machine. */
  elfMachine: number;
  elfName: string;
  /** GNU target triple: the cross compiler's prefix and Debian's multiarch library folder. */
  gnuTriple: string;
  /** Debian's architecture name (`dpkg --add-architecture`). */
  debianArch: string;
  /** Kubernetes' `kubernetes.io/arch` node label and the container platform (`linux/<it>`). */
  kubernetesArch: string;
  /** Where NVIDIA ships Triton for it (informational, for docs and errors). */
  servers: string;
  /** glibc's dynamic loader (run explicitly under emulation: qemu-user cannot map patchelf'd binaries). */
  dynamicLoader: string;
  /** The qemu-user emulator that runs its binaries on another machine (Debian `qemu-user`). */
  emulator: string;
}

export const ARCHITECTURES: readonly Architecture[] = [
  {
    arch: 'x86_64',
    nodeArch: 'x64',
    elfMachine: 62,
    elfName: 'x86-64',
    gnuTriple: 'x86_64-linux-gnu',
    debianArch: 'amd64',
    kubernetesArch: 'amd64',
    servers: 'x86_64 GPU servers (DGX H100/H200/B200, cloud GPU instances)',
    dynamicLoader: '/lib64/ld-linux-x86-64.so.2',
    emulator: 'qemu-x86_64',
  },
  {
    arch: 'aarch64',
    nodeArch: 'arm64',
    elfMachine: 183,
    elfName: 'AArch64',
    gnuTriple: 'aarch64-linux-gnu',
    debianArch: 'arm64',
    kubernetesArch: 'arm64',
    servers: 'NVIDIA Grace (GH200, GB200 NVL72, DGX Spark): NGC "sbsa" images',
    dynamicLoader: '/lib/ld-linux-aarch64.so.1',
    emulator: 'qemu-aarch64',
  },
];

export class ArchitectureError extends Error {}

/** The row for a name `--arch` or a setting gave (also accepts Node's, Debian's and Kubernetes' names). */
export function architecture(name: string): Architecture {
  const found = ARCHITECTURES.find((a) => [a.arch, a.nodeArch, a.debianArch, a.kubernetesArch].includes(name));
  if (!found) {
    throw new ArchitectureError(
      `unknown target architecture "${name}": use ${ARCHITECTURES.map((a) => a.arch).join(' or ')}`,
    );
  }
  return found;
}

/** Where the target architecture of a build came from, strongest first. */
export const TARGET_ARCH_SOURCES = ['--arch', 'pipeline target.arch', 'setting tritonStudio.build.arch', 'this machine'] as const;
export type TargetArchSource = (typeof TARGET_ARCH_SOURCES)[number];

/**
 * The CPU to build for, and why: the command's `--arch` over the pipeline's `target.arch` (kept in
 * the generated repository's manifest) over the VS Code setting over this machine. A name that
 * is no architecture is an ArchitectureError naming where it came from.
 */
export function resolveTargetArch(given: {
  flag?: string | Architecture;
  pipeline?: string;
  setting?: string;
}): { arch: Architecture; from: TargetArchSource } {
  const choices: [string | Architecture | undefined, TargetArchSource][] = [
    [given.flag, '--arch'],
    [given.pipeline, 'pipeline target.arch'],
    [given.setting === 'auto' ? undefined : given.setting, 'setting tritonStudio.build.arch'],
  ];
  for (const [value, from] of choices) {
    if (value === undefined || value === '') continue;
    if (typeof value !== 'string') return { arch: value, from };
    try {
      return { arch: architecture(value), from };
    } catch (error) {
      throw new ArchitectureError(`${from}: ${(error as Error).message}`);
    }
  }
  return { arch: hostArchitecture(), from: 'this machine' };
}

/** The architecture this machine runs (the default target). */
export function hostArchitecture(): Architecture {
  return architecture(process.arch);
}

/** The row for a library's ELF `e_machine`, or undefined for a machine Triton does not run on. */
export function architectureOfMachine(machine: number): Architecture | undefined {
  return ARCHITECTURES.find((a) => a.elfMachine === machine);
}

/** The architecture a built library is for, from its ELF header (undefined: not ELF, or another machine). */
export function libraryArchitecture(bytes: Uint8Array): Architecture | undefined {
  if (bytes.length < 20 || bytes[0] !== 0x7f || bytes[1] !== 0x45 || bytes[2] !== 0x4c || bytes[3] !== 0x46) return undefined;
  return architectureOfMachine(bytes[18]! | (bytes[19]! << 8));
}

/** `command` found on PATH, or undefined. */
export function onPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, command))) return join(dir, command);
  }
  return undefined;
}

/**
 * The command prefix that runs a binary built for `target` on this machine: nothing for the
 * host's own architecture, else qemu-user running glibc's loader for that architecture (which
 * then loads the binary), so a cross-built server or tool can be checked here.
 */
export function emulationPrefix(target: Architecture): string[] {
  if (target.arch === hostArchitecture().arch) return [];
  const emulator = onPath(target.emulator);
  const missing = [
    ...(emulator ? [] : [`${target.emulator} (Debian: qemu-user)`]),
    ...(existsSync(target.dynamicLoader) ? [] : [`${target.dynamicLoader} (Debian: libc6:${target.debianArch})`]),
  ];
  if (missing.length > 0) {
    throw new ArchitectureError(
      `running ${target.arch} binaries on this ${hostArchitecture().arch} machine needs ${missing.join(' and ')}: ` +
        `run \`npm run setup -- --cross ${target.arch}\``,
    );
  }
  return [emulator!, target.dynamicLoader];
}

/**
 * CMake arguments that build for `target` on this machine: none for the host's own architecture,
 * else the project's toolchain file, after checking the cross compiler is there (a missing one
 * would otherwise surface as CMake's long compiler-detection failure).
 */
export function crossCompileArgs(target: Architecture, backendsDir: string): string[] {
  if (target.arch === hostArchitecture().arch) return [];
  const toolchain = join(backendsDir, 'cmake', `toolchain-${target.gnuTriple}.cmake`);
  if (!existsSync(toolchain)) {
    throw new ArchitectureError(
      `cannot cross-build for ${target.arch} on ${hostArchitecture().arch}: no toolchain file ${toolchain}. ` +
        `Build on a ${target.arch} machine instead`,
    );
  }
  const compiler = `${target.gnuTriple}-g++`;
  if (!onPath(compiler)) {
    throw new ArchitectureError(
      `cross-building for ${target.arch} needs ${compiler}, which is not on PATH. Install the cross toolchain ` +
        `(Debian/Ubuntu: \`npm run setup -- --cross ${target.arch}\`, or apt-get install g++-${target.gnuTriple} ` +
        `after dpkg --add-architecture ${target.debianArch})`,
    );
  }
  return [`-DCMAKE_TOOLCHAIN_FILE=${toolchain}`];
}
