/**
 * Tells the provider once each version is on screen, with the render marks (the tests' and
 * benchmarks' clock), after the next frame; a hidden page gets no frames (VS Code shows a new page
 * once loaded), so at the latest after a second.
 */
import { useEffect, useRef } from 'react';
import type { RenderMarks } from '../renderMarks.js';
import { post } from '../vscodeApi.js';

export function useRenderMarks(
  marks: RenderMarks,
  drawn: { version: number; ready: boolean; nodes: number; edges: number; banner: boolean },
  onPainted: () => void,
  changes: unknown[],
): void {
  const reported = useRef(-1);
  useEffect(() => {
    const { version, ready, nodes, edges, banner } = drawn;
    if (version < 0 || !ready || reported.current === version) return;
    reported.current = version;
    marks.set('committed');
    let sent = false;
    const report = () => {
      if (sent) return;
      sent = true;
      post({ type: 'rendered', version, paintedAt: Date.now(), nodes, edges, banner, marks: marks.current });
      onPainted();
    };
    requestAnimationFrame(() => setTimeout(report));
    setTimeout(report, 1_000);
  }, changes);
}
