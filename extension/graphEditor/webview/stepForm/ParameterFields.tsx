/** The step's parameters: each one edited or removed, new ones added; the preset's listed below. */
import { cleanObject } from './cleanObject.js';
import { NewParameter } from './NewParameter.js';
import { TextField } from './TextField.js';
import type { SectionProps } from './types.js';

export function ParameterFields({ step, set }: SectionProps) {
  const own = step.own;
  const params = Object.entries(own.parameters ?? {});
  return (
    <fieldset>
      <legend>Parameters</legend>
      {params.map(([k, v]) => (
        <div className="row" key={k}>
          <TextField
            label={k}
            name={`param-${k}`}
            value={v === null ? '' : String(v)}
            placeholder={v === null ? '(removed from the preset)' : undefined}
            onCommit={(nv) => set('parameters', { ...own.parameters, [k]: nv })}
          />
          <button
            type="button"
            aria-label={`Remove parameter ${k}`}
            onClick={() =>
              set(
                'parameters',
                params.length > 1 ? cleanObject({ ...own.parameters, [k]: undefined }) : undefined,
              )
            }
          >
            ✕
          </button>
        </div>
      ))}
      <NewParameter
        onAdd={(k, v) => set('parameters', { ...own.parameters, [k]: v })}
        taken={params.map(([k]) => k)}
      />
      {Object.keys(step.parameters).some((k) => !(k in (own.parameters ?? {}))) ? (
        <div className="hint">
          From the preset:{' '}
          {Object.entries(step.parameters)
            .filter(([k]) => !(k in (own.parameters ?? {})))
            .map(([k, v]) => `${k}=${v}`)
            .join(', ')}
        </div>
      ) : null}
    </fieldset>
  );
}
