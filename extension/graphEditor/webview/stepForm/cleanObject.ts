/** The object without its undefined fields, or undefined when none is left (the field is then removed). */
export function cleanObject<T extends object>(o: T): T | undefined {
  const entries = Object.entries(o).filter(([, v]) => v !== undefined);
  return entries.length ? (Object.fromEntries(entries) as T) : undefined;
}
