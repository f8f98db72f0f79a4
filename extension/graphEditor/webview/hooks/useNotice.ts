/** The notice bar's message; it goes away by itself after 12 s. */
import { useEffect, useState } from 'react';
import type { Notice } from '../selection.js';

export function useNotice() {
  const [notice, setNotice] = useState<Notice>();
  useEffect(() => {
    if (!notice) return;
    const t = setTimeout(() => setNotice(undefined), 12_000);
    return () => clearTimeout(t);
  }, [notice]);
  return [notice, setNotice] as const;
}
