// Arrays and objects are references, as in JS.
export interface Box {
  items: number[];
  label: string;
}
function fill(target: number[], n: number): void {
  for (let i = 0; i < n; i++) target.push(i);
}
export function run(xs: number[], label: string): Box[] {
  const alias = xs;
  fill(alias, 3);
  const box: Box = { items: xs, label };
  const same = box;
  same.label = label + '!';
  box.items.push(xs.length);
  const copy: Box = { items: box.items.slice(), label: box.label };
  copy.items.push(-1);
  return [box, copy, same];
}
