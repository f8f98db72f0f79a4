/** The palette (key A, or + Add step): presets, sample steps and blank steps, filtered as typed. */
import { useState } from 'react';
import type { PaletteItem } from '../messages.js';

export function Palette({
  items,
  onAdd,
  onClose,
}: {
  items: PaletteItem[];
  onAdd: (id: string) => void;
  onClose: () => void;
}) {
  const [filter, setFilter] = useState('');
  const shown = items.filter((i) =>
    `${i.group} ${i.label} ${i.detail}`.toLowerCase().includes(filter.toLowerCase()),
  );
  const groups = [...new Set(shown.map((i) => i.group))];
  return (
    <div
      className="palette"
      role="dialog"
      aria-label="Add a step"
      onKeyDown={(e) => e.key === 'Escape' && onClose()}
    >
      <input
        autoFocus
        className="palette-filter"
        placeholder="Filter presets and samples"
        aria-label="Filter presets and samples"
        value={filter}
        onChange={(e) => setFilter(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && shown[0]) onAdd(shown[0].id);
        }}
      />
      <div className="palette-list" role="listbox" aria-label="Steps to add">
        {groups.map((g) => (
          <div key={g} className="palette-group" role="group" aria-label={g}>
            <div className="palette-group-title">{g}</div>
            {shown
              .filter((i) => i.group === g)
              .map((i) => (
                <button
                  key={i.id}
                  className="palette-item"
                  role="option"
                  aria-selected={false}
                  title={i.detail}
                  data-item={i.id}
                  onClick={() => onAdd(i.id)}
                >
                  <span className="palette-label">{i.label}</span>
                  <span className="palette-detail">{i.detail}</span>
                </button>
              ))}
          </div>
        ))}
      </div>
    </div>
  );
}
