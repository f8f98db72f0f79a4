/**
 * The graph editor: a custom text editor over `*.pipeline.json` (VS Code's custom-editor model:
 * the text document is the one source of truth, the webview a view of it). Every graph edit
 * becomes a minimal WorkspaceEdit of the text, so undo/redo, dirty state, save and hand edits are
 * VS Code's own; every text change (a keystroke, an undo, a git checkout) redraws the graph.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import {
  PIPELINE_SCHEMA_PATH,
  newWireErrors,
  stepModulePath,
  type Pipeline,
  type EnvironmentOptions,
} from '../../../generator/index.js';
import { buildGraphModel, elementAt, type ProblemView } from './graphModel.js';
import type { HostMessage, PaletteItem, WebviewMessage } from '../messages.js';
import { formSchema, freeStepName, paletteItems } from './palette.js';
import { GraphEditError, graphEditToTextEdits, type GraphEdit } from './textEdits.js';
import { escapeHtml, webviewHtml } from '../../webview/html.js';
import { notify } from '../../commands/ui.js';

export const GRAPH_EDITOR_VIEW_TYPE = 'tritonStudio.graphEditor';
export const OPEN_GRAPH_EDITOR_COMMAND = 'tritonStudio.openGraphEditor';
/** Not in the palette: what tests (and curious users) read about an open graph editor. */
export const GRAPH_EDITOR_STATE_COMMAND = 'tritonStudio.graphEditor.state';

/** What an open graph editor last showed, and how fast; see GRAPH_EDITOR_STATE_COMMAND. */
export interface GraphEditorState {
  /** Document version of the last model sent, and of the last one the webview painted. */
  sentVersion: number;
  rendered?: Extract<WebviewMessage, { type: 'rendered' }>;
  /** ms from resolveCustomTextEditor to the first painted graph. */
  openMs?: number;
  /** ms from the webview's gesture to the text change, for the last graph edit. */
  lastEditToTextMs?: number;
  /** Reasons of the last refused wire. */
  lastRefusal?: string[];
  /** Date.now() at the host's stages: the editor resolved, the webview ready, the last model built and sent. */
  marks: { resolvedAt?: number; readyAt?: number; buildStartAt?: number; sentAt?: number };
}

interface Session {
  document: vscode.TextDocument;
  panel: vscode.WebviewPanel;
  pipeline?: Pipeline;
  state: GraphEditorState;
  /** sentAt of graph edits whose text change has not arrived yet. */
  pendingEdits: number[];
}

/**
 * The custom editor. Its two commands (OPEN_GRAPH_EDITOR_COMMAND, GRAPH_EDITOR_STATE_COMMAND) are
 * in the command table (commands/index.ts) like every other; `onState` receives the state query
 * the second one answers.
 */
export function registerGraphEditor(
  context: vscode.ExtensionContext,
  lookups: EnvironmentOptions = {},
  onState: (query: (uri?: vscode.Uri) => GraphEditorState | undefined) => void = () => {},
): vscode.Disposable {
  const provider = new GraphEditorProvider(context.extensionUri, lookups);
  onState((uri) => provider.state(uri));
  return vscode.Disposable.from(
    vscode.window.registerCustomEditorProvider(GRAPH_EDITOR_VIEW_TYPE, provider, {
      webviewOptions: { retainContextWhenHidden: true },
    }),
    provider,
  );
}

/** From the text editor (title-bar button, palette): the graph opens beside the text. */
export async function openGraphEditor(uri: unknown): Promise<void> {
  const active = vscode.window.activeTextEditor;
  const target = uri instanceof vscode.Uri ? uri : active?.document.uri;
  if (!target || !/\.pipeline\.json$/.test(target.path)) {
    void notify('error', 'Triton Studio: open a *.pipeline.json file first, then run "Open Graph Editor".');
    return;
  }
  const beside = active?.document.uri.toString() === target.toString();
  await vscode.commands.executeCommand(
    'vscode.openWith',
    target,
    GRAPH_EDITOR_VIEW_TYPE,
    beside ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active,
  );
}

class GraphEditorProvider implements vscode.CustomTextEditorProvider, vscode.Disposable {
  private readonly sessions = new Set<Session>();
  private palette?: PaletteItem[];
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly lookups: EnvironmentOptions,
  ) {
    this.subscriptions.push(
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length === 0) return;
        for (const s of this.sessions) {
          if (s.document !== e.document) continue;
          const sentAt = s.pendingEdits.shift();
          if (sentAt !== undefined) s.state.lastEditToTextMs = Date.now() - sentAt;
          this.update(s);
        }
      }),
      vscode.window.onDidChangeTextEditorSelection((e) => this.followCursor(e)),
      vscode.workspace.onDidSaveTextDocument((d) => this.moduleSaved(d)),
    );
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
  }

  state(uri: vscode.Uri | undefined): GraphEditorState | undefined {
    const sessions = [...this.sessions];
    // The newest editor of that document (an older one may still be closing).
    const s = (uri ? sessions.filter((x) => x.document.uri.toString() === uri.toString()) : sessions).at(-1);
    return s && structuredClone(s.state);
  }

  resolveCustomTextEditor(document: vscode.TextDocument, panel: vscode.WebviewPanel): void {
    const openedAt = Date.now();
    const webviewRoot = vscode.Uri.joinPath(this.extensionUri, 'out', 'webview');
    panel.webview.options = { enableScripts: true, localResourceRoots: [webviewRoot] };
    const session: Session = {
      document,
      panel,
      state: { sentVersion: -1, marks: { resolvedAt: openedAt } },
      pendingEdits: [],
    };
    // The first graph and the palette travel in the page itself: it draws without a round trip.
    this.palette ??= paletteItems(join(this.extensionUri.fsPath, 'samples'));
    const initial = {
      init: { palette: this.palette, schema: formSchema(this.schema()) },
      document: this.documentMessage(session),
    };
    panel.webview.html = this.html(panel.webview, webviewRoot, initial);
    this.sessions.add(session);
    panel.onDidDispose(() => this.sessions.delete(session));
    panel.webview.onDidReceiveMessage((m: WebviewMessage) => {
      void this.receive(session, m, openedAt).catch((e: unknown) =>
        this.post(session, { type: 'editFailed', message: e instanceof Error ? e.message : String(e) }),
      );
    });
  }

  private post(s: Session, m: HostMessage): void {
    void s.panel.webview.postMessage(m);
  }

  /** Recomputes the graph from the text and sends it (or, for a text that is no pipeline, why). */
  private update(s: Session): void {
    this.post(s, this.documentMessage(s));
    s.state.marks.sentAt = Date.now();
  }

  private documentMessage(s: Session): Extract<HostMessage, { type: 'document' }> {
    const version = s.document.version;
    s.state.marks.buildStartAt = Date.now();
    let built: ReturnType<typeof buildGraphModel>;
    try {
      built = buildGraphModel(s.document.getText(), s.document.uri.fsPath, this.lookups);
    } catch (e) {
      built = { ok: false, problems: [internalProblem(e)] };
    }
    s.state.sentVersion = version;
    s.pipeline = built.ok ? built.pipeline : undefined;
    return built.ok
      ? { type: 'document', version, model: built.model }
      : { type: 'document', version, invalid: built.problems };
  }

  private async receive(s: Session, m: WebviewMessage, openedAt: number): Promise<void> {
    switch (m.type) {
      case 'ready':
        s.state.marks.readyAt = Date.now();
        // The page holds the version it was made with (VS Code reloads a moved webview from the
        // same html): anything newer follows.
        if (m.version !== s.document.version) this.update(s);
        return;
      case 'rendered':
        s.state.rendered = m;
        if (s.state.openMs === undefined && !m.banner) s.state.openMs = m.paintedAt - openedAt;
        return;
      case 'reveal':
        await this.reveal(s, m.range);
        return;
      case 'openModule':
        await this.openModule(s, m.ref);
        return;
      case 'addWire': {
        if (!s.pipeline) return this.paused(s);
        const reasons = newWireErrors(s.pipeline, { from: m.from, to: m.to }, s.document.uri.fsPath).map(
          (d) => d.message,
        );
        if (reasons.length > 0) {
          s.state.lastRefusal = reasons;
          this.post(s, { type: 'refused', from: m.from, to: m.to, reasons });
          return;
        }
        await this.edit(s, { op: 'addWire', from: m.from, to: m.to }, m.sentAt);
        return;
      }
      case 'addFromPalette': {
        if (!s.pipeline) return this.paused(s);
        const item = this.palette?.find((p) => p.id === m.item);
        if (!item) return;
        const step = { ...structuredClone(item.step), name: freeStepName(s.pipeline, item.step.name) };
        await this.edit(s, { op: 'addStep', step, position: m.position }, m.sentAt);
        return;
      }
      case 'edit':
        if (!s.pipeline) return this.paused(s);
        await this.edit(s, m.edit, m.sentAt);
        return;
    }
  }

  private paused(s: Session): void {
    this.post(s, {
      type: 'editFailed',
      message:
        'The text is not a valid pipeline right now; fix it (see the banner) before editing the graph.',
    });
  }

  private async edit(s: Session, edit: GraphEdit, sentAt: number): Promise<void> {
    const text = s.document.getText();
    let edits;
    try {
      edits = graphEditToTextEdits(text, s.pipeline!, edit);
    } catch (e) {
      if (e instanceof GraphEditError) return this.post(s, { type: 'editFailed', message: e.message });
      throw e;
    }
    if (edits.length === 0) return;
    const workspaceEdit = new vscode.WorkspaceEdit();
    for (const e of edits) {
      const range = new vscode.Range(
        s.document.positionAt(e.offset),
        s.document.positionAt(e.offset + e.length),
      );
      workspaceEdit.replace(s.document.uri, range, e.newText);
    }
    s.pendingEdits.push(sentAt);
    if (!(await vscode.workspace.applyEdit(workspaceEdit))) {
      s.pendingEdits.pop();
      this.post(s, {
        type: 'editFailed',
        message: 'VS Code did not apply the edit (is the file read-only?).',
      });
    }
  }

  /** Selects the range in a text editor of the document (the one beside, else a new one beside). */
  private async reveal(s: Session, range: ProblemView['range']): Promise<void> {
    const selection = new vscode.Range(
      range.start.line,
      range.start.column,
      range.end.line,
      range.end.column,
    );
    const visible = vscode.window.visibleTextEditors.find((e) => e.document === s.document);
    const editor = await vscode.window.showTextDocument(s.document, {
      viewColumn: visible?.viewColumn ?? vscode.ViewColumn.Beside,
      preserveFocus: true,
      selection,
    });
    editor.revealRange(selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  /** A step's TypeScript module beside the graph; one that does not exist yet opens as a new file there. */
  private async openModule(s: Session, ref: string): Promise<void> {
    const { path } = stepModulePath(ref, s.document.uri.fsPath);
    const uri = vscode.Uri.file(path);
    const exists = await vscode.workspace.fs.stat(uri).then(
      () => true,
      () => false,
    );
    await vscode.window.showTextDocument(exists ? uri : uri.with({ scheme: 'untitled' }), {
      viewColumn: vscode.ViewColumn.Beside,
    });
  }

  /** A saved TypeScript module may change the ports of the steps that name it: redraw those graphs. */
  private moduleSaved(doc: vscode.TextDocument): void {
    if (!doc.uri.fsPath.endsWith('.ts')) return;
    for (const s of this.sessions) {
      const file = s.document.uri.fsPath;
      const named = s.pipeline?.steps.some((step) =>
        [step.hooks, step.source].some((ref) => ref && stepModulePath(ref, file).path === doc.uri.fsPath),
      );
      if (named) this.update(s);
    }
  }

  /** The text editor's cursor moved onto a step, port or wire: the graph selects it too. */
  private followCursor(e: vscode.TextEditorSelectionChangeEvent): void {
    for (const s of this.sessions) {
      if (e.textEditor.document !== s.document || !s.pipeline) continue;
      const at = elementAt(s.document.getText(), s.document.offsetAt(e.selections[0]!.active), s.pipeline);
      if (at) this.post(s, { type: 'select', ...at });
    }
  }

  private schema(): unknown {
    return JSON.parse(readFileSync(join(this.extensionUri.fsPath, PIPELINE_SCHEMA_PATH), 'utf8'));
  }

  /** The page (extension/webview/html.ts, as every webview): the app's bundle, its style, the first graph. */
  private html(webview: vscode.Webview, root: vscode.Uri, initial: unknown): string {
    const elkWorker = webview.asWebviewUri(vscode.Uri.joinPath(root, 'elk-worker.min.js'));
    return webviewHtml(webview, {
      title: 'Pipeline graph',
      body: `<div id="root" data-elk-worker="${escapeHtml(elkWorker.toString())}"></div>`,
      data: initial,
      scripts: [webview.asWebviewUri(vscode.Uri.joinPath(root, 'graph.js'))],
      stylesheets: [webview.asWebviewUri(vscode.Uri.joinPath(root, 'graph.css'))],
      baseStyle: false,
      // ELK's layout worker.
      workers: true,
    });
  }
}

function internalProblem(e: unknown): ProblemView {
  return {
    severity: 'error',
    code: 'TS-E000',
    message: `Triton Studio could not read this pipeline: ${e instanceof Error ? e.message : String(e)}`,
    range: { start: { line: 0, column: 0 }, end: { line: 0, column: 0 } },
  };
}
