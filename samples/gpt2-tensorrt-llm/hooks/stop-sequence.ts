/**
 * Stop sequence on a streamed answer: text after "\n\n###" is never sent. A chunk that ends
 * with the start of the stop sequence is held back until the next chunk shows whether the
 * sequence completes; the end of the stream flushes what was held. Per-request state lives in
 * StreamState (created by startStream, dropped with the request). Compiled to C++ (docs/HOOKS.md).
 */
const STOP = '\n\n###';

export interface StreamState {
  pending: string;
  stopped: boolean;
}

export function startStream(): StreamState {
  return { pending: '', stopped: false };
}

export function onChunk(state: StreamState, chunk: string): string {
  if (state.stopped) return '';
  const text = state.pending + chunk;
  const at = text.indexOf(STOP);
  if (at >= 0) {
    state.stopped = true;
    state.pending = '';
    return text.slice(0, at);
  }
  // Hold back the longest tail that is a prefix of STOP.
  let keep = 0;
  for (let n = Math.min(STOP.length - 1, text.length); n > 0; n--) {
    if (text.endsWith(STOP.slice(0, n))) {
      keep = n;
      break;
    }
  }
  state.pending = text.slice(text.length - keep);
  return text.slice(0, text.length - keep);
}

export function endStream(state: StreamState): string {
  const rest = state.stopped ? '' : state.pending;
  state.pending = '';
  return rest;
}

/** The whole answer at once (not streamed): cut at the stop sequence. */
export function afterDecode(text: string): string {
  const at = text.indexOf(STOP);
  return at >= 0 ? text.slice(0, at) : text;
}
