/**
 * What every self-contained HTML page of the latency lab needs: its scripts read from the
 * installed bundle (or built from the sources in a checkout), inlined so the file opens offline,
 * and text and JSON escaped for HTML.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fromPackageRoot } from '../../paths.js';
import build from './reportPage.build.json';

let cachedChartJs: string | undefined;

/** chart.js's UMD build, from node_modules (sources, CLI) or beside the bundle (installed extension). */
export function chartJsSource(): string {
  if (cachedChartJs) return cachedChartJs;
  const candidates = [
    fromPackageRoot('node_modules', 'chart.js', 'dist', 'chart.umd.min.js'),
    join(__dirname, 'chart.umd.min.js'),
  ];
  const file = candidates.find((f) => existsSync(f));
  if (!file)
    throw new Error(`chart.js not found (looked at ${candidates.join(', ')}): reinstall Triton Studio`);
  // The source map is not shipped inside the report.
  return (cachedChartJs = readFileSync(file, 'utf8').replace(/\n\/\/# sourceMappingURL=.*\s*$/, '\n'));
}

let cachedPage: string | undefined;

/**
 * The latency report's page script (`reportPage.mts` with chart.js, for the browser). The bundles
 * in out/ (CLI, extension) read the copy scripts/bundle.mjs wrote beside them; running from the
 * TypeScript sources it is built from them with esbuild (a development dependency, present in a
 * checkout), so it never lags behind the code.
 */
export function reportPageScript(): string {
  if (cachedPage) return cachedPage;
  const beside = join(__dirname, 'webview', 'reportPage.js');
  if (existsSync(beside)) return (cachedPage = readFileSync(beside, 'utf8'));
  const source = fromPackageRoot(build.entryPoint);
  if (existsSync(source)) {
    // A variable name: the bundlers must not pull esbuild into the bundles.
    const name = 'esbuild';
    const esbuild = createRequire(__filename)(name) as typeof import('esbuild');
    const result = esbuild.buildSync({
      ...(build.options as import('esbuild').BuildOptions),
      absWorkingDir: fromPackageRoot(),
      entryPoints: [build.entryPoint],
      write: false,
    });
    return (cachedPage = result.outputFiles[0]!.text);
  }
  const built = fromPackageRoot('out', 'webview', 'reportPage.js');
  if (existsSync(built)) return (cachedPage = readFileSync(built, 'utf8'));
  throw new Error(
    `the latency report's page script was not found (looked at ${beside}, ${built}): reinstall Triton Studio`,
  );
}

/** A script's text inside a script element: nothing in it can end the element early. */
export function inlineScript(text: string): string {
  return text.replace(/<\/script/gi, '<\\/script');
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON inside a script element: `<` escaped so no `</script>` can end it early. */
export function jsonForHtml(value: unknown): string {
  return JSON.stringify(value).replaceAll('<', '\\u003c');
}
