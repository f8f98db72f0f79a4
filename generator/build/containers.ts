/**
 * The NVIDIA Triton container generations a built library must load in, and what each offers:
 * the newest glibc symbol version (`GLIBC_x.y`) and libstdc++ version (`GLIBCXX_3.4.n`,
 * `CXXABI_1.3.n`) of its Ubuntu base. `build` refuses a library that needs more than the oldest
 * supported generation offers, naming the symbol; docs/GPU.md prints this table (checked by
 * test/unit/containers.test.ts).
 */
import type { TargetArch } from './architectures.js';
import { compareVersions, type ElfDynamicInfo } from './elf.js';

export interface ContainerGeneration {
  /** NGC tags, e.g. `23.01–24.12`. */
  tags: string;
  /** Triton server versions in those tags. */
  triton: string;
  ubuntu: string;
  glibc: string;
  glibcxx: string;
  cxxabi: string;
  /**
   * The CPUs NGC publishes these tags for: `tritonserver:<yy.mm>-py3` is one multi-platform tag,
   * linux/amd64 and linux/arm64 (NVIDIA's "sbsa" build for Grace), on the same Ubuntu base, so
   * the same glibc and libstdc++ versions hold for both.
   */
  platforms: TargetArch[];
}

/** Oldest first. The first row is the floor `build` holds libraries to. */
export const CONTAINER_GENERATIONS: ContainerGeneration[] = [
  {
    tags: '24.01–24.12',
    triton: '2.42–2.53',
    ubuntu: '22.04',
    glibc: '2.35',
    glibcxx: '3.4.30',
    cxxabi: '1.3.13',
    platforms: ['x86_64', 'aarch64'],
  },
  {
    tags: '25.01 and later',
    triton: '2.54 and later',
    ubuntu: '24.04',
    glibc: '2.39',
    glibcxx: '3.4.33',
    cxxabi: '1.3.15',
    platforms: ['x86_64', 'aarch64'],
  },
];

const PREFIXES: { prefix: string; field: 'glibc' | 'glibcxx' | 'cxxabi'; library: string }[] = [
  { prefix: 'GLIBC_', field: 'glibc', library: 'glibc' },
  { prefix: 'GLIBCXX_', field: 'glibcxx', library: 'libstdc++' },
  { prefix: 'CXXABI_', field: 'cxxabi', library: 'libstdc++' },
];

export interface CompatibilityProblem {
  /** The version required, e.g. `GLIBC_2.36`. */
  version: string;
  /** Symbols that require it (some). */
  symbols: string[];
  /** What the floor generation offers, e.g. `GLIBC_2.35`. */
  offered: string;
}

/**
 * Symbol versions `info` requires beyond what `generation` offers (default: the oldest supported),
 * with the symbols that need them.
 */
export function compatibilityProblems(
  info: ElfDynamicInfo,
  generation: ContainerGeneration = CONTAINER_GENERATIONS[0]!,
): CompatibilityProblem[] {
  const problems: CompatibilityProblem[] = [];
  const required = new Set([...info.requiredVersions.values()].flat());
  for (const version of [...required].sort()) {
    const rule = PREFIXES.find((p) => version.startsWith(p.prefix) && /^\d/.test(version.slice(p.prefix.length)));
    if (!rule) continue;
    const offered = generation[rule.field];
    if (compareVersions(version.slice(rule.prefix.length), offered) <= 0) continue;
    problems.push({
      version,
      symbols: info.undefined.filter((s) => s.version === version).map((s) => s.name),
      offered: `${rule.prefix}${offered}`,
    });
  }
  return problems;
}

/** The oldest supported generation published for `arch`: what a library built for it is held to. */
export function containerFloor(arch: TargetArch): ContainerGeneration {
  const floor = CONTAINER_GENERATIONS.find((g) => g.platforms.includes(arch));
  if (!floor) throw new Error(`no NVIDIA Triton container generation is listed for ${arch} (containers.ts)`);
  return floor;
}

/** The newest version of each family a library requires (for the build report and docs). */
export function requiredFloor(info: ElfDynamicInfo): Record<'glibc' | 'glibcxx' | 'cxxabi', string | undefined> {
  const out: Record<'glibc' | 'glibcxx' | 'cxxabi', string | undefined> = {
    glibc: undefined,
    glibcxx: undefined,
    cxxabi: undefined,
  };
  for (const version of new Set([...info.requiredVersions.values()].flat())) {
    const rule = PREFIXES.find((p) => version.startsWith(p.prefix) && /^\d/.test(version.slice(p.prefix.length)));
    if (!rule) continue;
    const v = version.slice(rule.prefix.length);
    if (!out[rule.field] || compareVersions(v, out[rule.field]!) > 0) out[rule.field] = v;
  }
  return out;
}
