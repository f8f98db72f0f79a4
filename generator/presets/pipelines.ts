/**
 * Whole pipelines from the preset list: a family's presets (`tensorrt-llm/…`, `sim-llm/…`) in
 * order tokenize → model → detokenize, wired the way the family's own ensemble wires them. What
 * "New Pipeline from a preset" writes; the result is an ordinary pipeline file to edit on.
 *
 * Wires are derived, not listed per family: each required input takes the output of an earlier
 * step with the same data type and the most name words in common (`input_lengths` ←
 * `REQUEST_INPUT_LEN`), else the only one of the same type and shape (`TOKENS_BATCH` ←
 * `output_ids`); what no step produces becomes an ensemble input, named by its role where the
 * prompt client expects a name (`text_input`, `max_tokens`). Optional inputs stay unwired.
 */
import {
  PIPELINE_FORMAT_VERSION,
  type Pipeline,
  type Port,
  type Step,
  type StepKind,
  type Wire,
} from '../pipeline/types.js';
import { listPresets, type Preset } from './index.js';

const KIND_ORDER: StepKind[] = ['tokenize', 'model', 'custom', 'detokenize'];

/** Ensemble tensor names for tokenize inputs / detokenize outputs of these roles (client/prompt.ts). */
const ENSEMBLE_NAME_OF_ROLE: Record<string, string> = {
  text: 'text_input',
  requestOutputLen: 'max_tokens',
};
const TEXT_OUTPUT = 'text_output';

export interface PresetFamily {
  /** The part of the preset ids before `/`, e.g. `tensorrt-llm`. */
  id: string;
  /** The family's presets, in pipeline order. */
  presets: Preset[];
  /** One line: the steps it makes. */
  title: string;
  /** Its tokenize/detokenize steps need a tokenizer. */
  needsTokenizer: boolean;
}

export function presetFamilies(): PresetFamily[] {
  const byFamily = new Map<string, Preset[]>();
  for (const preset of listPresets()) {
    const family = preset.id.split('/')[0]!;
    byFamily.set(family, [...(byFamily.get(family) ?? []), preset]);
  }
  return [...byFamily].map(([id, presets]) => {
    const ordered = [...presets].sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind));
    return {
      id,
      presets: ordered,
      title: ordered.map((p) => `${stepName(p)} (${p.kind})`).join(' → '),
      needsTokenizer: ordered.some((p) => p.kind === 'tokenize' || p.kind === 'detokenize'),
    };
  });
}

export interface PresetPipelineOptions {
  /** Ensemble name; default the family's id with `_` for `-`. */
  name?: string;
  /** The tokenize/detokenize steps' tokenizer (a known name such as `gpt2`, or a path). */
  tokenizer?: string;
}

/** The pipeline of a preset family; throws for an unknown family (the message lists them). */
export function pipelineFromPresets(familyId: string, options: PresetPipelineOptions = {}): Pipeline {
  const family = presetFamilies().find((f) => f.id === familyId);
  if (!family) {
    const known = presetFamilies()
      .map((f) => f.id)
      .join(', ');
    throw new Error(`no preset family '${familyId}': use one of ${known}`);
  }
  const steps: Step[] = family.presets.map((preset) => ({
    name: stepName(preset),
    kind: preset.kind,
    preset: preset.id,
    ...(options.tokenizer && (preset.kind === 'tokenize' || preset.kind === 'detokenize')
      ? { tokenizer: options.tokenizer }
      : {}),
  }));
  const inputs: Port[] = [];
  const outputs: Port[] = [];
  const wires: Wire[] = [];
  const produced: { step: string; port: Port }[] = [];
  family.presets.forEach((preset, i) => {
    const step = steps[i]!;
    for (const input of (preset.template.inputs ?? []).filter((p) => !p.optional)) {
      const from = producerOf(input, produced);
      if (from) {
        wires.push({ from: `${from.step}.${from.port.name}`, to: `${step.name}.${input.name}` });
        continue;
      }
      const name = (input.role && ENSEMBLE_NAME_OF_ROLE[input.role]) ?? input.name.toLowerCase();
      if (!inputs.some((p) => p.name === name))
        inputs.push({ name, dataType: input.dataType, dims: [...input.dims] });
      wires.push({ from: name, to: `${step.name}.${input.name}` });
    }
    for (const output of preset.template.outputs ?? []) produced.push({ step: step.name, port: output });
  });
  // The last step's outputs are the pipeline's: its text is `text_output`, as clients expect.
  const last = family.presets[family.presets.length - 1]!;
  for (const output of last.template.outputs ?? []) {
    const name =
      output.role === 'text' || output.name === TEXT_OUTPUT ? TEXT_OUTPUT : output.name.toLowerCase();
    outputs.push({ name, dataType: output.dataType, dims: [...output.dims] });
    wires.push({ from: `${stepName(last)}.${output.name}`, to: name });
  }
  // Batching as the steps batch: the smallest of theirs (0 when one step does not batch).
  const batches = family.presets.map((p) => p.template.maxBatchSize ?? 0);
  return {
    version: PIPELINE_FORMAT_VERSION,
    name: options.name ?? familyId.replace(/-/g, '_'),
    description: `From the ${familyId} presets: ${family.title}.`,
    maxBatchSize: Math.min(...batches),
    inputs,
    outputs,
    steps,
    wires,
  };
}

/** The step name a preset gets: its id after `/` (`preprocessing`, `model`…). */
function stepName(preset: Preset): string {
  return (preset.id.split('/')[1] ?? preset.kind).replace(/-/g, '_');
}

/** Words of a tensor name, so `REQUEST_INPUT_LEN` and `input_lengths` share `input` and `len`. */
function words(name: string): Set<string> {
  return new Set(
    name
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean)
      .map((w) => w.replace(/^length(s)?$/, 'len').replace(/s$/, '')),
  );
}

function producerOf(
  input: Port,
  produced: { step: string; port: Port }[],
): { step: string; port: Port } | undefined {
  const sameType = produced.filter((p) => p.port.dataType === input.dataType);
  const wanted = words(input.name);
  let best: { step: string; port: Port } | undefined;
  let bestScore = 0;
  for (const candidate of sameType) {
    const have = words(candidate.port.name);
    const common = [...wanted].filter((w) => have.has(w)).length;
    // Most words in common, then fewest words left over (INPUT_ID over REQUEST_INPUT_LEN for input_ids).
    const score = common === 0 ? 0 : common * 10 - (have.size - common);
    if (score > bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  if (best) return best;
  const sameShape = sameType.filter((p) => p.port.dims.join() === input.dims.join());
  return sameShape.length === 1 ? sameShape[0] : undefined;
}
