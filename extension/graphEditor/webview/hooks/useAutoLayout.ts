/**
 * Positions for the nodes the file stores none for: an instant layout now, ELK's from a worker
 * once the graph is on screen (fetching and starting its 1.6 MB worker would delay the first
 * paint). The first ELK layout is fitted into view.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { GraphModel } from '../../host/graphModel.js';
import { elkLayout, quickLayout, startElk, structureKey, type Elk, type Positions } from '../layout.js';
import { layoutKeyOf } from '../refs.js';

export type LayoutState = 'stored' | 'elk' | 'quick';

export function useAutoLayout(model: GraphModel | undefined, onScreen: boolean, fitView: () => void) {
  const elk = useRef<Promise<Elk>>(undefined);
  const elkFitted = useRef(false);
  // Laid out again when nodes or ports change, not for a new wire (nothing moves under the user).
  const key = useMemo(() => (model ? structureKey(model, { wires: false }) : ''), [model]);
  const needsLayout = !!model && model.nodes.some((n) => !model.layout[layoutKeyOf(n)]);
  const quick = useMemo(
    () => (model && needsLayout ? quickLayout(model) : undefined),
    // Positions depend on the structure only (the key), not on each new model object.
    [key, needsLayout],
  );
  const [laidOut, setLaidOut] = useState<{ key: string; positions: Positions }>();
  useEffect(() => {
    if (!onScreen || !model || !needsLayout || laidOut?.key === key) return;
    let live = true;
    elk.current ??= startElk();
    elkLayout(elk.current, model).then(
      (positions) => {
        if (!live) return;
        setLaidOut({ key, positions });
        if (!elkFitted.current) {
          elkFitted.current = true;
          requestAnimationFrame(fitView);
        }
      },
      (e: unknown) => console.error('ELK layout failed; keeping the quick layout', e),
    );
    return () => {
      live = false;
    };
  }, [key, needsLayout, onScreen]);
  const fromElk = laidOut?.key === key;
  // "quick" until ELK's layout has arrived (nodes may still move): the UI test waits it out.
  const state: LayoutState = !needsLayout ? 'stored' : fromElk ? 'elk' : 'quick';
  return { auto: fromElk ? laidOut.positions : quick, state };
}
