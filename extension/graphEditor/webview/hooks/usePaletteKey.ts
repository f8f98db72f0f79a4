/** Key A opens the palette wherever the focus is in the page (the empty canvas included), except in a field. */
import { useEffect } from 'react';

export function usePaletteKey(open: () => void): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const inField = (e.target as HTMLElement | null)?.closest?.('input, select, textarea');
      if (!inField && (e.key === 'a' || e.key === 'A') && !e.ctrlKey && !e.metaKey && !e.altKey) {
        e.preventDefault();
        open();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open]);
}
