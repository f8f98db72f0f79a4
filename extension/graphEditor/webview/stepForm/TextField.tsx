/** The step form's text input: commits on Enter or blur, refuses a bad value with its reason. */
import { useEffect, useState, type KeyboardEvent } from 'react';

/** A text input that commits on Enter or leaving it, and can refuse a value with a reason. */
export function TextField({
  label,
  value,
  placeholder,
  onCommit,
  check,
  name,
}: {
  label: string;
  value: string;
  placeholder?: string;
  onCommit: (v: string) => void;
  check?: (v: string) => string | undefined;
  name: string;
}) {
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  const error = check?.(text);
  const commit = () => {
    if (text !== value && !error) onCommit(text);
  };
  return (
    <label className="field">
      <span>{label}</span>
      <input
        name={name}
        value={text}
        placeholder={placeholder}
        aria-invalid={error ? true : undefined}
        onChange={(e) => setText(e.target.value)}
        onBlur={commit}
        onKeyDown={(e: KeyboardEvent) => {
          if (e.key === 'Enter') commit();
          if (e.key === 'Escape') setText(value);
        }}
      />
      {error ? (
        <span className="field-error" role="alert">
          {error}
        </span>
      ) : null}
    </label>
  );
}
