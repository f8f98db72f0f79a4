/**
 * The messages between the graph editor's provider (extension host) and its webview. Types only
 * (and no VS Code), so the webview bundle shares them without pulling in host code.
 */
import type { NodePosition, Step } from '../../generator/index.js';
import type { GraphModel, ProblemView } from './host/graphModel.js';
import type { GraphEdit } from './host/textEdits.js';

/** A step the palette offers: a preset, or a step of a sample pipeline. */
export interface PaletteItem {
  id: string;
  group: string;
  label: string;
  detail: string;
  step: Step;
}

/** What the side form needs from the JSON Schema, so its inputs carry the schema's constraints. */
export interface FormSchema {
  kinds: string[];
  instanceKinds: string[];
  presets: { id: string; kind: string; title: string }[];
}

export type HostMessage =
  | {
      type: 'document';
      /** The text document's version this model was computed from. */
      version: number;
      /** A pipeline: the graph to show. */
      model?: GraphModel;
      /** Not a pipeline now: why (the webview keeps the last good graph under a banner). */
      invalid?: ProblemView[];
    }
  /** A wire the validator refuses, with its reasons. */
  | { type: 'refused'; from: string; to: string; reasons: string[] }
  /** An edit the provider could not make (a name taken…). */
  | { type: 'editFailed'; message: string }
  /** The text editor's cursor is on this element: select it. */
  | { type: 'select'; node?: string; wire?: number };

export type WebviewMessage =
  /** The page is listening; `version`: the one it was made with (a reloaded page may be behind). */
  | { type: 'ready'; version: number }
  /** `sentAt`: Date.now() at the user's gesture (for the graph edit → text measurement). */
  | { type: 'edit'; edit: GraphEdit; sentAt: number }
  | { type: 'addWire'; from: string; to: string; sentAt: number }
  /** Add a palette item; the provider picks a free name. */
  | { type: 'addFromPalette'; item: string; position?: NodePosition; sentAt: number }
  /** Open a step's TypeScript module (`hooks` / `source`, relative to the pipeline file) beside. */
  | { type: 'openModule'; ref: string }
  /** Show this range in the text editor. */
  | { type: 'reveal'; range: ProblemView['range'] }
  /** A model was drawn and painted (`paintedAt`: Date.now() after the frame). */
  | {
      type: 'rendered';
      version: number;
      paintedAt: number;
      nodes: number;
      edges: number;
      banner: boolean;
      /** Date.now() at the webview's stages for this version (where the time goes; see docs/BENCHMARKS.md). */
      marks: Record<string, number>;
    };
