/**
 * What an error toast says. VS Code shows no toast taller than about 62% of the window
 * (NotificationsToasts.layoutContainer): such a notification goes straight to the notification
 * center, unseen. A message holding file paths (where a tokenizer was looked for, say) can be
 * that tall, so a toast says the first line, cut at a word before TOAST_MAX_CHARS; the whole
 * message goes to the log, which the toast's Open Log button shows.
 */
export const TOAST_MAX_CHARS = 240;

export function toastText(message: string): string {
  const first = message.split('\n')[0]!.trim();
  if (first.length <= TOAST_MAX_CHARS) return first;
  const more = ' … (the whole message is in the log)';
  const room = TOAST_MAX_CHARS - more.length;
  const cut = first.lastIndexOf(' ', room);
  return `${first.slice(0, cut > room / 2 ? cut : room).trimEnd()}${more}`;
}
