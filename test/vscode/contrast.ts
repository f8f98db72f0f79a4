/**
 * WCAG 2 text contrast of a rendered page, measured in the page itself (Playwright serializes this
 * function into the webview, so it uses nothing from outside its own body): every visible element
 * with its own text, its colour against what is actually behind it (the backgrounds of its
 * ancestors composited, each ancestor's opacity applied). Disabled controls are exempt (WCAG 1.4.3).
 */
export interface ContrastFailure {
  text: string;
  where: string;
  ratio: number;
  color: string;
  background: string;
}

export function measureContrast(
  root: Element,
  minimum: number,
): { checked: number; failures: ContrastFailure[] } {
  type Rgba = [number, number, number, number];
  const parse = (css: string): Rgba => {
    const rgb = /rgba?\(([^)]+)\)/.exec(css);
    if (rgb) {
      const [r = 0, g = 0, b = 0, a = 1] = rgb[1]!
        .split(/[\s,/]+/)
        .filter(Boolean)
        .map(Number);
      return [r, g, b, a];
    }
    const srgb = /color\(srgb ([^)]+)\)/.exec(css);
    if (srgb) {
      const [r = 0, g = 0, b = 0, a = 1] = srgb[1]!
        .split(/[\s/]+/)
        .filter(Boolean)
        .map(Number);
      return [r * 255, g * 255, b * 255, a];
    }
    return [0, 0, 0, 0];
  };
  const over = (top: Rgba, below: Rgba): Rgba => [
    top[0] * top[3] + below[0] * (1 - top[3]),
    top[1] * top[3] + below[1] * (1 - top[3]),
    top[2] * top[3] + below[2] * (1 - top[3]),
    1,
  ];
  const luminance = ([r, g, b]: Rgba) => {
    const lin = (c: number) => {
      const s = c / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  };
  const ratioOf = (a: Rgba, b: Rgba) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
    return (hi + 0.05) / (lo + 0.05);
  };
  const opacityFrom = (el: Element | null): number => {
    let o = 1;
    for (let e = el; e; e = e.parentElement) o *= Number(getComputedStyle(e).opacity);
    return o;
  };
  const backgroundOf = (el: Element): Rgba => {
    const layers: { color: Rgba; el: Element }[] = [];
    let base: Rgba = parse(getComputedStyle(document.body).backgroundColor);
    if (base[3] < 1) base = [255, 255, 255, 1];
    for (let e: Element | null = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c[3] === 0) continue;
      if (c[3] >= 1 && opacityFrom(e) >= 1) {
        base = c;
        break;
      }
      layers.push({ color: c, el: e });
    }
    let result = base;
    for (const { color, el: e } of layers.reverse())
      result = over([color[0], color[1], color[2], color[3] * opacityFrom(e)], result);
    return result;
  };
  const describe = (el: Element) =>
    [el, el.parentElement, el.parentElement?.parentElement]
      .filter((e): e is Element => !!e)
      .map(
        (e) =>
          `${e.tagName.toLowerCase()}${e.className && typeof e.className === 'string' ? `.${e.className.trim().split(/\s+/).join('.')}` : ''}`,
      )
      .reverse()
      .join(' > ');
  let checked = 0;
  const failures: ContrastFailure[] = [];
  for (const el of [root, ...Array.from(root.querySelectorAll('*'))]) {
    const own = Array.from(el.childNodes)
      .filter((n) => n.nodeType === Node.TEXT_NODE)
      .map((n) => n.textContent ?? '')
      .join('')
      .trim();
    if (!own) continue;
    const style = getComputedStyle(el);
    const box = el.getBoundingClientRect();
    if (style.visibility !== 'visible' || box.width === 0 || box.height === 0) continue;
    if (el.closest('button:disabled, [aria-disabled="true"], option, select, script, style, title')) continue;
    const fg = parse(style.color);
    const background = backgroundOf(el);
    const text = over([fg[0], fg[1], fg[2], fg[3] * opacityFrom(el)], background);
    const ratio = ratioOf(text, background);
    checked++;
    if (ratio < minimum)
      failures.push({
        text: own.slice(0, 40),
        where: describe(el),
        ratio: Math.round(ratio * 100) / 100,
        color: style.color,
        background: `rgb(${background.slice(0, 3).map(Math.round).join(', ')})`,
      });
  }
  return { checked, failures };
}
