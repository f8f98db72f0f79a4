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
  const errors = model?.problems.filter((p) => p.severity === 'error').length ?? 0;
  const warnings = model?.problems.filter((p) => p.severity !== 'error').length ?? 0;
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
        aria-label={`${errors} errors, ${warnings} warnings`}
      >
        {errors || warnings
          ? `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`
          : 'no problems'}
      </button>
    </div>
  );
}
