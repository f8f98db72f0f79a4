/** The toolbar: the pipeline's name, Add step, Auto layout, Fit, and the problem count (opens the list). */
import type { GraphModel } from '../host/graphModel.js';

export function Toolbar({
  model,
  canAdd,
  paletteOpen,
  problemsOpen,
  onTogglePalette,
  onAutoLayout,
  onFit,
  onToggleProblems,
}: {
  model: GraphModel | undefined;
  canAdd: boolean;
  paletteOpen: boolean;
  problemsOpen: boolean;
  onTogglePalette: () => void;
  onAutoLayout: () => void;
  onFit: () => void;
  onToggleProblems: () => void;
}) {
  // Counted as the Problems panel counts them: infos are neither errors nor warnings.
  const count = (severity: string) => model?.problems.filter((p) => p.severity === severity).length ?? 0;
  const [errors, warnings, infos] = [count('error'), count('warning'), count('info')];
  const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  const summary = [
    ...(errors || warnings ? [plural(errors, 'error'), plural(warnings, 'warning')] : []),
    ...(infos ? [plural(infos, 'info')] : []),
  ].join(', ');
  return (
    <div className="toolbar" role="toolbar" aria-label="Graph editor">
      <span className="title">{model?.name ?? 'Pipeline'}</span>
      <button onClick={onTogglePalette} aria-expanded={paletteOpen} aria-keyshortcuts="A" disabled={!canAdd}>
        + Add step
      </button>
      <button
        onClick={onAutoLayout}
        disabled={!model || Object.keys(model.layout).length === 0}
        title="Forget stored positions and lay the graph out again"
      >
        Auto layout
      </button>
      <button onClick={onFit}>Fit</button>
      <button
        className={`problems-button${errors ? ' error' : warnings ? ' warning' : ''}`}
        onClick={onToggleProblems}
        aria-expanded={problemsOpen}
        aria-label={summary || 'no problems'}
      >
        {summary || 'no problems'}
      </button>
    </div>
  );
}
