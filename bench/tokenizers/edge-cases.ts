// Generated edge cases for tokenizer parity: hand-picked strings for each tricky area plus
// deterministic pseudo-random mixes of the characters that stress pre-tokenizers and decoders.

/** Small deterministic PRNG (mulberry32) so every run checks the same strings. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Strings that each target one behaviour of the pipeline. */
export const HAND_PICKED: string[] = [
  '',
  ' ',
  '  ',
  '\n',
  '\t',
  'Hello world',
  'Hello  world',
  ' Hello world ',
  "it's I'm we're they've he'll I'd don't",
  "IT'S I'M WE'RE 'S 's 't 're 've 'm 'll 'd '",
  'The quick brown fox jumps over the lazy dog',
  "def hello_world():\n    print('Hello, world!')",
  'if x:\n\tif y:\n\t\treturn 1\n\t\t\t\tpass',
  '        eight spaces then text',
  'trailing spaces      ',
  'tabs\t\t\tand\t spaces \t',
  'a\u00a0b\u2003c\u3000d',
  '\r\n\r\nwindows line ends\r\n',
  '12345 3.14159 -42 1,000,000 0x1F 1e-9',
  '٣٤٥ ४५६ ௫௬ Ⅻ ½ ²',
  '日本語のテキストです。東京タワー',
  '中文文本，包括标点符号！',
  '한국어 텍스트 안녕하세요',
  'مرحبا بالعالم، هذا نص عربي',
  'नमस्ते दुनिया, यह हिंदी पाठ है',
  'Привет, мир! Ёжик в тумане.',
  'Ελληνικά κείμενα ΣΊΣΥΦΟΣ',
  'emoji 😀😃😄 family 👨‍👩‍👧‍👦 flags 🇫🇷🇯🇵 skin 👍🏽',
  'combining: e\u0301 a\u0300 o\u0308 n\u0303 Z\u0335\u0321\u0322',
  'café naïve résumé Æsir Œuvre straße İstanbul',
  'zero\u200bwidth\u200cjoiner\u200d',
  'control \u0001\u0002\u0007\u001b[0m chars',
  'null \u0000 byte',
  'replacement \ufffd char',
  'private \ue000\uf8ff use',
  'math 𝔾𝕠𝕠𝕕 𝐁𝐨𝐥𝐝 ∀x∈ℝ: x²≥0',
  'https://example.com/path?query=1&b=2#frag',
  'user@example.com <tag attr="v">text</tag>',
  '{"json": [1, 2, {"k": null}]}',
  'supercalifragilisticexpialidocious pneumonoultramicroscopicsilicovolcanoconiosis',
  'a'.repeat(300),
  'ab'.repeat(150),
  '!!!???...,,,;;;',
  '<|endoftext|>',
  'before<|endoftext|>after',
  '<s>Hello</s> world',
  '[CLS] hello [SEP] [MASK] [PAD] [UNK]',
  'text <unk> more',
  '   \n\n   \t',
  '\u2581leading metaspace \u2581\u2581 double',
  '<0x41> <0xE2> byte tokens as text',
  '####hash ##prefix',
  "do not can't won't isn't they'll",
  ' . , ! ? \' " ',
];

/** Characters that exercise character classes, byte fallback and whitespace handling. */
const ALPHABET = [
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
  ...' \t\n\r   ',
  ...'.,;:!?\'"()[]{}<>-_=+*/\\|@#$%^&~`',
  ...'éèêëàâäôöûüçñßæøåÉÀÇ',
  ...'日本語中文漢字한국어',
  ...'مرحباعربي',
  ...'नमस्तेहिंदी',
  ...'Привет',
  '😀',
  '👍🏽',
  '👨‍👩‍👧',
  '\u0301',
  '\u200d',
  '\u00a0',
  '\u3000',
  '\u2581',
  '\ufffd',
  '\u0000',
  '\u001f',
  '²',
  '½',
  '𝔾',
];

const WORDS = [
  'the',
  'token',
  'izer',
  ' ',
  '  ',
  '\n',
  "'s",
  "'ll",
  'hello',
  'world',
  '123',
  '3.14',
  'über',
  '東京',
  '<s>',
  '</s>',
  '<|endoftext|>',
  '[CLS]',
  '    ',
  '\t\t',
];

/** `count` pseudo-random strings mixing characters and word fragments, lengths 1..maxLen. */
export function randomMixes(count: number, seed: number, maxLen = 40): string[] {
  const rand = prng(seed);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const len = 1 + Math.floor(rand() * maxLen);
    let s = '';
    for (let k = 0; k < len; k++) {
      s +=
        rand() < 0.7
          ? ALPHABET[Math.floor(rand() * ALPHABET.length)]
          : WORDS[Math.floor(rand() * WORDS.length)];
    }
    out.push(s);
  }
  return out;
}

/** Runs of spaces and tabs of every length up to `max`, alone and around words. */
export function whitespaceRuns(max = 40): string[] {
  const out: string[] = [];
  for (let n = 1; n <= max; n++) {
    out.push(
      ' '.repeat(n),
      '\t'.repeat(n),
      `x${' '.repeat(n)}y`,
      `\n${' '.repeat(n)}return`,
      `\t${'\t'.repeat(n)}x`,
    );
  }
  return out;
}

/** Byte strings (hex) that are not valid UTF-8: truncated, overlong, surrogate, stray bytes. */
export const INVALID_UTF8_HEX: string[] = [
  'ff',
  'c0af',
  'e282',
  'e282ac41',
  'eda080',
  'f4908080',
  'f09f98',
  '68656c6c6f80776f726c64',
  'c3',
  'e0a0',
  'f0908d',
  'fe ff'.replace(' ', ''),
  '41c328',
  'e2e282ac',
];

/**
 * Text with a tokenizer's own added tokens inside (its special tokens: `<|eot_id|>`, `<|im_start|>`,
 * `<start_of_turn>`, …), next to words, spaces, newlines and each other: `count` strings per seed.
 */
export function addedTokenMixes(addedTokens: string[], count: number, seed: number): string[] {
  if (addedTokens.length === 0) return [];
  const rand = prng(seed);
  const words = [
    'hello',
    ' world',
    ' ',
    '  ',
    '\n',
    '\n\n',
    'x',
    'The',
    '東京',
    '😀',
    '12',
    '\t',
    'é',
    '<',
    '|',
  ];
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let s = '';
    for (let k = 1 + Math.floor(rand() * 7); k > 0; k--) {
      s +=
        rand() < 0.45
          ? addedTokens[Math.floor(rand() * addedTokens.length)]!
          : words[Math.floor(rand() * words.length)]!;
    }
    out.push(s);
  }
  return out;
}
