// An error toast short enough that VS Code shows it (a toast over ~62% of the window's height goes
// unseen into the notification center); the whole message stays in the log.
import { describe, expect, it } from 'vitest';
import { TOAST_MAX_CHARS, toastText } from '../../extension/commands/toastText.js';

describe('toastText', () => {
  it('keeps a short message as it is, first line only', () => {
    expect(toastText('Deploy failed: the server is down.\nstack…')).toBe(
      'Deploy failed: the server is down.',
    );
  });

  it('cuts a long one at a word and says where the rest is', () => {
    const paths = Array.from(
      { length: 6 },
      (_, i) => `/home/user/.vscode/globalStorage/tokenizers/t${i}/tokenizer.json`,
    );
    const message = `p.pipeline.json has errors: nothing was generated. TS-E051: Tokenizer "t" not found (looked in ${paths.join(', ')}).`;
    const text = toastText(message);
    expect(text.length).toBeLessThanOrEqual(TOAST_MAX_CHARS);
    expect(text).toMatch(
      /^p\.pipeline\.json has errors: nothing was generated\. TS-E051: Tokenizer "t" not found/,
    );
    expect(text).toMatch(/\S … \(the whole message is in the log\)$/);
    expect(message.startsWith(text.replace(/ … \(the whole message is in the log\)$/, ''))).toBe(true);
  });

  it('cuts a message without spaces too', () => {
    const text = toastText('x'.repeat(1000));
    expect(text.length).toBeLessThanOrEqual(TOAST_MAX_CHARS);
  });
});
