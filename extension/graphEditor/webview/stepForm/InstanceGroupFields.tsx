/** Instance groups: count and kind of each, added and removed; the preset's when the step sets none. */
import { cleanObject } from './cleanObject.js';
import { NumberField } from './NumberField.js';
import type { SectionProps } from './types.js';

export function InstanceGroupFields({
  step,
  set,
  instanceKinds,
  native,
}: SectionProps & { instanceKinds: string[]; native: boolean }) {
  const groups = step.own.instanceGroups ?? [];
  return (
    <fieldset>
      <legend>Instance groups</legend>
      {groups.length === 0 ? (
        <div className="hint">
          {step.instances.length
            ? `From the preset: ${step.instances.map((g) => `${g.count}× ${g.kind}`).join(', ')}`
            : 'Triton default (one per GPU, or one CPU instance)'}
        </div>
      ) : null}
      {groups.map((g, i) => (
        <div className="row" key={i}>
          <NumberField
            label="Count"
            name={`instanceCount${i}`}
            min={1}
            value={g.count}
            placeholder="1"
            onCommit={(v) =>
              set(
                'instanceGroups',
                groups.map((x, k) => (k === i ? cleanObject({ ...x, count: v }) : x)),
              )
            }
          />
          <label className="field">
            <span>Kind</span>
            <select
              name={`instanceKind${i}`}
              value={g.kind ?? ''}
              onChange={(e) =>
                set(
                  'instanceGroups',
                  groups.map((x, k) =>
                    k === i ? cleanObject({ ...x, kind: e.target.value || undefined }) : x,
                  ),
                )
              }
            >
              <option value="">(AUTO)</option>
              {instanceKinds.map((k) => (
                <option key={k}>{k}</option>
              ))}
            </select>
          </label>
          <button
            type="button"
            aria-label={`Remove instance group ${i + 1}`}
            onClick={() =>
              set('instanceGroups', groups.length > 1 ? groups.filter((_, k) => k !== i) : undefined)
            }
          >
            ✕
          </button>
        </div>
      ))}
      <button
        type="button"
        onClick={() => set('instanceGroups', [...groups, { count: 1, kind: native ? 'CPU' : 'GPU' }])}
      >
        + Instance group
      </button>
    </fieldset>
  );
}
