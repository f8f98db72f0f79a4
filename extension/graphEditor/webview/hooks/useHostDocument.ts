/**
 * The provider's side of the page: the document's graph (or, for a text that is no pipeline now,
 * why), refusals and failed edits as notices, and the text cursor's element as the selection.
 * Tells the provider once it listens.
 */
import { useEffect, useState, type Dispatch, type SetStateAction } from 'react';
import type { GraphModel, ProblemView } from '../../host/graphModel.js';
import type { HostMessage } from '../../messages.js';
import type { InitialPage } from '../initialPage.js';
import type { RenderMarks } from '../renderMarks.js';
import type { Notice, Selection } from '../selection.js';
import { post } from '../vscodeApi.js';

export function useHostDocument(
  initial: InitialPage | null,
  marks: RenderMarks,
  setNotice: (n: Notice) => void,
  setSelected: Dispatch<SetStateAction<Selection>>,
) {
  const [model, setModel] = useState<GraphModel | undefined>(initial?.document.model);
  const [version, setVersion] = useState(initial?.document.version ?? -1);
  const [invalid, setInvalid] = useState<ProblemView[] | undefined>(initial?.document.invalid);

  useEffect(() => {
    const onMessage = (e: MessageEvent<HostMessage>) => {
      const m = e.data;
      switch (m.type) {
        case 'document':
          marks.documentReceived();
          setVersion(m.version);
          if (m.model) {
            setModel(m.model);
            setInvalid(undefined);
          } else setInvalid(m.invalid ?? []);
          return;
        case 'refused':
          setNotice({ kind: 'refused', text: `Wire ${m.from} → ${m.to} refused: ${m.reasons.join(' ')}` });
          return;
        case 'editFailed':
          setNotice({ kind: 'failed', text: m.message });
          return;
        case 'select':
          if (m.node) setSelected({ nodes: [m.node], wires: [] });
          else if (m.wire !== undefined) setSelected({ nodes: [], wires: [`wire:${m.wire}`] });
          return;
      }
    };
    window.addEventListener('message', onMessage);
    marks.set('ready');
    post({ type: 'ready', version: initial?.document.version ?? -1 });
    return () => window.removeEventListener('message', onMessage);
    // Once: the setters and the marks are stable, the initial page does not change.
  }, []);

  return { model, version, invalid };
}
