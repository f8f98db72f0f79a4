/** What is selected on the canvas: node ids and wire ids (`wire:N`). */
export interface Selection {
  nodes: string[];
  wires: string[];
}

/** A message in the bar under the toolbar: a refused wire, or an edit that could not be made. */
export interface Notice {
  kind: 'refused' | 'failed';
  text: string;
}
