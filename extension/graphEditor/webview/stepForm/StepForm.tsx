/**
 * The selected step's properties form. Inputs carry the schema's constraints (enums as selects,
 * minimums on numbers, the name pattern); each committed field becomes one edit of the text.
 */
import type { StepNodeView } from '../../host/graphModel.js';
import type { GraphEdit } from '../../host/textEdits.js';
import type { FormSchema } from '../../messages.js';
import { DynamicBatchingFields } from './DynamicBatchingFields.js';
import { InstanceGroupFields } from './InstanceGroupFields.js';
import { ModuleField } from './ModuleField.js';
import { NumberField } from './NumberField.js';
import { ParameterFields } from './ParameterFields.js';
import { PortTable } from './PortTable.js';
import { TextField } from './TextField.js';
import type { SetField } from './types.js';

/** Triton model names (the schema's `modelName` pattern). */
const MODEL_NAME = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,127}$/;

export function StepForm({
  step,
  schema,
  onEdit,
  onOpenModule,
}: {
  step: StepNodeView;
  schema: FormSchema;
  onEdit: (edit: GraphEdit) => void;
  onOpenModule: (ref: string) => void;
}) {
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
