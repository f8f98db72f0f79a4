// Streaming stop sequence: hold back a possible partial stop across chunk boundaries.
export interface State {
  pending: string;
  stopped: boolean;
}
function onChunk(state: State, chunk: string, stop: string): string {
  if (state.stopped) return '';
  const text = state.pending + chunk;
  const at = stop === '' ? -1 : text.indexOf(stop);
  if (at >= 0) {
    state.stopped = true;
    state.pending = '';
    return text.slice(0, at);
  }
  let keep = 0;
  for (let n = Math.min(stop.length - 1, text.length); n > 0; n--) {
    if (text.endsWith(stop.slice(0, n))) {
      keep = n;
      break;
    }
  }
  state.pending = text.slice(text.length - keep);
  return text.slice(0, text.length - keep);
}
export function run(text: string, cuts: number[], stop: string): string[] {
  const state: State = { pending: '', stopped: false };
  const out: string[] = [];
  let pos = 0;
  for (const c of cuts) {
    const end = Math.min(text.length, pos + (Number.isFinite(c) ? Math.abs(Math.trunc(c)) % 7 : 1));
    out.push(onChunk(state, text.slice(pos, end), stop));
    pos = end;
  }
  out.push(onChunk(state, text.slice(pos), stop));
  out.push(state.stopped ? '' : state.pending);
  return out;
}
