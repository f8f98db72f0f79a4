/**
 * Asking the native chat-template engine (`ts-render-chat`, the C++ the steps run) whether a
 * template parses: a template it refuses would otherwise fail only at model load. Render errors
 * (a raise_exception, a conversation it refuses) are the request's business, not the template's.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../pipeline/projectRoot.js';
import type { NativeTemplateCheck, NativeTemplateVerdict } from './templateDiagnostics.js';

/** The files a step renders with: a tokenizer_config.json and/or a Jinja template file. */
export interface TemplateFiles {
  template: string;
  tokenizerConfig?: string;
}

/** The native tool in the project's build, when a build has made it. */
export function nativeRenderChatTool(): string | undefined {
  const root = projectRoot();
  const tool = root ? join(root, 'build/backends/tools/ts-render-chat') : undefined;
  return tool && existsSync(tool) ? tool : undefined;
}

/** The native verdict on the template of `files`; undefined when the tool cannot run. */
export function nativeTemplateVerdict(tool: string, files: TemplateFiles): NativeTemplateVerdict | undefined {
  const args = ['--tokenizer-config', files.tokenizerConfig ?? files.template, '--json'];
  if (files.template !== files.tokenizerConfig) {
    // A Jinja file without a config beside it still needs one for the tool: an empty one.
    if (!files.tokenizerConfig) args[1] = join(scratch(), 'tokenizer_config.json');
    args.push('--chat-template', files.template);
  }
  const r = spawnSync(tool, args, {
    input: '[{"role": "user", "content": "x"}]',
    encoding: 'utf8',
    timeout: 30_000,
  });
  // A template that fails to load ends the tool before it reads the conversation: writing it then
  // fails (EPIPE), yet the answer is on stdout. Only a tool that gave no answer says nothing.
  if (r.error && !r.stdout) return undefined;
  try {
    const out = JSON.parse(r.stdout) as {
      error?: { kind?: string; message?: string; line?: number; column?: number };
    };
    const error = out.error;
    if (!error || (error.kind !== 'syntax' && error.kind !== 'unsupported')) return { ok: true };
    return {
      ok: false,
      message: error.message ?? 'cannot be parsed',
      line: error.line,
      column: error.column,
    };
  } catch {
    return undefined;
  }
}

const textVerdicts = new Map<string, NativeTemplateVerdict | undefined>();

/** A check of template text (an editor's unsaved buffer), through a scratch file; undefined without a tool. */
export function nativeTemplateCheck(tool = nativeRenderChatTool()): NativeTemplateCheck | undefined {
  if (!tool) return undefined;
  return (template) => {
    if (!textVerdicts.has(template)) {
      if (textVerdicts.size > 64) textVerdicts.clear(); // one entry per keystroke: keep the last few
      const file = join(scratch(), 'template.jinja');
      writeFileSync(file, template);
      textVerdicts.set(template, nativeTemplateVerdict(tool, { template: file }));
    }
    return textVerdicts.get(template);
  };
}

let scratchDir: string | undefined;
function scratch(): string {
  if (!scratchDir) {
    scratchDir = mkdtempSync(join(tmpdir(), 'ts-chat-template-'));
    writeFileSync(join(scratchDir, 'tokenizer_config.json'), '{}');
  }
  return scratchDir;
}
