// A Llama-2 style chat template: system prompt optional, turns joined with markers.
export interface Turn {
  role: string;
  content: string;
}
const B_INST = '[INST]';
const E_INST = '[/INST]';
export function run(system: string, turns: Turn[]): string {
  let out = '';
  let first = true;
  for (const t of turns) {
    if (t.role === 'user') {
      const sys = first && system.trim() !== '' ? `<<SYS>>\n${system.trim()}\n<</SYS>>\n\n` : '';
      out += `<s>${B_INST} ${sys}${t.content.trim()} ${E_INST}`;
      first = false;
    } else {
      out += ` ${t.content.trim()} </s>`;
    }
  }
  return out;
}
