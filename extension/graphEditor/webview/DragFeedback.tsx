/**
 * During a wire drag: the ports of another dtype are marked as not fitting (a style rule for this
 * drag; the handles carry their dtype as a class), and a hint says which ones fit.
 */
import type { Dragging } from './hooks/useDragFeedback.js';

export function DragFeedback({ dragging }: { dragging: Dragging }) {
  const other = dragging.from === 'source' ? 'target' : 'source';
  const dtype = dragging.dtype.replace(/[^A-Z0-9_]/gi, '');
  return (
    <>
      <style>{`.react-flow__handle.${other}:not(.dtype-${dtype}) { opacity: 0.35; box-shadow: 0 0 0 3px var(--ts-refuse); cursor: not-allowed; }
.react-flow__handle.${other}.dtype-${dtype} { box-shadow: 0 0 0 3px var(--vscode-focusBorder); }`}</style>
      <div className="drag-hint" role="status">
        {dragging.from === 'source'
          ? `A ${dtype} output: only ${dtype} inputs fit (the others are dimmed).`
          : `A ${dtype} input: only ${dtype} outputs fit (the others are dimmed).`}
      </div>
    </>
  );
}
