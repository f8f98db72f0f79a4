/** What runs in the step: a native step's tokenizer and hooks module, a custom step's source module. */
import { ModuleField } from './ModuleField.js';
import { TextField } from './TextField.js';
import type { SectionProps } from './types.js';

export function CodeFields({
  step,
  set,
  native,
  onOpenModule,
}: SectionProps & { native: boolean; onOpenModule: (ref: string) => void }) {
  const own = step.own;
  return (
    <>
      {native ? (
        <TextField
          label="Tokenizer"
          name="tokenizer"
          value={own.tokenizer ?? ''}
          placeholder="gpt2, llama-2, path/to/tokenizer.json"
          onCommit={(v) => set('tokenizer', v || undefined)}
        />
      ) : null}
      {native ? (
        <ModuleField
          label="Hooks (TypeScript)"
          name="hooks"
          value={own.hooks ?? ''}
          placeholder="hooks/chat.ts: beforeEncode, afterDecode…"
          onCommit={(v) => set('hooks', v)}
          onOpen={onOpenModule}
        />
      ) : own.kind === 'custom' ? (
        <ModuleField
          label="Source (TypeScript)"
          name="source"
          value={own.source ?? ''}
          placeholder="steps/label.ts: execute(rows, params)"
          onCommit={(v) => set('source', v)}
          onOpen={onOpenModule}
        />
      ) : null}
    </>
  );
}
