/**
 * Where the graph goes on beyond the canvas. A graph wider (or taller) than the canvas opens at
 * the legible zoom from its inputs (useLegibleFit); a button at each edge with nodes beyond it
 * says how many and pans that way by up to a canvas.
 */
import { useNodes, useReactFlow, useStore, type Edge } from '@xyflow/react';
import type { GraphNode } from './canvas/types.js';

type Side = 'left' | 'right' | 'up' | 'down';
const PADDING_PX = 24;
const LABEL: Record<Side, (n: number) => string> = {
  left: (n) => `← ${n} more`,
  right: (n) => `${n} more →`,
  up: (n) => `↑ ${n} more`,
  down: (n) => `↓ ${n} more`,
};
const WHERE: Record<Side, string> = {
  left: 'to the left',
  right: 'to the right',
  up: 'above',
  down: 'below',
};

export function OffscreenHints() {
  const nodes = useNodes<GraphNode>();
  const flow = useReactFlow<GraphNode, Edge>();
  const [x, y, zoom] = useStore((s) => s.transform);
  const width = useStore((s) => s.width);
  const height = useStore((s) => s.height);
  if (width === 0 || nodes.length === 0) return null;
  const beyond: Record<Side, number> = { left: 0, right: 0, up: 0, down: 0 };
  let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const n of nodes) {
    const w = n.measured?.width ?? n.width ?? 0;
    const h = n.measured?.height ?? n.height ?? 0;
    const left = n.position.x * zoom + x;
    const top = n.position.y * zoom + y;
    if (left < 0) beyond.left++;
    if (left + w * zoom > width) beyond.right++;
    if (top < 0) beyond.up++;
    if (top + h * zoom > height) beyond.down++;
    [minX, minY] = [Math.min(minX, left), Math.min(minY, top)];
    [maxX, maxY] = [Math.max(maxX, left + w * zoom), Math.max(maxY, top + h * zoom)];
  }
  // By up to one canvas (less a margin), never past the graph's far edge.
  const step = (over: number, room: number) => Math.min(Math.max(over, 0), room - 2 * PADDING_PX);
  const pan: Record<Side, { dx: number; dy: number }> = {
    left: { dx: step(PADDING_PX - minX, width), dy: 0 },
    right: { dx: -step(maxX - (width - PADDING_PX), width), dy: 0 },
    up: { dx: 0, dy: step(PADDING_PX - minY, height) },
    down: { dx: 0, dy: -step(maxY - (height - PADDING_PX), height) },
  };
  const sides = (Object.keys(beyond) as Side[]).filter((s) => beyond[s] > 0);
  return (
    <div className="offscreen-hints" data-zoom={zoom.toFixed(2)}>
      {sides.map((side) => (
        <button
          key={side}
          className={`offscreen ${side}`}
          title={`${beyond[side]} node${beyond[side] === 1 ? '' : 's'} ${WHERE[side]}: show them`}
          onClick={() =>
            void flow.setViewport({ x: x + pan[side].dx, y: y + pan[side].dy, zoom }, { duration: 200 })
          }
        >
          {LABEL[side](beyond[side])}
        </button>
      ))}
    </div>
  );
}
