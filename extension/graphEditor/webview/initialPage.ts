/**
 * What the provider put into the page (the first version's graph, the palette, the form's schema),
 * so nothing waits for a round trip; and when the script started, for the render marks.
 */
import type { FormSchema, HostMessage, PaletteItem } from '../messages.js';

export interface InitialPage {
  init: { palette: PaletteItem[]; schema: FormSchema };
  document: Extract<HostMessage, { type: 'document' }>;
}

export const SCRIPT_START = Date.now();

/** extension/webview/html.ts puts the page's data in `<script type="application/json" id="data">`. */
export function readInitialPage(): InitialPage | null {
  return JSON.parse(document.getElementById('data')?.textContent ?? 'null') as InitialPage | null;
}
