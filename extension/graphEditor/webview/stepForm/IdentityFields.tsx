/** The step's name (renamed with its wires), kind and preset. */
import type { GraphEdit } from '../../host/textEdits.js';
import type { FormSchema } from '../../messages.js';
import { TextField } from './TextField.js';
import type { SectionProps } from './types.js';

/** Triton model names (the schema's `modelName` pattern). */
const MODEL_NAME = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,127}$/;

export function IdentityFields({
  step,
  schema,
  set,
  onEdit,
}: SectionProps & { schema: FormSchema; onEdit: (edit: GraphEdit) => void }) {
  const own = step.own;
  return (
    <>
      <TextField
        label="Name"
        name="name"
        value={own.name}
        check={(v) =>
          MODEL_NAME.test(v) ? undefined : "Letters, digits, '_' and '-' (not first), at most 128."
        }
        onCommit={(v) => onEdit({ op: 'renameStep', from: step.name, to: v })}
      />
      <label className="field">
        <span>Kind</span>
        <select name="kind" value={own.kind} onChange={(e) => set('kind', e.target.value)}>
          {schema.kinds.map((k) => (
            <option key={k}>{k}</option>
          ))}
        </select>
      </label>
      <label className="field">
        <span>Preset</span>
        <select
          name="preset"
          value={own.preset ?? ''}
          onChange={(e) => set('preset', e.target.value || undefined)}
        >
          <option value="">(none)</option>
          {schema.presets
            .filter((p) => p.kind === own.kind || p.id === own.preset)
            .map((p) => (
              <option key={p.id} value={p.id} title={p.title}>
                {p.id}
              </option>
            ))}
        </select>
      </label>
    </>
  );
}
