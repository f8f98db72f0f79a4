/**
 * The graph editor in the real workbench, readable in light, dark and both high-contrast themes
 * (WCAG AA contrast). Screenshots land in the workbench folder (docs/images/ keeps the good ones).
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ContrastFailure } from '../contrast.js';
import { workbench } from './workbench.js';
import { painted, openGraph, graphEditorFiles } from './graphEditorFixture.js';

describe('Triton Studio graph editor: themes', () => {
  const { editFile } = graphEditorFiles();

  it('reads in light, dark and both high-contrast themes: every text at least 4.5:1 (WCAG AA), the side form too', async () => {
    const config = vscode.workspace.getConfiguration('workbench');
    const doc = await openGraph(vscode.Uri.file(editFile));
    const failures: string[] = [];
    const contrast = async (theme: string, selector: string) => {
      const measured = await workbench<{ checked: number; failures: ContrastFailure[] }>({
        kind: 'webviewContrast',
        selector,
        minimum: 4.5,
      });
      assert.ok(measured.checked > 5, `${theme}: only ${measured.checked} texts under ${selector}`);
      for (const f of measured.failures)
        failures.push(`${theme}: "${f.text}" ${f.ratio}:1 (${f.color} on ${f.background}) at ${f.where}`);
    };
    try {
      for (const [theme, name] of [
        ['Default Light Modern', 'graph-theme-light'],
        ['Default Dark Modern', 'graph-theme-dark'],
        ['Default High Contrast', 'graph-theme-high-contrast'],
        ['Default High Contrast Light', 'graph-theme-high-contrast-light'],
      ] as const) {
        await config.update('colorTheme', theme, vscode.ConfigurationTarget.Global);
        await new Promise((r) => setTimeout(r, 1_500));
        await painted(doc);
        await workbench({ kind: 'screenshot', name });
        await contrast(theme, '.app');
        await workbench({ kind: 'webviewClick', selector: '[data-node="step:preprocessing"] .node-name' });
        await workbench({ kind: 'webviewWaitFor', selector: '.side .step-form' });
        await contrast(theme, '.side');
        // An empty corner of the canvas: nothing selected, the side form closes.
        await workbench({ kind: 'webviewClick', selector: '.react-flow__pane', position: { x: 6, y: 6 } });
        await workbench({ kind: 'webviewGone', selector: '.side' });
      }
    } finally {
      await config.update('colorTheme', undefined, vscode.ConfigurationTarget.Global);
    }
    assert.deepEqual(failures, []);
  });
});
