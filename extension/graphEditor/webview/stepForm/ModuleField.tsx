/** The step form's field for a TypeScript module (hooks, source): its path and an Open button. */
import { TextField } from './TextField.js';

/** The schema's "hooks"/"source": a non-empty path (relative to the pipeline file) of a TypeScript module. */
const moduleCheck = (v: string) =>
  v === '' || /\.ts$/.test(v.trim()) ? undefined : 'The path of a .ts module, relative to the pipeline file.';

/** A step's TypeScript module: its path (empty removes it) and a button that opens it beside. */
export function ModuleField({
  label,
  name,
  value,
  placeholder,
  onCommit,
  onOpen,
}: {
  label: string;
  name: 'hooks' | 'source';
  value: string;
  placeholder: string;
  onCommit: (v: string | undefined) => void;
  onOpen: (ref: string) => void;
}) {
  return (
    <div className="row module-field">
      <TextField
        label={label}
        name={name}
        value={value}
        placeholder={placeholder}
        check={moduleCheck}
        onCommit={(v) => onCommit(v.trim() || undefined)}
      />
      <button
        type="button"
        name={`open-${name}`}
        disabled={!value}
        title={value ? `Open ${value} beside (its ports follow each save)` : 'Give a path first'}
        onClick={() => onOpen(value)}
      >
        Open
      </button>
    </div>
  );
}
