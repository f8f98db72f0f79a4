/** The step's ports, read-only (they are edited in the text or come from the preset or module). */
import type { StepNodeView } from '../../host/graphModel.js';
import { dimsText } from '../geometry.js';

export function PortTable({ step }: { step: StepNodeView }) {
  return (
    <fieldset>
      <legend>Ports</legend>
      <div className="hint">
        Port names, dtypes and dims are edited in the text (or come from the preset).
      </div>
      <table className="ports">
        <tbody>
          {[
            ...step.inputs.map((p) => ['in', p] as const),
            ...step.outputs.map((p) => ['out', p] as const),
          ].map(([side, p]) => (
            <tr key={`${side}${p.name}`}>
              <td>{side === 'in' ? '→' : '←'}</td>
              <td>
                {p.name}
                {p.optional ? '?' : ''}
                {p.fromModule ? <span className="module-mark">ts</span> : null}
              </td>
              <td className={`dtype-${p.dataType}`}>{p.dataType}</td>
              <td>{dimsText(p.dims)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </fieldset>
  );
}
