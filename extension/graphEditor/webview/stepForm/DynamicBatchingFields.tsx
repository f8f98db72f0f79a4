/** Dynamic batching: on or off, and when on its preferred batch sizes and max queue delay. */
import { cleanObject } from './cleanObject.js';
import { NumberField } from './NumberField.js';
import { TextField } from './TextField.js';
import type { SectionProps } from './types.js';

export function DynamicBatchingFields({ step, set }: SectionProps) {
  const dyn = step.own.dynamicBatching;
  const dynObj = typeof dyn === 'object' ? dyn : {};
  const batchingOn = dyn === undefined ? step.dynamicBatching !== undefined : dyn !== false;
  return (
    <fieldset>
      <legend>Dynamic batching</legend>
      <label className="check">
        <input
          type="checkbox"
          name="dynamicBatching"
          checked={batchingOn}
          onChange={(e) => set('dynamicBatching', e.target.checked)}
        />
        <span>on</span>
      </label>
      {batchingOn ? (
        <>
          <TextField
            label="Preferred batch sizes"
            name="preferredBatchSizes"
            value={(dynObj.preferredBatchSizes ?? []).join(', ')}
            placeholder={step.dynamicBatching?.preferredBatchSizes?.join(', ') ?? 'e.g. 4, 8'}
            check={(v) =>
              v.trim() === '' || v.split(',').every((x) => /^\s*[1-9]\d*\s*$/.test(x))
                ? undefined
                : 'Whole numbers ≥ 1, comma-separated.'
            }
            onCommit={(v) => {
              const sizes = v.trim() === '' ? undefined : v.split(',').map((x) => Number(x));
              set('dynamicBatching', cleanObject({ ...dynObj, preferredBatchSizes: sizes }) ?? true);
            }}
          />
          <NumberField
            label="Max queue delay (µs)"
            name="maxQueueDelayMicroseconds"
            min={0}
            value={dynObj.maxQueueDelayMicroseconds}
            placeholder={
              step.dynamicBatching?.maxQueueDelayMicroseconds !== undefined
                ? `${step.dynamicBatching.maxQueueDelayMicroseconds} (inherited)`
                : 'Triton default'
            }
            onCommit={(v) =>
              set('dynamicBatching', cleanObject({ ...dynObj, maxQueueDelayMicroseconds: v }) ?? true)
            }
          />
        </>
      ) : null}
    </fieldset>
  );
}
