/**
 * The TypeScript half of perf's native engine against a stand-in driver (a shell script speaking
 * ts-perf-driver's stdin/stdout protocol): what it hands the driver, how records become the Node
 * engine's outcomes, and how a failing driver is reported. The real driver against the real
 * server is covered by test/integration/perf-lab.test.ts and perf-endpoints.test.ts.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chooseEngine } from '../../client/perf/latencyTest.js';
import { runNativeLoad, type NativeTarget } from '../../client/perf/load/nativeEngine.js';
import { sendSchedule } from '../../client/perf/load/requestRate.js';
import { createTransport } from '../../client/transports/index.js';

const scratch = mkdtempSync(join(tmpdir(), 'ts-native-engine-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A driver that saves its stdin up to `start`, then plays `script` (sh) with stdin still open. */
function fakeDriver(name: string, script: string): { path: string; stdin: string } {
  const path = join(scratch, name);
  const stdin = join(scratch, `${name}.stdin`);
  writeFileSync(
    path,
    `#!/bin/sh\necho "$@" > ${stdin}.args\nwhile IFS= read -r line; do echo "$line" >> ${stdin}; [ "$line" = start ] && break; done\n${script}\n`,
  );
  chmodSync(path, 0o755);
  return { path, stdin };
}

function target(driver: string, requests = [Buffer.from('req-a'), Buffer.from('req-b')]): NativeTarget {
  return {
    driver,
    url: '127.0.0.1:1',
    method: 'stream',
    headers: { 'x-key': 'v' },
    timeoutMs: 250,
    requests,
    toError: (f) => new Error(`${f.kind}/${f.code}: ${f.message}`),
  };
}

describe("perf's native engine (TypeScript side)", () => {
  it('hands over requests and load, waits for the warm-up hook before go, and turns records into outcomes', async () => {
    const driver = fakeDriver(
      'ok',
      [
        'echo W',
        'read -r go; echo "$go" > $0.go',
        `echo '{"i":1,"s":0.5,"l":10.25,"r":3,"c":[[4,"he"],[7,"llo"]]}'`,
        `echo '{"i":0,"s":1.5,"l":2,"r":0,"c":[],"k":"server","g":0,"e":"boom \\"quoted\\""}'`,
        'echo E',
      ].join('\n'),
    );
    const order: string[] = [];
    const run = await runNativeLoad(
      { mode: 'concurrency', concurrency: 2, requests: 2, warmupRequests: 3 },
      target(driver.path),
      ['first', 'second'],
      {
        afterWarmup: async () => {
          order.push('afterWarmup');
          await new Promise((r) => setTimeout(r, 20));
        },
        onOutcome: () => order.push('outcome'),
      },
    );
    expect(order).toEqual(['afterWarmup', 'outcome', 'outcome']);
    expect(readFileSync(`${driver.path}.go`, 'utf8')).toBe('go\n');
    expect(readFileSync(`${driver.stdin}.args`, 'utf8').trim()).toBe(
      '--url 127.0.0.1:1 --method stream --timeout-ms 250 --header x-key=v',
    );
    expect(readFileSync(driver.stdin, 'utf8')).toBe(
      'request 5\nreq-a\nrequest 5\nreq-b\nclosed 2 3 2 -1\nstart\n',
    );
    const [ok, failed] = run.outcomes;
    expect(ok).toEqual({
      startMs: 0.5,
      latencyMs: 10.25,
      value: {
        text: 'hello',
        chunks: ['he', 'llo'],
        chunkMs: [4, 7],
        responses: 3,
        ttftMs: 4,
        latencyMs: 10.25,
        input: 'second',
      },
    });
    expect(failed!.value).toBeUndefined();
    expect(failed!.error!.message).toBe('server/0: boom "quoted"');
    expect(run.durationS).toBeCloseTo(0.01075, 6);
  });

  it("open loop: the send times are the Node engine's own schedule (same seed, same times)", async () => {
    const driver = fakeDriver('open', 'echo W; read -r go; echo E');
    const load = {
      mode: 'request-rate' as const,
      rate: 200,
      distribution: 'poisson' as const,
      seed: 7,
      requests: 5,
      warmupRequests: 2,
    };
    await runNativeLoad(load, target(driver.path, [Buffer.from('x')]), ['only']);
    const lines = readFileSync(driver.stdin, 'utf8').split('\n');
    expect(lines.slice(2, 4)).toEqual(['open', 'warmup-times 2']);
    const measured = lines[6]!.split(' ').map(Number);
    const expected = sendSchedule(load, 5);
    expect(lines[5]).toBe('times 5');
    measured.forEach((t, i) => expect(t).toBeCloseTo(expected[i]!, 3));
  });

  it('a driver that fails: its own words, not a stack of pipe errors', async () => {
    const driver = fakeDriver('fails', 'echo "ts-perf-driver: no load given" >&2; exit 2');
    await expect(
      runNativeLoad(
        { mode: 'concurrency', concurrency: 1, requests: 1, warmupRequests: 0 },
        target(driver.path),
        ['a', 'b'],
      ),
    ).rejects.toThrow("perf's native engine (ts-perf-driver) failed with exit code 2: no load given");
  });

  it('refuses what it cannot drive before starting anything', async () => {
    await expect(
      runNativeLoad(
        { mode: 'concurrency', concurrency: 0, requests: 1, warmupRequests: 0 },
        target('/nonexistent'),
        ['a', 'b'],
      ),
    ).rejects.toThrow('concurrency must be a whole number ≥ 1 (got 0)');
    await expect(
      runNativeLoad(
        { mode: 'concurrency', concurrency: 1, requests: 1, warmupRequests: 0 },
        target('/nonexistent'),
        ['a', 'b'],
      ),
    ).rejects.toThrow("cannot run perf's native engine /nonexistent");
  });

  it('the engine choice: native only for gRPC, auto picks it there, node stays the library default', () => {
    const http = createTransport('generate', 'http://127.0.0.1:1');
    const grpc = createTransport('grpc-stream', '127.0.0.1:1');
    try {
      expect(() => chooseEngine(http, 'native')).toThrow(
        "perf's native engine drives Triton's gRPC endpoints (grpc-stream, grpc-infer), not generate: use --engine node",
      );
      expect(chooseEngine(http, 'auto')).toBe('node');
      expect(chooseEngine(grpc, 'auto')).toBe('native');
      expect(chooseEngine(grpc, undefined)).toBe('node');
      expect(() => chooseEngine(grpc, 'fast' as never)).toThrow(
        "engine must be one of native, node, auto (got 'fast')",
      );
    } finally {
      http.close();
      grpc.close();
    }
  });
});
