/** The selected wire: its ends, its tensor, its problems, and a button that removes it. */
import type { GraphModel, WireView } from '../host/graphModel.js';
import type { GraphEdit } from '../host/textEdits.js';

export function WireInfo({
  wire,
  model,
  onEdit,
}: {
  wire: WireView;
  model: GraphModel;
  onEdit: (edit: GraphEdit) => void;
}) {
  const problems = model.problems.filter((p) => p.wire === wire.index);
  return (
    <div className="wire-info" aria-label={`Wire from ${wire.from} to ${wire.to}`}>
      <h2>Wire</h2>
      <div>
        {wire.from} → {wire.to}
      </div>
      {wire.tensor ? <div>tensor {wire.tensor}</div> : null}
      {problems.map((p, i) => (
        <div key={i} className={`problem ${p.severity}`}>
          {p.code}: {p.message}
        </div>
      ))}
      <button
        type="button"
        className="danger"
        onClick={() => onEdit({ op: 'removeWires', indices: [wire.index] })}
      >
        Remove wire
      </button>
    </div>
  );
}
