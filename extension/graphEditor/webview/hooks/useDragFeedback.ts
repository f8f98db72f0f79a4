/**
 * While a wire is being dragged: the dtype it carries, so the ports it cannot go to are marked
 * before the drop (DragFeedback.tsx). The drop itself still goes to the provider, whose validator
 * says exactly why a wire is refused.
 */
import type { OnConnectStart } from '@xyflow/react';
import { useCallback, useState } from 'react';
import type { GraphModel } from '../../host/graphModel.js';
import { portOfHandle, portsOf } from '../geometry.js';

export interface Dragging {
  dtype: string;
  /** The end the drag started from: a source (an output) looks for targets, and back. */
  from: 'source' | 'target';
}

export function useDragFeedback(model: GraphModel | undefined) {
  const [dragging, setDragging] = useState<Dragging>();
  const onConnectStart: OnConnectStart = useCallback(
    (_event, { nodeId, handleId, handleType }) => {
      const node = model?.nodes.find((n) => n.id === nodeId);
      if (!node || !handleType) return;
      const { inputs, outputs } = portsOf(node);
      const port = (handleType === 'source' ? outputs : inputs).find(
        (p) => p.name === portOfHandle(handleId),
      );
      if (port) setDragging({ dtype: port.dataType, from: handleType });
    },
    [model],
  );
  const onConnectEnd = useCallback(() => setDragging(undefined), []);
  return { dragging, onConnectStart, onConnectEnd };
}
