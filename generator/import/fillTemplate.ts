/**
 * What TensorRT-LLM's `fill_template.py` does to a config.pbtxt: Python's
 * `string.Template(text).safe_substitute(values)`. `${name}` and `$name` are replaced when `name`
 * has a value, `$$` becomes `$`, and anything else (unknown names, a lone `$`) stays as written.
 */
const PATTERN = /\$(?:(\$)|\{([_a-z][_a-z0-9]*)\}|([_a-z][_a-z0-9]*))/gi;

export function fillTemplate(
  text: string,
  values: Readonly<Record<string, string>>,
  used?: Set<string>,
): string {
  return text.replace(PATTERN, (whole, dollar: string | undefined, braced?: string, bare?: string) => {
    if (dollar) return '$';
    const name = (braced ?? bare)!;
    if (!Object.hasOwn(values, name)) return whole;
    used?.add(name);
    return values[name]!;
  });
}
