/** The graph editor webview's entry (scripts/bundle.mjs → out/webview/graph.{js,css}). */
import { ReactFlowProvider } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import './graph.css';
import { readInitialPage } from './initialPage.js';

createRoot(document.getElementById('root')!).render(
  <ReactFlowProvider>
    <App initial={readInitialPage()} />
  </ReactFlowProvider>,
);
