/** A step's typed port: its handle, name (optional and TypeScript-declared ones marked), dtype and dims. */
import { Handle, Position } from '@xyflow/react';
import type { PortView, ProblemView } from '../../host/graphModel.js';
import { dimsText, handleId } from '../geometry.js';
import { hoverText, portLabel, severityOf } from './problemText.js';

export function Port({
  port,
  side,
  top,
  problems,
  handleType,
}: {
  port: PortView;
  side: 'in' | 'out';
  top: number;
  problems: ProblemView[];
  handleType: 'source' | 'target';
}) {
  const id = handleId(side, port.name);
  const sev = severityOf(problems);
  const label = `${side === 'in' ? 'input' : 'output'} ${portLabel(port)}${problems.length ? `. ${problems.length} problem(s): ${hoverText(problems)}` : ''}`;
  return (
    <div
      className={`port port-${side}${port.optional ? ' optional' : ''}${port.fromModule ? ' from-module' : ''}${sev ? ` ${sev}` : ''}`}
      style={{ top: top - 11 }}
      title={problems.length ? hoverText(problems) : portLabel(port)}
      data-port={id}
    >
      <Handle
        type={handleType}
        position={side === 'in' ? Position.Left : Position.Right}
        id={id}
        className={`handle dtype-${port.dataType}${sev ? ` ${sev}` : ''}`}
        aria-label={label}
        title={problems.length ? hoverText(problems) : portLabel(port)}
      />
      <span className="port-name">
        {port.name}
        {port.optional ? (
          <span className="optional-mark" title="optional">
            ?
          </span>
        ) : null}
        {port.fromModule ? (
          <span className="module-mark" title="declared by the step's TypeScript module">
            ts
          </span>
        ) : null}
      </span>
      <span className={`port-type dtype-${port.dataType}`}>
        {port.dataType} {dimsText(port.dims)}
      </span>
    </div>
  );
}
