/**
 * What the graph editor's palette offers: every preset, the steps of the sample pipelines that
 * ship with the extension, and blank steps; and the free name a new step gets. No VS Code.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { listPresets, type Pipeline, type Step } from '../../../generator/index.js';
import type { FormSchema, PaletteItem } from '../messages.js';

export function paletteItems(samplesDir: string | undefined): PaletteItem[] {
  const presets = listPresets().map((p): PaletteItem => ({
    id: `preset:${p.id}`,
    group: `Preset · ${p.id.split('/')[0]}`,
    label: p.id.split('/')[1] ?? p.id,
    detail: p.title,
    step: { name: p.id.split('/')[1] ?? 'step', kind: p.kind, preset: p.id },
  }));
  const blank: PaletteItem[] = [
    {
      id: 'blank:model',
      group: 'Blank',
      label: 'model step',
      detail: 'A model step with no ports yet: give it a backend and ports in the side form or the text.',
      step: { name: 'model', kind: 'model', backend: 'onnxruntime', inputs: [], outputs: [] },
    },
    {
      id: 'blank:custom',
      group: 'Blank',
      label: 'custom step (TypeScript)',
      detail:
        "A step written in TypeScript: its module's Row and output types become its ports (open it from the side form; docs/HOOKS.md).",
      step: { name: 'custom', kind: 'custom', source: 'steps/custom.ts' },
    },
  ];
  return [...presets, ...samplePaletteItems(samplesDir), ...blank];
}

function samplePaletteItems(samplesDir: string | undefined): PaletteItem[] {
  if (!samplesDir) return [];
  const items: PaletteItem[] = [];
  let folders: string[];
  try {
    folders = readdirSync(samplesDir).sort();
  } catch {
    return []; // an installed extension may ship without samples
  }
  for (const folder of folders) {
    let files: string[];
    try {
      files = readdirSync(join(samplesDir, folder)).filter((f) => f.endsWith('.pipeline.json'));
    } catch {
      continue;
    }
    for (const file of files.sort()) {
      let pipeline: Pipeline;
      try {
        pipeline = JSON.parse(readFileSync(join(samplesDir, folder, file), 'utf8')) as Pipeline;
      } catch {
        continue;
      }
      const sample = file.replace(/\.pipeline\.json$/, '');
      for (const step of pipeline.steps ?? []) {
        items.push({
          id: `sample:${sample}/${step.name}`,
          group: `Sample · ${sample}`,
          label: step.name,
          detail: step.description ?? `${step.kind} step${step.preset ? ` (${step.preset})` : ''} of ${file}`,
          // Paths in a sample (tokenizers, files) are relative to its folder: a copy elsewhere keeps names only.
          step: withoutRelativePaths(step),
        });
      }
    }
  }
  return items;
}

function withoutRelativePaths(step: Step): Step {
  const copy: Step = structuredClone(step);
  delete copy.files;
  if (copy.tokenizer && /[/\\]/.test(copy.tokenizer)) delete copy.tokenizer;
  return copy;
}

/** `base`, else `base_2`, `base_3`… whichever no step (nor the ensemble) is named yet. */
export function freeStepName(pipeline: Pipeline, base: string): string {
  const taken = new Set([pipeline.name, ...pipeline.steps.map((s) => s.name)]);
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}_${n}`)) return `${base}_${n}`;
}

/** The schema's enums the side form offers (so it cannot produce a value the schema rejects). */
export function formSchema(schema: unknown): FormSchema {
  const defs = (
    schema as { definitions: Record<string, { properties: Record<string, { enum?: string[] }> }> }
  ).definitions;
  return {
    kinds: defs.step?.properties.kind?.enum ?? [],
    instanceKinds: defs.instanceGroup?.properties.kind?.enum ?? [],
    presets: listPresets().map((p) => ({ id: p.id, kind: p.kind, title: p.title })),
  };
}
