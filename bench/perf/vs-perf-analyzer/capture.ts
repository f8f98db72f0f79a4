/** vs-perf-analyzer --wire: the server's port captured with tcpdump, and the wire's figures for a tool's requests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { wireLatencies, type WireLatency } from '../wire-times.js';
import { percentile, type Measured } from './figures.js';
import { OUT } from './settings.js';

/**
 * Captures the server's gRPC port on the loopback with tcpdump (bench-only: `apt-get install
 * tcpdump`, as root) until `stop`, which returns the unary calls it saw (bench/perf/wire-times.ts).
 */
export async function startCapture(
  url: string,
  running: Set<ChildProcess>,
): Promise<{ stop: () => Promise<WireLatency[]> }> {
  const port = Number(url.split(':').at(-1));
  const file = join(OUT, 'capture.pcap'); // the last tool run's, for a look with tcpdump -r
  const argv = [
    '-i',
    'lo',
    '-s',
    '0',
    '--time-stamp-precision=nano',
    '-U',
    '-w',
    file,
    'tcp',
    'port',
    String(port),
  ];
  const tcpdump = spawn('tcpdump', argv, { stdio: ['ignore', 'ignore', 'pipe'] });
  running.add(tcpdump);
  const closed = new Promise<number | null>((r) => tcpdump.on('close', r));
  let stderr = '';
  await new Promise<void>((ready, fail) => {
    tcpdump.on('error', (e) =>
      fail(new Error(`--wire needs tcpdump (apt-get install tcpdump): ${e.message}`)),
    );
    tcpdump.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (stderr.includes('listening on')) ready();
    });
    void closed.then((code) => fail(new Error(`tcpdump exited (${code}): ${stderr.trim()}`)));
  });
  return {
    stop: async () => {
      tcpdump.kill('SIGINT');
      await closed;
      running.delete(tcpdump);
      return wireLatencies(file, port);
    },
  };
}

/** p50 and mean (ms) of the wire latencies of the calls `keep` selects, and the tool's mean less the wire's. */
export function wireFigures(
  toolMean: number,
  calls: WireLatency[] | undefined,
  keep: (c: WireLatency, i: number) => boolean,
): Pick<Measured, 'wireP50' | 'wireMean' | 'ownMean'> {
  const kept = (calls ?? []).filter(keep).map((c) => c.latencyMs);
  if (kept.length === 0) return {};
  const wireMean = kept.reduce((a, b) => a + b, 0) / kept.length;
  return { wireP50: percentile(kept, 50), wireMean, ownMean: toolMean - wireMean };
}
