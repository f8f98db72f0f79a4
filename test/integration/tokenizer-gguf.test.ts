/**
 * The tokenizer imported from SmolLM2's GGUF (generator/import/ggufTokenizer.ts), checked against
 * both references on the project corpus (every 4th entry: prose, code, ~35 languages, emoji, special
 * tokens): Hugging Face's own `tokenizers` runs the imported tokenizer.json exactly as the native
 * C++ tokenizer does (ids, decoded text, streaming), and its ids are llama.cpp's own
 * (`llama_tokenize` through ts-llama-tokenize), so the native steps feed the model what it expects.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Tokenizer } from 'tokenizers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTsTokenize } from '../../bench/tokenizers/native.js';
import { checkParity, describeMismatches, type ParityInput } from '../../bench/tokenizers/parity.js';
import { buildBackends, smolLm2Gguf } from '../../generator/build/index.js';
import { importGgufTokenizer, readGgufMetadata } from '../../generator/index.js';
import { loadCorpus } from '../../scripts/build-corpus.js';

const ROOT = resolve(__dirname, '../..');
const GGUF = smolLm2Gguf(ROOT);
const scratch = mkdtempSync(join(tmpdir(), 'ts-gguf-tokenizer-'));
let tokenizerFile = '';
let configFile = '';
let corpus: ParityInput[] = [];

beforeAll(async () => {
  ({ tokenizerFile, configFile } = importGgufTokenizer(GGUF, scratch));
  corpus = loadCorpus().filter((_, i) => i % 4 === 0);
  await buildBackends({ targets: ['ts-llama-tokenize'] });
}, 600_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('SmolLM2’s tokenizer imported from its GGUF', () => {
  it('runs in the native tokenizer exactly as in Hugging Face tokenizers (ids, text, streaming)', async () => {
    const binary = await ensureTsTokenize();
    for (const opts of [
      { addSpecialTokens: true, skipSpecialTokens: false },
      { addSpecialTokens: false, skipSpecialTokens: true },
    ]) {
      const m = await checkParity(binary, tokenizerFile, corpus, opts);
      expect(m, describeMismatches(m)).toEqual([]);
    }
  });

  it('gives llama.cpp’s own ids (llama_tokenize) for every text', async () => {
    const texts = corpus.flatMap((c) => ('text' in c ? [c.text] : []));
    texts.push('<|im_start|>user\nWhat is 12345 + 678?<|im_end|>\n<|im_start|>assistant\n');
    const tool = join(ROOT, 'build/backends/llama-cpp/ts-llama-tokenize');
    const llama = execFileSync(tool, [GGUF], {
      input: texts.map((t) => JSON.stringify(t)).join('\n') + '\n',
      maxBuffer: 1 << 28,
    })
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as number[]);
    expect(llama).toHaveLength(texts.length);
    const hf = Tokenizer.fromFile(tokenizerFile);
    const differing: string[] = [];
    for (const [i, text] of texts.entries()) {
      const ids = (await hf.encode(text, null, { addSpecialTokens: true })).getIds();
      if (JSON.stringify(ids) !== JSON.stringify(llama[i])) differing.push(JSON.stringify(text).slice(0, 80));
    }
    expect(differing.slice(0, 5), `${differing.length} of ${texts.length} differ`).toEqual([]);
  });

  it('follows llama.cpp, not transformers’ GGUF conversion, where they differ', async () => {
    // transformers 4.57's GGUF converter (bench/llama/transformers_gguf_tokenizer.py; 2,027 of
    // 27,136 corpus texts differ, docs/BENCHMARKS.md) builds a plain GPT-2 ByteLevel pre-tokenizer
    // and ignores tokenizer.ggml.pre = smollm, whose Digits split comes first: white space before
    // a number stays one piece ("    3.14": 'ĠĠĠĠ' '3', where GPT-2's regex gives 'ĠĠĠ' 'Ġ' '3'),
    // also before other numerals (Arabic-Indic ٣). And it turns bytes the vocabulary lacks into
    // <|endoftext|> (0) where llama.cpp skips them. The model runs in llama.cpp, so the import
    // gives llama.cpp's ids. The same tokenizer with transformers' pre-tokenizer stands in for its
    // conversion here (no Python in the tests).
    const numbers = ['    3.14', '\t\t1)', 'بايثون ٣'];
    const texts = [...numbers, '\u{42a4f}'];
    const tool = join(ROOT, 'build/backends/llama-cpp/ts-llama-tokenize');
    const llama = execFileSync(tool, [GGUF], { input: texts.map((t) => JSON.stringify(t)).join('\n') + '\n' })
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as number[]);
    const ours = Tokenizer.fromFile(tokenizerFile);
    const json = JSON.parse(readFileSync(tokenizerFile, 'utf8')) as object;
    const transformersStyle = Tokenizer.fromString(
      JSON.stringify({
        ...json,
        pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: true },
      }),
    );
    for (const [i, text] of texts.entries()) {
      expect((await ours.encode(text, null, { addSpecialTokens: false })).getIds()).toEqual(llama[i]);
    }
    expect(llama[0]!.map((id) => ours.idToToken(id))).toEqual(['ĠĠĠĠ', '3', '.', '1', '4']);
    for (const [i, text] of numbers.entries()) {
      expect((await transformersStyle.encode(text, null, { addSpecialTokens: false })).getIds()).not.toEqual(
        llama[i],
      );
    }
    // An unknown 4-byte character: its bytes the vocabulary has, no <|endoftext|> for the rest.
    expect(llama[3]).toEqual([220, 119, 233]);
  });

  it('carries the special tokens and the chat template into tokenizer_config.json', () => {
    const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
    expect(config).toMatchObject({
      bos_token: '<|im_start|>',
      eos_token: '<|im_end|>',
      pad_token: '<|im_end|>',
      unk_token: '<|endoftext|>',
      add_bos_token: false,
      model_max_length: 8192,
    });
    expect(config.chat_template).toBe(readGgufMetadata(GGUF).get('tokenizer.chat_template'));
    expect(config.chat_template).toContain('<|im_start|>');
  });
});
