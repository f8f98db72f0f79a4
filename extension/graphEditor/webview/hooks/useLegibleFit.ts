/**
 * The view of the graph: fitted so that its text stays legible. The whole graph, centred, when it
 * fits at LEGIBLE_ZOOM or more; otherwise LEGIBLE_ZOOM, and along each direction it does not fit
 * in, starting where the graph starts (its inputs on the left, its first chain at the top), the
 * rest a pan away. Re-fitted when the canvas changes size; when a
 * node is selected (the side form opening narrows the canvas), that node is kept in view instead.
 */
import type { Edge, ReactFlowInstance } from '@xyflow/react';
import { useCallback, useEffect, useRef, type RefObject } from 'react';
import type { GraphNode } from '../canvas/types.js';

/** 11 px port names stay ≥ 9 px on screen. */
export const LEGIBLE_ZOOM = 0.8;
const MAX_FIT_ZOOM = 1.25;
const PADDING_PX = 24;

export function useLegibleFit(
  flow: ReactFlowInstance<GraphNode, Edge>,
  canvas: RefObject<HTMLDivElement | null>,
  selectedNode: string | undefined,
) {
  const fit = useCallback(
    (duration = 0) => {
      const box = canvas.current?.getBoundingClientRect();
      const nodes = flow.getNodes();
      if (!box || box.width === 0 || nodes.length === 0) return;
      const bounds = flow.getNodesBounds(nodes);
      const fits = Math.min(
        (box.width - 2 * PADDING_PX) / bounds.width,
        (box.height - 2 * PADDING_PX) / bounds.height,
      );
      const zoom = Math.min(MAX_FIT_ZOOM, Math.max(LEGIBLE_ZOOM, fits));
      const place = (size: number, start: number, room: number) =>
        size * zoom + 2 * PADDING_PX <= room
          ? (room - size * zoom) / 2 - start * zoom
          : PADDING_PX - start * zoom;
      const x = place(bounds.width, bounds.x, box.width);
      const y = place(bounds.height, bounds.y, box.height);
      void flow.setViewport({ x, y, zoom }, { duration });
    },
    [flow, canvas],
  );

  /** Pans (at the same zoom) so the node is wholly on screen, if it is not. */
  const reveal = useCallback(
    (id: string) => {
      const node = flow.getNode(id);
      const box = canvas.current?.getBoundingClientRect();
      if (!node || !box) return;
      const { x, y, zoom } = flow.getViewport();
      const left = node.position.x * zoom + x;
      const top = node.position.y * zoom + y;
      const width = (node.width ?? 0) * zoom;
      const height = (node.height ?? 0) * zoom;
      const inView = left >= 0 && top >= 0 && left + width <= box.width && top + height <= box.height;
      if (inView) return;
      void flow.setCenter(node.position.x + (node.width ?? 0) / 2, node.position.y + (node.height ?? 0) / 2, {
        zoom,
        duration: 200,
      });
    },
    [flow, canvas],
  );

  const selected = useRef(selectedNode);
  selected.current = selectedNode;
  useEffect(() => {
    if (selectedNode) reveal(selectedNode);
  }, [selectedNode, reveal]);

  useEffect(() => {
    const element = canvas.current;
    if (!element) return;
    let size = '';
    let frame = 0;
    const observer = new ResizeObserver(([entry]) => {
      const next = entry
        ? `${Math.round(entry.contentRect.width)}x${Math.round(entry.contentRect.height)}`
        : '';
      if (next === size) return;
      const first = size === '';
      size = next;
      if (first) return;
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => (selected.current ? reveal(selected.current) : fit()));
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
      cancelAnimationFrame(frame);
    };
  }, [canvas, fit, reveal]);

  return { fit, reveal };
}
