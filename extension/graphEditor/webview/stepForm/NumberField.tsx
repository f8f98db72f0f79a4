/** A whole number ≥ min; empty means "not set" (inherited). */
import { TextField } from './TextField.js';

export function NumberField({
  label,
  value,
  placeholder,
  min,
  onCommit,
  name,
}: {
  label: string;
  value: number | undefined;
  placeholder?: string;
  min: number;
  onCommit: (v: number | undefined) => void;
  name: string;
}) {
  return (
    <TextField
      label={label}
      name={name}
      value={value === undefined ? '' : String(value)}
      placeholder={placeholder}
      check={(v) =>
        v === '' || (Number.isInteger(Number(v)) && Number(v) >= min) ? undefined : `A whole number ≥ ${min}.`
      }
      onCommit={(v) => onCommit(v === '' ? undefined : Number(v))}
    />
  );
}
