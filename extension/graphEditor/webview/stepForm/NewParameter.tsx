/** A parameter's name and value, added together. */
import { useState } from 'react';

export function NewParameter({ onAdd, taken }: { onAdd: (k: string, v: string) => void; taken: string[] }) {
  const [key, setKey] = useState('');
  const [value, setValue] = useState('');
  const error = key && taken.includes(key) ? 'Already set.' : undefined;
  return (
    <div className="row">
      <input
        aria-label="New parameter name"
        placeholder="name"
        value={key}
        onChange={(e) => setKey(e.target.value)}
      />
      <input
        aria-label="New parameter value"
        placeholder="value"
        value={value}
        onChange={(e) => setValue(e.target.value)}
      />
      <button
        type="button"
        disabled={!key || !!error}
        onClick={() => {
          onAdd(key, value);
          setKey('');
          setValue('');
        }}
      >
        Add
      </button>
    </div>
  );
}
