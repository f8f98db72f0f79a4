/** Over the last good graph while the text is no pipeline: why, each reason a link to its line. */
import type { ProblemView } from '../host/graphModel.js';
import { post } from './vscodeApi.js';

export function InvalidBanner({ problems }: { problems: ProblemView[] }) {
  return (
    <div className="banner" role="alert">
      <strong>The text is not a valid pipeline right now</strong>: showing the last good graph; graph editing
      resumes when the text is fixed.
      {problems.slice(0, 3).map((p, i) => (
        <div key={i}>
          <button className="link" onClick={() => post({ type: 'reveal', range: p.range })}>
            line {p.range.start.line + 1}: {p.message}
          </button>
        </div>
      ))}
    </div>
  );
}
