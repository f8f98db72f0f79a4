/**
 * A generate_stream client that walks away: reads the server-sent events as they arrive and
 * closes the connection (as a closed browser tab or curl's Ctrl-C does) once `after` non-empty
 * `text_output` chunks have come. Shared by the orchestrator tests' HTTP cancellations.
 */
import { expect } from 'vitest';

export async function abandonGenerateStream(url: string, body: string, after: number): Promise<string[]> {
  const controller = new AbortController();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    signal: controller.signal,
  });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const seen: string[] = [];
  let pending = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`the stream ended before it was abandoned, after ${seen.length} chunks`);
      pending += decoder.decode(value, { stream: true });
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        if (!line.startsWith('data:')) continue;
        const event = JSON.parse(line.slice(5)) as { text_output?: string; error?: string };
        expect(event.error).toBeUndefined();
        if (event.text_output) seen.push(event.text_output);
      }
      if (seen.length >= after) {
        controller.abort();
        await expect(reader.read()).rejects.toThrow(/abort/i);
        return seen;
      }
    }
  } finally {
    controller.abort();
  }
}
