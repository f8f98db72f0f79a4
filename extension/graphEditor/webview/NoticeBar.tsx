/** A refused wire or a failed edit, until dismissed (or 12 s pass). */
import type { Notice } from './selection.js';

export function NoticeBar({ notice, onDismiss }: { notice: Notice; onDismiss: () => void }) {
  return (
    <div className={`notice ${notice.kind}`} role="alert">
      {notice.text}
      <button className="link" aria-label="Dismiss" onClick={onDismiss}>
        ✕
      </button>
    </div>
  );
}
