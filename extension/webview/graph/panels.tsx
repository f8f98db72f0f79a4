/**
 * The editor's side panels: the palette (presets, sample steps, blank steps), the selected
 * step's properties form (inputs carry the schema's constraints: enums as selects, minimums on
 * numbers, name pattern), a wire's details, and the problem list.
 */
import { useEffect, useState, type KeyboardEvent } from 'react';
import type { Step } from '../../../generator/index.js';
import type { GraphModel, ProblemView, StepNodeView, WireView } from '../../graphEditor/graphModel.js';
import type { FormSchema, PaletteItem } from '../../graphEditor/messages.js';
import type { GraphEdit } from '../../graphEditor/textEdits.js';
import { dimsText } from './geometry.js';

/** Triton model names (the schema's `modelName` pattern). */
const MODEL_NAME = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,127}$/;

export function Palette({
  items,
  onAdd,
  onClose,
}: {
  items: PaletteItem[];
  onAdd: (id: string) => void;
  onClose: () => void;
}) {
  const [filter, setFilter] = useState('');
  const shown = items.filter((i) =>
    `${i.group} ${i.label} ${i.detail}`.toLowerCase().includes(filter.toLowerCase()),
  );
  const groups = [...new Set(shown.map((i) => i.group))];
  return (
    <div
      className="palette"
      role="dialog"
      aria-label="Add a step"
      onKeyDown={(e) => e.key === 'Escape' && onClose()}
    >
      <input
        autoFocus
        className="palette-filter"
        placeholder="Filter presets and samples"
        aria-label="Filter presets and samples"
        value={filter}
        onChange={(e) => setFilter(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && shown[0]) onAdd(shown[0].id);
        }}
      />
      <div className="palette-list" role="listbox" aria-label="Steps to add">
        {groups.map((g) => (
          <div key={g} className="palette-group" role="group" aria-label={g}>
            <div className="palette-group-title">{g}</div>
            {shown
              .filter((i) => i.group === g)
              .map((i) => (
                <button
                  key={i.id}
                  className="palette-item"
                  role="option"
                  aria-selected={false}
                  title={i.detail}
                  data-item={i.id}
                  onClick={() => onAdd(i.id)}
                >
                  <span className="palette-label">{i.label}</span>
                  <span className="palette-detail">{i.detail}</span>
                </button>
              ))}
          </div>
        ))}
      </div>
    </div>
  );
}

export function ProblemList({
  problems,
  onPick,
}: {
  problems: ProblemView[];
  onPick: (p: ProblemView) => void;
}) {
  return (
    <ul className="problem-list" aria-label="Problems">
      {problems.map((p, i) => (
        <li key={i}>
          <button className={`problem ${p.severity}`} onClick={() => onPick(p)} data-code={p.code}>
            <span className="problem-code">{p.code}</span> {p.message}
            <span className="problem-where"> (line {p.range.start.line + 1})</span>
          </button>
        </li>
      ))}
    </ul>
  );
}

type Edit = (edit: GraphEdit) => void;

/** A text input that commits on Enter or leaving it, and can refuse a value with a reason. */
function TextField({
  label,
  value,
  placeholder,
  onCommit,
  check,
  name,
}: {
  label: string;
  value: string;
  placeholder?: string;
  onCommit: (v: string) => void;
  check?: (v: string) => string | undefined;
  name: string;
}) {
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  const error = check?.(text);
  const commit = () => {
    if (text !== value && !error) onCommit(text);
  };
  return (
    <label className="field">
      <span>{label}</span>
      <input
        name={name}
        value={text}
        placeholder={placeholder}
        aria-invalid={error ? true : undefined}
        onChange={(e) => setText(e.target.value)}
        onBlur={commit}
        onKeyDown={(e: KeyboardEvent) => {
          if (e.key === 'Enter') commit();
          if (e.key === 'Escape') setText(value);
        }}
      />
      {error ? (
        <span className="field-error" role="alert">
          {error}
        </span>
      ) : null}
    </label>
  );
}

function NumberField({
  label,
  value,
  placeholder,
  min,
  onCommit,
  name,
}: {
  label: string;
  value: number | undefined;
  placeholder?: string;
  min: number;
  onCommit: (v: number | undefined) => void;
  name: string;
}) {
  return (
    <TextField
      label={label}
      name={name}
      value={value === undefined ? '' : String(value)}
      placeholder={placeholder}
      check={(v) =>
        v === '' || (Number.isInteger(Number(v)) && Number(v) >= min) ? undefined : `A whole number ≥ ${min}.`
      }
      onCommit={(v) => onCommit(v === '' ? undefined : Number(v))}
    />
  );
}

/** The schema's "hooks"/"source": a non-empty path (relative to the pipeline file) of a TypeScript module. */
const moduleCheck = (v: string) =>
  v === '' || /\.ts$/.test(v.trim()) ? undefined : 'The path of a .ts module, relative to the pipeline file.';

/** A step's TypeScript module: its path (empty removes it) and a button that opens it beside. */
function ModuleField({
  label,
  name,
  value,
  placeholder,
  onCommit,
  onOpen,
}: {
  label: string;
  name: 'hooks' | 'source';
  value: string;
  placeholder: string;
  onCommit: (v: string | undefined) => void;
  onOpen: (ref: string) => void;
}) {
  return (
    <div className="row module-field">
      <TextField
        label={label}
        name={name}
        value={value}
        placeholder={placeholder}
        check={moduleCheck}
        onCommit={(v) => onCommit(v.trim() || undefined)}
      />
      <button
        type="button"
        name={`open-${name}`}
        disabled={!value}
        title={value ? `Open ${value} beside (its ports follow each save)` : 'Give a path first'}
        onClick={() => onOpen(value)}
      >
        Open
      </button>
    </div>
  );
}

export function StepForm({
  step,
  schema,
  onEdit,
  onOpenModule,
}: {
  step: StepNodeView;
  schema: FormSchema;
  onEdit: Edit;
  onOpenModule: (ref: string) => void;
}) {
  const own = step.own;
  const set = (field: keyof Step, value: unknown) =>
    onEdit({ op: 'setStepField', name: step.name, field, value });
  const native = own.kind === 'tokenize' || own.kind === 'detokenize';
  const dyn = own.dynamicBatching;
  const dynObj = typeof dyn === 'object' ? dyn : {};
  const batchingOn = dyn === undefined ? step.dynamicBatching !== undefined : dyn !== false;
  const groups = own.instanceGroups ?? [];
  const params = Object.entries(own.parameters ?? {});
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
                {schema.instanceKinds.map((k) => (
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
      <TextField
        label="Description"
        name="description"
        value={own.description ?? ''}
        onCommit={(v) => set('description', v || undefined)}
      />
      <fieldset>
        <legend>Ports</legend>
        <div className="hint">
          Port names, dtypes and dims are edited in the text (or come from the preset).
        </div>
        <table className="ports">
          <tbody>
            {[
              ...step.inputs.map((p) => ['in', p] as const),
              ...step.outputs.map((p) => ['out', p] as const),
            ].map(([side, p]) => (
              <tr key={`${side}${p.name}`}>
                <td>{side === 'in' ? '→' : '←'}</td>
                <td>
                  {p.name}
                  {p.optional ? '?' : ''}
                  {p.fromModule ? <span className="module-mark">ts</span> : null}
                </td>
                <td className={`dtype-${p.dataType}`}>{p.dataType}</td>
                <td>{dimsText(p.dims)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </fieldset>
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

function NewParameter({ onAdd, taken }: { onAdd: (k: string, v: string) => void; taken: string[] }) {
  const [key, setKey] = useState('');
  const [value, setValue] = useState('');
  const error = key && taken.includes(key) ? 'Already set.' : undefined;
  return (
    <div className="row">
      <input
        aria-label="New parameter name"
        placeholder="name"
        value={key}
        onChange={(e) => setKey(e.target.value)}
      />
      <input
        aria-label="New parameter value"
        placeholder="value"
        value={value}
        onChange={(e) => setValue(e.target.value)}
      />
      <button
        type="button"
        disabled={!key || !!error}
        onClick={() => {
          onAdd(key, value);
          setKey('');
          setValue('');
        }}
      >
        Add
      </button>
    </div>
  );
}

export function WireInfo({ wire, model, onEdit }: { wire: WireView; model: GraphModel; onEdit: Edit }) {
  const problems = model.problems.filter((p) => p.wire === wire.index);
  return (
    <div className="wire-info" aria-label={`Wire from ${wire.from} to ${wire.to}`}>
      <h2>Wire</h2>
      <div>
        {wire.from} → {wire.to}
      </div>
      {wire.tensor ? <div>tensor {wire.tensor}</div> : null}
      {problems.map((p, i) => (
        <div key={i} className={`problem ${p.severity}`}>
          {p.code}: {p.message}
        </div>
      ))}
      <button
        type="button"
        className="danger"
        onClick={() => onEdit({ op: 'removeWires', indices: [wire.index] })}
      >
        Remove wire
      </button>
    </div>
  );
}

function cleanObject<T extends object>(o: T): T | undefined {
  const entries = Object.entries(o).filter(([, v]) => v !== undefined);
  return entries.length ? (Object.fromEntries(entries) as T) : undefined;
}
