/**
 * The selected step's properties form. Inputs carry the schema's constraints (enums as selects,
 * minimums on numbers, the name pattern); each committed field becomes one edit of the text.
 */
import type { StepNodeView } from '../../host/graphModel.js';
import type { GraphEdit } from '../../host/textEdits.js';
import type { FormSchema } from '../../messages.js';
import { DynamicBatchingFields } from './DynamicBatchingFields.js';
import { InstanceGroupFields } from './InstanceGroupFields.js';
import { CodeFields } from './CodeFields.js';
import { IdentityFields } from './IdentityFields.js';
import { NumberField } from './NumberField.js';
import { ParameterFields } from './ParameterFields.js';
import { PortTable } from './PortTable.js';
import { TextField } from './TextField.js';
import type { SetField } from './types.js';

export interface StepFormProps {
  step: StepNodeView;
  schema: FormSchema;
  onEdit: (edit: GraphEdit) => void;
  onOpenModule: (ref: string) => void;
}

export function StepForm({ step, schema, onEdit, onOpenModule }: StepFormProps) {
  const own = step.own;
  const set: SetField = (field, value) => onEdit({ op: 'setStepField', name: step.name, field, value });
  const native = own.kind === 'tokenize' || own.kind === 'detokenize';
  return (
    <form
      className="step-form"
      aria-label={`Properties of step ${step.name}`}
      onSubmit={(e) => e.preventDefault()}
    >
      <h2>{step.name}</h2>
      <IdentityFields step={step} schema={schema} set={set} onEdit={onEdit} />
      <CodeFields step={step} set={set} native={native} onOpenModule={onOpenModule} />
      {native || own.source ? null : (
        <>
          <TextField
            label="Backend"
            name="backend"
            value={own.backend ?? ''}
            placeholder={step.backend ?? 'tensorrtllm, onnxruntime, vllm…'}
            onCommit={(v) => set('backend', v || undefined)}
          />
          <TextField
            label="Platform"
            name="platform"
            value={own.platform ?? ''}
            placeholder={step.platform ?? 'onnxruntime_onnx, tensorrt_plan…'}
            onCommit={(v) => set('platform', v || undefined)}
          />
        </>
      )}
      <NumberField
        label="Max batch size"
        name="maxBatchSize"
        min={0}
        value={own.maxBatchSize}
        placeholder={`${step.maxBatchSize} (inherited)`}
        onCommit={(v) => set('maxBatchSize', v)}
      />
      <DynamicBatchingFields step={step} set={set} />
      <InstanceGroupFields step={step} set={set} instanceKinds={schema.instanceKinds} native={native} />
      <label
        className="check"
        title={native ? 'Native tokenize/detokenize steps answer each request once.' : undefined}
      >
        <input
          type="checkbox"
          name="decoupled"
          disabled={native && !own.decoupled}
          checked={step.decoupled}
          onChange={(e) => set('decoupled', e.target.checked || undefined)}
        />
        <span>Decoupled (streams responses){native ? ' — not for native steps' : ''}</span>
      </label>
      <ParameterFields step={step} set={set} />
      <TextField
        label="Description"
        name="description"
        value={own.description ?? ''}
        onCommit={(v) => set('description', v || undefined)}
      />
      <PortTable step={step} />
      <button
        type="button"
        className="danger"
        onClick={() => onEdit({ op: 'removeSteps', names: [step.name] })}
      >
        Remove step
      </button>
    </form>
  );
}
