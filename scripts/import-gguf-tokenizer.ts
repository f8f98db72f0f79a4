// Writes the SmolLM2 sample's tokenizer.json + tokenizer_config.json (chat template included)
// from its GGUF into .cache/tokenizers/smollm2-135m-instruct/, where pipelines find it by name.
// Run by scripts/fetch-llama.sh after the GGUF is fetched and checked.
import path from 'node:path';
import { importGgufTokenizer } from '../generator/import/ggufTokenizer.js';

const root = path.resolve(__dirname, '..');
const gguf = process.argv[2] ?? path.join(root, '.cache/llama/models/SmolLM2-135M-Instruct.Q4_1.gguf');
const out = process.argv[3] ?? path.join(root, '.cache/tokenizers/smollm2-135m-instruct');
const { tokenizerFile, configFile } = importGgufTokenizer(gguf, out);
console.log(`[setup] wrote ${tokenizerFile} and ${configFile} from ${path.basename(gguf)}`);
