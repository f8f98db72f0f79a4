/** The pipeline's problems (the toolbar's count opens it); picking one selects its element and shows its text. */
import type { ProblemView } from '../host/graphModel.js';

export function ProblemList({
  problems,
  onPick,
}: {
  problems: ProblemView[];
  onPick: (p: ProblemView) => void;
}) {
  return (
    <ul className="problem-list" aria-label="Problems">
      {problems.map((p, i) => (
        <li key={i}>
          <button className={`problem ${p.severity}`} onClick={() => onPick(p)} data-code={p.code}>
            <span className="problem-code">{p.code}</span> {p.message}
            <span className="problem-where"> (line {p.range.start.line + 1})</span>
          </button>
        </li>
      ))}
    </ul>
  );
}
