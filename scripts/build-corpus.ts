// Builds the tokenizer parity and benchmark corpus from real text on this machine (source code in
// several languages, English prose, translations in ~30 languages from gettext catalogs, emoji and
// ZWJ sequences) plus generated edge cases, into .cache/corpus/tokenizers.jsonl: one JSON object
// per line, {"source", "text"} or {"source", "hex"} (bytes that are not valid UTF-8).
// Deterministic for a given machine: files are sorted and sampled with a seeded PRNG.
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';

import {
  HAND_PICKED,
  INVALID_UTF8_HEX,
  prng,
  randomMixes,
  whitespaceRuns,
} from '../bench/tokenizers/edge-cases';

const root = path.resolve(__dirname, '..');
export const corpusFile = path.join(root, '.cache/corpus/tokenizers.jsonl');

export type CorpusEntry = { source: string } & ({ text: string } | { hex: string });

const MIN_TOTAL = 20_000;

/** Files under `dir` (recursively, sorted) whose names pass `keep`, at most `limit`. */
function listFiles(dir: string, keep: (name: string) => boolean, limit: number, maxDepth = 6): string[] {
  const out: string[] = [];
  const walk = (d: string, depth: number): void => {
    if (out.length >= limit || depth > maxDepth) return;
    let names: string[];
    try {
      names = readdirSync(d).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (out.length >= limit) return;
      const p = path.join(d, name);
      let st;
      try {
        st = statSync(p);
      } catch {
        continue;
      }
      if (st.isDirectory()) walk(p, depth + 1);
      else if (st.isFile() && st.size > 0 && st.size < 2_000_000 && keep(name)) out.push(p);
    }
  };
  if (existsSync(dir)) walk(dir, 0);
  return out;
}

function readUtf8(file: string): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(readFileSync(file));
  } catch {
    return undefined;
  }
}

/** Random multi-line snippets of source files. */
function codeSnippets(label: string, files: string[], count: number, rand: () => number): CorpusEntry[] {
  const texts = files.map(readUtf8).filter((t): t is string => t !== undefined && t.length > 0);
  const out: CorpusEntry[] = [];
  for (let i = 0; texts.length > 0 && i < count; i++) {
    const lines = texts[Math.floor(rand() * texts.length)]!.split('\n');
    const start = Math.floor(rand() * lines.length);
    const n = 1 + Math.floor(rand() * 12);
    const text = lines
      .slice(start, start + n)
      .join('\n')
      .slice(0, 3000);
    if (text.trim().length > 0) out.push({ source: label, text });
  }
  return out;
}

/** Paragraphs of prose (split on blank lines), sampled. */
function proseParagraphs(label: string, files: string[], count: number, rand: () => number): CorpusEntry[] {
  const paragraphs: string[] = [];
  for (const f of files) {
    const t = readUtf8(f);
    if (t) paragraphs.push(...t.split(/\n\s*\n/).filter((p) => p.trim().length > 20));
  }
  const out: CorpusEntry[] = [];
  for (let i = 0; paragraphs.length > 0 && i < count; i++) {
    out.push({ source: label, text: paragraphs[Math.floor(rand() * paragraphs.length)]!.slice(0, 4000) });
  }
  return out;
}

/** Translated messages from a gettext .mo catalog (format: GNU gettext manual, "MO Files"). */
function moMessages(file: string): { texts: string[]; invalid: Buffer[] } {
  const buf = readFileSync(file);
  const texts: string[] = [];
  const invalid: Buffer[] = [];
  if (buf.length < 28) return { texts, invalid };
  const magic = buf.readUInt32LE(0);
  const le = magic === 0x950412de;
  if (!le && magic !== 0xde120495) return { texts, invalid };
  const u32 = (o: number): number => (le ? buf.readUInt32LE(o) : buf.readUInt32BE(o));
  const n = u32(8);
  const translations = u32(16);
  for (let i = 0; i < n; i++) {
    const len = u32(translations + i * 8);
    const off = u32(translations + i * 8 + 4);
    if (off + len > buf.length || len === 0) continue;
    const bytes = buf.subarray(off, off + len);
    for (const part of splitOnNul(bytes)) {
      try {
        texts.push(new TextDecoder('utf-8', { fatal: true }).decode(part));
      } catch {
        invalid.push(Buffer.from(part)); // catalogs in legacy encodings: real invalid UTF-8
      }
    }
  }
  return { texts, invalid };
}

function splitOnNul(b: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  let start = 0;
  for (let i = 0; i <= b.length; i++) {
    if (i === b.length || b[i] === 0) {
      if (i > start) parts.push(b.subarray(start, i));
      start = i + 1;
    }
  }
  return parts;
}

const LANGUAGES = [
  'ja',
  'zh_CN',
  'zh_TW',
  'ko',
  'ar',
  'fa',
  'he',
  'hi',
  'bn',
  'ta',
  'te',
  'mr',
  'gu',
  'pa',
  'th',
  'km',
  'ru',
  'uk',
  'el',
  'ka',
  'hy',
  'am',
  'vi',
  'tr',
  'de',
  'fr',
  'es',
  'pl',
  'cs',
  'ro',
  'hu',
  'sv',
  'pt_BR',
  'it',
  'nl',
];

function translations(count: number, rand: () => number): CorpusEntry[] {
  const out: CorpusEntry[] = [];
  const perLanguage = Math.ceil(count / LANGUAGES.length);
  for (const lang of LANGUAGES) {
    const files = listFiles(`/usr/share/locale/${lang}/LC_MESSAGES`, (n) => n.endsWith('.mo'), 200, 1);
    const texts: string[] = [];
    for (const f of files) {
      const { texts: t, invalid } = moMessages(f);
      texts.push(...t);
      for (const b of invalid.slice(0, 3))
        out.push({ source: `gettext-invalid-utf8:${lang}`, hex: b.toString('hex') });
    }
    for (let i = 0; texts.length > 0 && i < perLanguage; i++) {
      // Mostly single messages, sometimes a few joined the way a UI page would show them.
      const k = rand() < 0.8 ? 1 : 2 + Math.floor(rand() * 3);
      const parts = Array.from({ length: k }, () => texts[Math.floor(rand() * texts.length)]!);
      out.push({ source: `gettext:${lang}`, text: parts.join(rand() < 0.5 ? ' ' : '\n') });
    }
  }
  return out;
}

/** Emoji (with ZWJ sequences, flags, skin tones) from the emoji table vendored in pip's `rich`. */
function emoji(count: number, rand: () => number): CorpusEntry[] {
  const candidates = [
    path.join(root, '.venv/lib/python3.11/site-packages/pip/_vendor/rich/_emoji_codes.py'),
    '/usr/lib/python3/dist-packages/pip/_vendor/rich/_emoji_codes.py',
  ];
  const file = candidates.find((f) => existsSync(f));
  if (!file) return [];
  const pairs: [string, string][] = [];
  for (const m of readFileSync(file, 'utf8').matchAll(/^\s*"([^"]+)": "([^"]+)",$/gm)) {
    const value = m[2]!.replace(/\\u([0-9a-fA-F]{4})/g, (_, h: string) =>
      String.fromCharCode(parseInt(h, 16)),
    );
    pairs.push([m[1]!, value]);
  }
  const out: CorpusEntry[] = [];
  const pick = (): [string, string] => pairs[Math.floor(rand() * pairs.length)]!;
  for (let i = 0; pairs.length > 0 && i < count; i++) {
    const style = rand();
    if (style < 0.3) {
      const [name, e] = pick();
      out.push({ source: 'emoji', text: `${name.replace(/_/g, ' ')} ${e}` });
    } else if (style < 0.6) {
      out.push({
        source: 'emoji',
        text: Array.from({ length: 1 + Math.floor(rand() * 6) }, () => pick()[1]).join(''),
      });
    } else {
      const words = Array.from({ length: 3 + Math.floor(rand() * 8) }, () =>
        rand() < 0.4 ? pick()[1] : pick()[0].split('_')[0],
      );
      out.push({ source: 'emoji', text: words.join(rand() < 0.7 ? ' ' : '') });
    }
  }
  return out;
}

/** Generated edge cases: each targets a pipeline behaviour HF must be matched on. */
function edgeCases(rand: () => number): CorpusEntry[] {
  const out: CorpusEntry[] = [];
  const add = (source: string, text: string): void => void out.push({ source, text });
  for (const t of HAND_PICKED) add('edge:hand-picked', t);
  for (const t of whitespaceRuns(40)) add('edge:whitespace', t);
  for (const t of randomMixes(2500, 11, 80)) add('edge:random-mix', t);
  const letters = 'abcdefghijklmnopqrstuvwxyzαβγδабвгдאבגדابتث';
  // Combining marks stacked on letters (Latin, Devanagari, Arabic, Hebrew marks).
  const marks = [
    0x300, 0x301, 0x302, 0x303, 0x308, 0x30a, 0x327, 0x328, 0x335, 0x93c, 0x94d, 0x64b, 0x651, 0x5b4, 0x20dd,
    0x1dc0,
  ];
  for (let i = 0; i < 600; i++) {
    let s = '';
    const n = 1 + Math.floor(rand() * 8);
    for (let k = 0; k < n; k++) {
      s += letters[Math.floor(rand() * letters.length)];
      for (let m = Math.floor(rand() * 4); m > 0; m--)
        s += String.fromCodePoint(marks[Math.floor(rand() * marks.length)]!);
      if (rand() < 0.3) s += ' ';
    }
    add('edge:combining', s);
  }
  // Numbers in many notations and scripts.
  const digitSets = [
    '0123456789',
    '٠١٢٣٤٥٦٧٨٩',
    '०१२३४५६७८९',
    '০১২৩৪৫৬৭৮৯',
    '０１２３４５６７８９',
    '௦௧௨௩௪௫௬௭௮௯',
  ];
  for (let i = 0; i < 600; i++) {
    const ds = [...digitSets[Math.floor(rand() * digitSets.length)]!];
    let s = '';
    for (let k = 1 + Math.floor(rand() * 14); k > 0; k--) s += ds[Math.floor(rand() * 10)];
    const forms = [
      s,
      `${s}.${s.slice(0, 3)}`,
      `-${s}`,
      `${s}%`,
      `$${s}`,
      `${s},${s}`,
      `v${s}.0`,
      `${s}e-${s.length}`,
      `${s}½²³`,
    ];
    add('edge:numbers', forms[Math.floor(rand() * forms.length)]!);
  }
  // Very long words (BERT's 100-character limit, BPE over long runs).
  for (let i = 0; i < 300; i++) {
    const len = 50 + Math.floor(rand() * 450);
    let s = '';
    for (let k = 0; k < len; k++) s += letters[Math.floor(rand() * 26)];
    add('edge:long-word', rand() < 0.5 ? s : `prefix ${s} suffix`);
  }
  // Special-token strings inside text, with and without surrounding spaces.
  const specials = [
    '<|endoftext|>',
    '<s>',
    '</s>',
    '<unk>',
    '[CLS]',
    '[SEP]',
    '[MASK]',
    '[PAD]',
    '[UNK]',
    '<pad>',
    '<|end|>',
  ];
  const words = ['hello', 'world', ' ', '  ', '\n', 'x', 'The', '東京', '😀', '', '\t'];
  for (let i = 0; i < 1000; i++) {
    let s = '';
    for (let k = 1 + Math.floor(rand() * 6); k > 0; k--) {
      s +=
        rand() < 0.4
          ? specials[Math.floor(rand() * specials.length)]
          : words[Math.floor(rand() * words.length)];
    }
    add('edge:special-tokens', s);
  }
  // Control characters (C0, DEL, C1) and format characters.
  const controls = [
    0, 1, 2, 7, 8, 0xb, 0xc, 0x1b, 0x1f, 0x7f, 0x80, 0x85, 0x9f, 0xad, 0x200b, 0x200e, 0x2028, 0x2029, 0xfeff,
    0xfff9,
  ];
  for (let i = 0; i < 600; i++) {
    let s = '';
    for (let k = 1 + Math.floor(rand() * 10); k > 0; k--) {
      s +=
        rand() < 0.5
          ? String.fromCodePoint(controls[Math.floor(rand() * controls.length)]!)
          : words[Math.floor(rand() * words.length)];
    }
    add('edge:control', s);
  }
  // Code points drawn from the whole Unicode range (assigned or not, no surrogates): the
  // character-class tables must agree with HF's everywhere.
  for (let i = 0; i < 2000; i++) {
    let s = '';
    for (let k = 1 + Math.floor(rand() * 6); k > 0; k--) {
      let cp = rand() < 0.7 ? Math.floor(rand() * 0x10000) : 0x10000 + Math.floor(rand() * 0x100000);
      if (cp >= 0xd800 && cp <= 0xdfff) cp = 0x41;
      s += String.fromCodePoint(cp);
      if (rand() < 0.3) s += rand() < 0.5 ? ' ' : 'a';
    }
    add('edge:unicode-soup', s);
  }
  // Bytes that are not UTF-8: fixed cases plus random byte strings.
  for (const hex of INVALID_UTF8_HEX) out.push({ source: 'edge:invalid-utf8', hex });
  for (let i = 0; i < 300; i++) {
    const b = Buffer.alloc(1 + Math.floor(rand() * 24));
    for (let k = 0; k < b.length; k++)
      b[k] = rand() < 0.5 ? 0x61 + Math.floor(rand() * 26) : Math.floor(rand() * 256);
    out.push({ source: 'edge:invalid-utf8', hex: b.toString('hex') });
  }
  return out;
}

/** Collects the corpus (about 25,000 strings). */
export function collectCorpus(): CorpusEntry[] {
  const rand = prng(20240613);
  const code = (label: string, dir: string, exts: string[], limit: number, count: number): CorpusEntry[] =>
    codeSnippets(
      label,
      listFiles(dir, (n) => exts.some((e) => n.endsWith(e)), limit),
      count,
      rand,
    );
  const entries: CorpusEntry[] = [
    ...code('code:c', '/usr/include', ['.h'], 400, 1500),
    ...code('code:python', '/usr/lib/python3.11', ['.py'], 400, 1500),
    ...code('code:javascript', path.join(root, 'node_modules/typescript/lib'), ['.js'], 40, 600),
    ...code('code:javascript', path.join(root, 'node_modules/@grpc'), ['.js'], 200, 600),
    ...code('code:typescript', path.join(root, 'node_modules/@types/node'), ['.d.ts'], 200, 900),
    ...code('code:perl', '/usr/share/perl/5.36', ['.pm'], 300, 800),
    ...code('code:cmake', '/usr/share/cmake-3.25/Modules', ['.cmake'], 300, 700),
    ...code('code:shell', '/usr/share/bash-completion/completions', [''], 300, 600),
    ...code('code:cpp', path.join(root, 'backends'), ['.cc', '.h'], 100, 300),
    ...proseParagraphs(
      'prose:licenses',
      listFiles('/usr/share/common-licenses', () => true, 50),
      1200,
      rand,
    ),
    ...proseParagraphs(
      'prose:readme',
      listFiles(path.join(root, 'node_modules'), (n) => /^readme\.md$/i.test(n), 400, 2),
      2000,
      rand,
    ),
    ...proseParagraphs(
      'prose:copyright',
      listFiles('/usr/share/doc', (n) => n === 'copyright', 400, 2),
      800,
      rand,
    ),
    ...translations(6500, rand),
    ...emoji(1500, rand),
    ...edgeCases(rand),
  ];
  if (entries.length < MIN_TOTAL) {
    throw new Error(
      `corpus has only ${entries.length} strings (need ${MIN_TOTAL}): are /usr/include, /usr/share/locale and node_modules present?`,
    );
  }
  return entries;
}

/** Builds the corpus file if missing (or when `force`), and returns its entries. */
export function loadCorpus(force = false): CorpusEntry[] {
  if (!force && existsSync(corpusFile)) {
    return readFileSync(corpusFile, 'utf8')
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => JSON.parse(l) as CorpusEntry);
  }
  const entries = collectCorpus();
  mkdirSync(path.dirname(corpusFile), { recursive: true });
  const tmp = `${corpusFile}.${process.pid}.tmp`;
  writeFileSync(tmp, entries.map((e) => JSON.stringify(e)).join('\n') + '\n');
  renameSync(tmp, corpusFile);
  return entries;
}

if (require.main === module) {
  const entries = loadCorpus(true);
  const bySource = new Map<string, number>();
  for (const e of entries) {
    const key = e.source.split(':')[0]!;
    bySource.set(key, (bySource.get(key) ?? 0) + 1);
  }
  const bytes = entries.reduce((n, e) => n + ('text' in e ? Buffer.byteLength(e.text) : e.hex.length / 2), 0);
  console.log(
    `[corpus] ${entries.length} strings, ${(bytes / 1e6).toFixed(2)} MB -> ${path.relative(root, corpusFile)}`,
  );
  for (const [k, v] of [...bySource].sort()) console.log(`[corpus]   ${k}: ${v}`);
}
