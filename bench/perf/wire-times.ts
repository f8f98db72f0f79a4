/**
 * Request latencies as the wire saw them: a third clock for the perf-vs-perf_analyzer bench.
 * A tool's clock starts before its request reaches the wire and stops after the answer left it,
 * so (tool − wire) is the tool's own share of what it reports, and no exact tool reads less
 * than the wire.
 *
 * Reads a capture of a gRPC server's port (`tcpdump -i lo -s 0 --time-stamp-precision=nano -w F
 * tcp port P`) and follows plaintext HTTP/2 in both directions of every connection. For unary
 * calls (ModelInfer: one HTTP/2 stream per request) a request starts with the packet carrying the
 * client's HEADERS frame that opens its stream and ends with the packet carrying the server's
 * trailers (HEADERS with END_STREAM) on it: the call is complete for a gRPC client only then.
 * Streamed calls (ModelStreamInfer) carry many requests per HTTP/2 stream and are not paired.
 * Every unary call on the port is returned, control calls (statistics, metadata) too: the
 * requests of a load are the calls whose request size is the load's (`inferenceCalls`).
 */
import { readFileSync } from 'node:fs';

const HTTP2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
const FRAME_DATA = 0x0;
const FRAME_HEADERS = 0x1;
const FLAG_END_STREAM = 0x1;

/** One direction of one TCP connection: its bytes in order, and the capture time of each packet's bytes. */
interface Direction {
  nextSeq?: number;
  buffer: Buffer;
  /** Capture time (ns) of the packet that brought buffer[0..]: one entry per packet still in the buffer. */
  packets: { end: number; ns: bigint }[];
  /** The client's side, until its preface has been read. */
  preface: boolean;
}

/** Per connection and stream: when the request's HEADERS and the response's trailers were on the wire. */
interface WireCall {
  startNs: bigint;
  endNs?: bigint;
  /** The request's DATA bytes (the gRPC-framed message). */
  requestBytes: number;
}

/** A unary call on the wire: when its request went out (capture clock, ns since the epoch) and its latency. */
export interface WireLatency {
  startNs: bigint;
  latencyMs: number;
  requestBytes: number;
}

/** Unary calls' wire latencies, in the order their requests went out, from a pcap file. */
export function wireLatencies(pcapFile: string, serverPort: number): WireLatency[] {
  const calls = new Map<string, WireCall>();
  const directions = new Map<string, Direction>();
  // Connections whose start the capture saw; one opened before it has unknown frame boundaries.
  const opened = new Set<number>();
  forEachTcpSegment(pcapFile, (segment) => {
    const toServer = segment.dstPort === serverPort;
    if (!toServer && segment.srcPort !== serverPort) return;
    const connection = toServer ? segment.srcPort : segment.dstPort;
    if (segment.syn && toServer) opened.add(connection);
    if (segment.payload.length === 0 || !opened.has(connection)) return;
    const key = `${connection}${toServer ? '>' : '<'}`;
    let direction = directions.get(key);
    if (!direction) {
      direction = { buffer: Buffer.alloc(0), packets: [], preface: toServer };
      directions.set(key, direction);
    }
    for (const frame of appendSegment(direction, segment)) {
      if (frame.streamId === 0) continue;
      const id = `${connection}/${frame.streamId}`;
      if (toServer && frame.type === FRAME_DATA) {
        const call = calls.get(id);
        if (call) call.requestBytes += frame.length;
      }
      if (frame.type !== FRAME_HEADERS) continue;
      if (toServer) {
        if (!calls.has(id)) calls.set(id, { startNs: frame.startNs, requestBytes: 0 });
      } else if (frame.flags & FLAG_END_STREAM) {
        const call = calls.get(id);
        if (call && call.endNs === undefined) call.endNs = frame.endNs;
      }
    }
  });
  return [...calls.values()]
    .filter((c): c is Required<WireCall> => c.endNs !== undefined)
    .sort((a, b) => (a.startNs < b.startNs ? -1 : 1))
    .map((c) => ({
      startNs: c.startNs,
      latencyMs: Number(c.endNs - c.startNs) / 1e6,
      requestBytes: c.requestBytes,
    }));
}

/** The calls of the load: those whose request size is the most common one (a fixed prompt). */
export function inferenceCalls(calls: WireLatency[]): WireLatency[] {
  const counts = new Map<number, number>();
  for (const c of calls) counts.set(c.requestBytes, (counts.get(c.requestBytes) ?? 0) + 1);
  const [size] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0] ?? [];
  return calls.filter((c) => c.requestBytes === size);
}

interface Segment {
  ns: bigint;
  srcPort: number;
  dstPort: number;
  seq: number;
  syn: boolean;
  payload: Buffer;
}

interface Frame {
  type: number;
  length: number;
  flags: number;
  streamId: number;
  /** Capture time of the packets that brought the frame's first and last bytes. */
  startNs: bigint;
  endNs: bigint;
}

/** Adds a segment's new bytes (retransmitted ones dropped) and returns the HTTP/2 frames now complete. */
function appendSegment(direction: Direction, segment: Segment): Frame[] {
  let payload = segment.payload;
  if (direction.nextSeq !== undefined) {
    const behind = (direction.nextSeq - segment.seq) >>> 0;
    if (behind > 0 && behind < 0x80000000) payload = payload.subarray(Math.min(behind, payload.length));
  }
  if (payload.length === 0) return [];
  direction.nextSeq = (segment.seq + segment.payload.length) >>> 0;
  direction.buffer = Buffer.concat([direction.buffer, payload]);
  direction.packets.push({ end: direction.buffer.length, ns: segment.ns });
  if (direction.preface) {
    if (direction.buffer.length < HTTP2_PREFACE.length) return [];
    consume(direction, HTTP2_PREFACE.length);
    direction.preface = false;
  }
  const frames: Frame[] = [];
  while (direction.buffer.length >= 9) {
    const length = direction.buffer.readUIntBE(0, 3);
    if (direction.buffer.length < 9 + length) break;
    frames.push({
      type: direction.buffer[3]!,
      length,
      flags: direction.buffer[4]!,
      streamId: direction.buffer.readUInt32BE(5) & 0x7fffffff,
      startNs: timeOf(direction, 0),
      endNs: timeOf(direction, 9 + length - 1),
    });
    consume(direction, 9 + length);
  }
  return frames;
}

function timeOf(direction: Direction, offset: number): bigint {
  return direction.packets.find((p) => p.end > offset)!.ns;
}

function consume(direction: Direction, bytes: number): void {
  direction.buffer = direction.buffer.subarray(bytes);
  direction.packets = direction.packets
    .map((p) => ({ end: p.end - bytes, ns: p.ns }))
    .filter((p) => p.end > 0);
}

/** Calls `visit` with every IPv4 TCP segment in a pcap file (Ethernet or Linux cooked links). */
function forEachTcpSegment(file: string, visit: (segment: Segment) => void): void {
  const data = readFileSync(file);
  const magic = data.readUInt32LE(0);
  const nanos = magic === 0xa1b23c4d;
  if (!nanos && magic !== 0xa1b2c3d4) throw new Error(`${file}: not a little-endian pcap file`);
  const linkType = data.readUInt32LE(20);
  const linkHeader = { 1: 14, 113: 16, 276: 20 }[linkType];
  if (linkHeader === undefined)
    throw new Error(`${file}: link type ${linkType} is not Ethernet or Linux cooked`);
  let at = 24;
  while (at + 16 <= data.length) {
    const ns =
      BigInt(data.readUInt32LE(at)) * 1_000_000_000n +
      BigInt(data.readUInt32LE(at + 4)) * (nanos ? 1n : 1000n);
    const captured = data.readUInt32LE(at + 8);
    const packet = data.subarray(at + 16, at + 16 + captured);
    at += 16 + captured;
    const etherType = packet.readUInt16BE(linkHeader - 2);
    if (etherType !== 0x0800) continue;
    const ip = packet.subarray(linkHeader);
    if (ip[9] !== 6) continue;
    const ipHeader = (ip[0]! & 0x0f) * 4;
    const total = ip.readUInt16BE(2);
    const tcp = ip.subarray(ipHeader, total);
    const tcpHeader = (tcp[12]! >> 4) * 4;
    const payload = tcp.subarray(tcpHeader);
    visit({
      ns,
      srcPort: tcp.readUInt16BE(0),
      dstPort: tcp.readUInt16BE(2),
      seq: tcp.readUInt32BE(4),
      syn: (tcp[13]! & 0x02) !== 0,
      payload,
    });
  }
}
