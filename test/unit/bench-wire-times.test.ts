/**
 * The bench's third clock (bench/perf/wire-times.ts): unary gRPC calls' latencies read from a
 * packet capture. It is the reference the tools are checked against, so it is checked here on a
 * capture built byte by byte: HTTP/2 frames split across segments, a retransmission, a
 * connection the capture joined late, and control calls beside the load's.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inferenceCalls, wireLatencies } from '../../bench/perf/wire-times.js';

const SERVER = 8001;
const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

function frame(type: number, flags: number, stream: number, length: number): Buffer {
  const f = Buffer.alloc(9 + length);
  f.writeUIntBE(length, 0, 3);
  f[3] = type;
  f[4] = flags;
  f.writeUInt32BE(stream, 5);
  return f;
}
const headers = (stream: number, endStream = false) => frame(0x1, 0x4 | (endStream ? 0x1 : 0), stream, 12);
const data = (stream: number, bytes: number) => frame(0x0, 0, stream, bytes);
const settings = () => frame(0x4, 0, 0, 6);

interface Packet {
  ns: bigint;
  from: number;
  to: number;
  seq: number;
  syn?: boolean;
  payload?: Buffer;
}

/** A nanosecond pcap of Ethernet / IPv4 / TCP packets. */
function pcap(packets: Packet[]): string {
  const header = Buffer.alloc(24);
  header.writeUInt32LE(0xa1b23c4d, 0);
  header.writeUInt16LE(2, 4);
  header.writeUInt16LE(4, 6);
  header.writeUInt32LE(65535, 16);
  header.writeUInt32LE(1, 20);
  const records = packets.map((p) => {
    const payload = p.payload ?? Buffer.alloc(0);
    const ip = Buffer.alloc(20);
    ip[0] = 0x45;
    ip.writeUInt16BE(20 + 20 + payload.length, 2);
    ip[9] = 6;
    const tcp = Buffer.alloc(20);
    tcp.writeUInt16BE(p.from, 0);
    tcp.writeUInt16BE(p.to, 2);
    tcp.writeUInt32BE(p.seq, 4);
    tcp[12] = 5 << 4;
    tcp[13] = p.syn ? 0x02 : 0x18;
    const ethernet = Buffer.alloc(14);
    ethernet.writeUInt16BE(0x0800, 12);
    const body = Buffer.concat([ethernet, ip, tcp, payload]);
    const record = Buffer.alloc(16);
    record.writeUInt32LE(Number(p.ns / 1_000_000_000n), 0);
    record.writeUInt32LE(Number(p.ns % 1_000_000_000n), 4);
    record.writeUInt32LE(body.length, 8);
    record.writeUInt32LE(body.length, 12);
    return Buffer.concat([record, body]);
  });
  const file = join(mkdtempSync(join(tmpdir(), 'ts-wire-')), 'capture.pcap');
  writeFileSync(file, Buffer.concat([header, ...records]));
  return file;
}

/** One side's segments in order, tracking the sequence number; `again` resends the previous segment. */
function side(from: number, to: number, seq: number) {
  let previous = seq;
  return (ns: bigint, payload: Buffer, opts: { again?: boolean } = {}): Packet => {
    if (opts.again) return { ns, from, to, seq: previous, payload };
    previous = seq;
    seq += payload.length;
    return { ns, from, to, seq: previous, payload };
  };
}

const T0 = 1_800_000_000_000_000_000n;
const ms = (x: number) => T0 + BigInt(Math.round(x * 1e6));

describe('wire latencies from a capture', () => {
  const client = side(40000, SERVER, 1001);
  const server = side(SERVER, 40000, 5001);
  const late = side(40002, SERVER, 7001);
  const lateServer = side(SERVER, 40002, 9001);
  const call1Trailers = headers(1, true);
  const file = pcap([
    { ns: ms(0), from: 40000, to: SERVER, seq: 1000, syn: true },
    // The server speaks first (its SETTINGS), before the client's preface.
    server(ms(0.01), settings()),
    client(ms(0.02), Buffer.concat([PREFACE, settings()])),
    // Call 1: HEADERS and a 20-byte request message split across two segments.
    client(ms(1), headers(1)),
    client(ms(1.01), data(1, 20).subarray(0, 15)),
    client(ms(1.02), data(1, 20).subarray(15)),
    // A connection the capture joined after it opened: where its frames start is unknown, so
    // even bytes that read as a whole call are not taken for one.
    late(ms(1.5), Buffer.concat([data(1, 15), headers(7), data(7, 20)])),
    lateServer(ms(1.6), headers(7, true)),
    // Call 3: a control call (5-byte request) answered at once.
    client(ms(2), Buffer.concat([headers(3), data(3, 5)])),
    server(ms(2.3), Buffer.concat([headers(3), data(3, 8), headers(3, true)])),
    // Call 1's answer; its trailers arrive in two segments, the first one retransmitted.
    server(ms(3), Buffer.concat([headers(1), data(1, 30)])),
    server(ms(3.5), call1Trailers.subarray(0, 4)),
    server(ms(3.6), call1Trailers.subarray(0, 4), { again: true }),
    server(ms(4), call1Trailers.subarray(4)),
    // Call 5: the same request as call 1.
    client(ms(5), Buffer.concat([headers(5), data(5, 20)])),
    server(ms(7.25), Buffer.concat([headers(5), data(5, 30), headers(5, true)])),
  ]);

  it("times each unary call from its request's HEADERS to the server's trailers, frames split or resent", () => {
    const calls = wireLatencies(file, SERVER);
    expect(calls.map((c) => [c.latencyMs, c.requestBytes])).toEqual([
      [3, 20],
      [0.3, 5],
      [2.25, 20],
    ]);
    expect(calls[0]!.startNs).toBe(ms(1));
  });

  it("keeps the load's calls (the most common request size), not the control calls", () => {
    expect(inferenceCalls(wireLatencies(file, SERVER)).map((c) => c.latencyMs)).toEqual([3, 2.25]);
  });
});
