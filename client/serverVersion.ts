/**
 * Known faults of Triton server versions that users must not meet blind. The server reports its
 * version in its metadata (`ServerMetadata.version`, e.g. "2.51.0"); containers are named by
 * release (24.12 ships server 2.53.0).
 */
import type { TritonClient } from './grpc/client.js';

/** The first server release without the burst-cancellation fault (NGC container 24.12). */
export const FIRST_FIXED_SERVER = { version: '2.53.0', container: '24.12' } as const;

/**
 * The warning for a server version with Triton's burst-cancellation fault: concurrent gRPC stream
 * cancellations crash (double free, SIGSEGV) or hang it while it still answers ready (upstream
 * triton-inference-server/server #7368, #8034; fixed by #7840 in 24.12). Undefined for a fixed or
 * unknown version.
 */
export function serverVersionWarning(version: string | undefined): string | undefined {
  if (!version || !isBefore(version, FIRST_FIXED_SERVER.version)) return undefined;
  return (
    `Triton ${version} has the burst-cancellation fault: many clients cancelling streams at once can crash ` +
    `the server or leave it hung while it still reports ready (upstream #7368/#8034). Serve with Triton ` +
    `${FIRST_FIXED_SERVER.version} or newer (container ${FIRST_FIXED_SERVER.container}+, e.g. ` +
    `nvcr.io/nvidia/tritonserver:24.12-trtllm-python-py3)`
  );
}

/**
 * The same warning for an NGC container tag (`24.05-py3`, `24.12-trtllm-python-py3`): releases are
 * named yy.mm, and those before 24.12 ship an affected server. Undefined for other tags.
 */
export function containerTagWarning(tag: string): string | undefined {
  const release = /^(\d{2})\.(\d{2})(?:$|[-.])/.exec(tag);
  if (!release) return undefined;
  const [fixedYear, fixedMonth] = FIRST_FIXED_SERVER.container.split('.').map(Number) as [number, number];
  const year = Number(release[1]);
  const month = Number(release[2]);
  if (year > fixedYear || (year === fixedYear && month >= fixedMonth)) return undefined;
  return (
    `tritonserver:${tag} ships a Triton with the burst-cancellation fault: many clients cancelling streams ` +
    `at once can crash the server or leave it hung while it still reports ready (upstream #7368/#8034). ` +
    `Use --triton-tag ${FIRST_FIXED_SERVER.container}-py3 or newer (${FIRST_FIXED_SERVER.container}-trtllm-python-py3 for TensorRT-LLM)`
  );
}

/** The server's version and the warnings that go with it; a server that does not say gives none. */
export async function serverVersionNotes(
  client: TritonClient,
): Promise<{ version?: string; warnings: string[] }> {
  const version = await client
    .serverMetadata()
    .then((m) => m.version)
    .catch(() => undefined);
  const warning = serverVersionWarning(version);
  return { ...(version && { version }), warnings: warning ? [warning] : [] };
}

/** Dotted numeric versions compared part by part; a part that is not a number compares as 0. */
function isBefore(version: string, than: string): boolean {
  const a = version.split('.').map((p) => Number.parseInt(p, 10) || 0);
  const b = than.split('.').map((p) => Number.parseInt(p, 10) || 0);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) < (b[i] ?? 0);
  }
  return false;
}
