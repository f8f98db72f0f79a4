/** HTTP plumbing shared by the Triton REST and OpenAI transports: keep-alive requests, SSE events, errors. */
import { createParser } from 'eventsource-parser';
import { Agent, request, type Dispatcher } from 'undici';
import { EndpointError, httpFailure } from './errors.js';

export interface HttpCall {
  /** What the request is, for messages: e.g. `generate_stream`. */
  what: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** `host:port` or `http://host:port/…` → `http://host:port/…` without a trailing slash. */
export function httpUrl(url: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `http://${url}`;
  let parsed: URL;
  try {
    parsed = new URL(withScheme);
  } catch {
    throw new Error(`'${url}' is not an HTTP address: give host:port or http://host:port`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error(`'${url}' is not an HTTP address: give host:port or http://host:port`);
  }
  return parsed.href.replace(/\/+$/, '');
}

/** One server's HTTP connections (kept alive: a latency test must not time TCP handshakes). */
export class HttpChannel {
  private readonly agent = new Agent({ keepAliveTimeout: 60_000, keepAliveMaxTimeout: 600_000 });

  constructor(
    /** Base URL; request paths are appended to it. */
    readonly base: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  /** POSTs a JSON body and returns the answer, throwing the server's own error on a non-2xx status. */
  async post(path: string, body: unknown, call: HttpCall): Promise<Dispatcher.ResponseData> {
    return this.send('POST', path, call, JSON.stringify(body));
  }

  async getJson<T>(path: string, call: HttpCall): Promise<T> {
    const response = await this.send('GET', path, call);
    return (await this.readJson(response, call)) as T;
  }

  /** The body as JSON; a body cut off or not JSON is an error that says which request. */
  async readJson(response: Dispatcher.ResponseData, call: HttpCall): Promise<unknown> {
    let text: string;
    try {
      text = await response.body.text();
    } catch (error) {
      throw httpFailure(error, {
        url: this.base,
        what: call.what,
        timeoutMs: call.timeoutMs,
        cancelled: call.signal?.aborted,
      });
    }
    try {
      return JSON.parse(text);
    } catch {
      throw new EndpointError(
        `${call.what} at ${this.base} answered with something that is not JSON: ${text.slice(0, 200)}`,
        false,
      );
    }
  }

  /**
   * The `data:` fields of a Server-Sent Events body, one at a time as they arrive (so the
   * caller's clock reads each event's arrival).
   */
  async *events(response: Dispatcher.ResponseData, call: HttpCall): AsyncGenerator<string> {
    const pending: string[] = [];
    const parser = createParser({ onEvent: (event) => pending.push(event.data) });
    const decoder = new TextDecoder();
    try {
      for await (const bytes of response.body) {
        parser.feed(decoder.decode(bytes as Buffer, { stream: true }));
        while (pending.length > 0) yield pending.shift()!;
      }
    } catch (error) {
      throw httpFailure(error, {
        url: this.base,
        what: call.what,
        timeoutMs: call.timeoutMs,
        cancelled: call.signal?.aborted,
      });
    }
    parser.reset({ consume: true });
    while (pending.length > 0) yield pending.shift()!;
  }

  close(): void {
    void this.agent.close();
  }

  private async send(
    method: 'GET' | 'POST',
    path: string,
    call: HttpCall,
    body?: string,
  ): Promise<Dispatcher.ResponseData> {
    const signals = [
      call.signal,
      call.timeoutMs === undefined ? undefined : AbortSignal.timeout(call.timeoutMs),
    ].filter((s): s is AbortSignal => s !== undefined);
    let response: Dispatcher.ResponseData;
    try {
      response = await request(`${this.base}${path}`, {
        method,
        body,
        headers: body === undefined ? this.headers : { 'content-type': 'application/json', ...this.headers },
        dispatcher: this.agent,
        signal:
          signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals),
      });
    } catch (error) {
      throw httpFailure(error, {
        url: this.base,
        what: call.what,
        timeoutMs: call.timeoutMs,
        cancelled: call.signal?.aborted,
      });
    }
    if (response.statusCode >= 200 && response.statusCode < 300) return response;
    const text = await response.body.text().catch(() => '');
    throw new EndpointError(
      `${call.what} failed (HTTP ${response.statusCode}): ${serverMessage(text)}`,
      response.statusCode === 503 || response.statusCode === 502,
      response.statusCode,
    );
  }
}

/** The server's own words: Triton's `{"error": "…"}`, OpenAI's `{"error": {"message": "…"}}`, or the text. */
export function serverMessage(text: string): string {
  try {
    // generate_stream refuses a request with its error as an SSE event: `data: {"error": …}`.
    const body = JSON.parse(text.replace(/^\s*data:/, '')) as { error?: string | { message?: string } };
    if (typeof body.error === 'string') return body.error;
    if (body.error && typeof body.error.message === 'string') return body.error.message;
  } catch {
    // not JSON: the text itself
  }
  return text.trim().slice(0, 500) || '(no message)';
}
