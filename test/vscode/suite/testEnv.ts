/**
 * Environment variables through which runTests.ts tells the suite (inside the extension host)
 * about the server it started; they are set on the code-server process.
 */
export const TEST_ENV = {
  serverUrl: 'TRITON_STUDIO_TEST_SERVER_URL',
  model: 'TRITON_STUDIO_TEST_MODEL',
  maxTokens: 'TRITON_STUDIO_TEST_MAX_TOKENS',
  /** Hugging Face tokenizer.json of the model's tokenizer, for the expected answers. */
  referenceTokenizer: 'TRITON_STUDIO_TEST_REFERENCE_TOKENIZER',
  /** Optional mocha --grep. */
  grep: 'TRITON_STUDIO_TEST_GREP',
  /** Optional: where the suite writes its counts (vitest's JSON field names) for the test summary. */
  results: 'TRITON_STUDIO_TEST_RESULTS',
  /**
   * Set (to "1") for the run in a workspace without any pipeline file: only the suite that checks
   * activation by the command runs there, and only there.
   */
  noPipelineWorkspace: 'TRITON_STUDIO_TEST_NO_PIPELINE_WORKSPACE',
  /** Set for the run on a profile holding the extension installed from its .vsix: that folder. */
  vsixExtensionsDir: 'TRITON_STUDIO_TEST_VSIX_EXTENSIONS_DIR',
  /**
   * The installed-extension run: a folder of the wheels nvidia-pytriton needs, which stands for
   * PyPI when Install Local Server runs (pip's PIP_FIND_LINKS), so the suite needs no 100 MB download.
   */
  serverWheels: 'TRITON_STUDIO_TEST_SERVER_WHEELS',
  /** The installed-extension run: the checkout, which nothing the extension writes may name. */
  checkoutRoot: 'TRITON_STUDIO_TEST_CHECKOUT_ROOT',
} as const;

/** Read by the launcher: "1" keeps Workspace Trust on (the folder opens in Restricted Mode). */
export const WORKSPACE_TRUST_ENV = 'TRITON_STUDIO_VSCODE_WORKSPACE_TRUST';

/** The one suite file for the workspace without a pipeline file. */
export const NO_PIPELINE_SUITE = 'commandActivation.test.js';
/** The suite files for the profile with the extension installed from the .vsix, run in this order. */
export const VSIX_SUITES = ['vsixInstall.test.js', 'vsixRealModel.test.js'];

export function testEnv(
  name: Exclude<
    keyof typeof TEST_ENV,
    'grep' | 'results' | 'noPipelineWorkspace' | 'vsixExtensionsDir' | 'serverWheels' | 'checkoutRoot'
  >,
): string {
  const value = process.env[TEST_ENV[name]];
  if (!value) {
    throw new Error(`${TEST_ENV[name]} is not set: run the suite through \`npm run test:vscode\``);
  }
  return value;
}
