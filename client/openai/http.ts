/**
 * The front's HTTP plumbing: JSON answers, bounded JSON bodies, errors as OpenAI error objects and
 * the API key check. Nothing here knows a route.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from './protocol.js';

export function json(res: ServerResponse, code: number, body: object): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The error as the request's answer; once headers are out, the answer just ends. */
export function fail(res: ServerResponse, error: ApiError): void {
  if (res.destroyed || res.writableEnded) return;
  if (res.headersSent) {
    res.end();
    return;
  }
  // A refused body is not read on: the connection closes after the answer.
  if (error.status === 413) res.setHeader('connection', 'close');
  if (error.status === 429) res.setHeader('retry-after', '1');
  json(res, error.status, error.body());
}

export function tooLarge(max: number): ApiError {
  return new ApiError(
    413,
    `the request body is over this server's limit of ${max} bytes (openai-serve --max-body-bytes)`,
  );
}

/** The body as JSON, refused with 413 as soon as it grows over `maxBytes`. */
export async function readJson(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req) {
    size += (part as Buffer).length;
    if (size > maxBytes) throw tooLarge(maxBytes);
    parts.push(part as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(parts).toString('utf8'));
  } catch {
    throw new ApiError(400, 'the request body is not JSON');
  }
}

/** Keys are compared as SHA-256 digests: equal lengths, so the comparison takes constant time. */
export function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

export function authorized(req: IncomingMessage, key: Buffer): boolean {
  const match = /^Bearer +(.+)$/i.exec(req.headers.authorization ?? '');
  return timingSafeEqual(digest(match?.[1]?.trim() ?? ''), key) && match !== null;
}
