/**
 * ChatRenderer, the long-lived `ts-render-chat --batch` process a server renders every request
 * with: answers come back to their own callers under concurrency, a request the template refuses
 * fails alone, and a process that dies fails what it held and is started again.
 */
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatRenderer } from '../../client/chat/chatRenderer.js';
import { ChatRenderError, renderChat, renderChatTool } from '../../client/chat/renderChat.js';
import { stepRenderRequest } from '../../client/chat/stepRender.js';

const QWEN3 = {
  tokenizerConfig: join(resolve(__dirname, '../..'), '.cache/tokenizers/qwen3/tokenizer_config.json'),
};
let renderer: ChatRenderer;

beforeAll(async () => {
  renderer = new ChatRenderer(await renderChatTool(), QWEN3);
}, 600_000);
afterAll(() => renderer?.close());

describe('ChatRenderer', () => {
  it('answers 200 concurrent requests, each with its own text, as one-shot renderChat does', async () => {
    const chats = Array.from({ length: 200 }, (_, i) => ({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: `question ${i}` },
            { type: 'text', text: 'é' },
          ],
        },
      ],
      chatTemplateKwargs: { enable_thinking: i % 2 === 0 },
    }));
    const texts = await Promise.all(chats.map((c) => renderer.render(stepRenderRequest(c))));
    texts.forEach((t, i) => expect(t).toContain(`question ${i}\né<|im_end|>`));
    expect(texts[1]).toContain('<think>\n\n</think>'); // enable_thinking false writes the empty block
    expect(await renderChat(QWEN3, stepRenderRequest(chats[7]!))).toBe(texts[7]);
  });

  it('fails a request the template refuses alone, and stays up', async () => {
    await expect(renderer.render({ messages: 'not a list' as unknown as unknown[] })).rejects.toBeInstanceOf(
      ChatRenderError,
    );
    expect(
      await renderer.render(stepRenderRequest({ messages: [{ role: 'user', content: 'ok' }] })),
    ).toContain('ok');
  });

  it('starts again after its process is killed', async () => {
    await renderer.render(stepRenderRequest({ messages: [{ role: 'user', content: 'a' }] }));
    const child = (renderer as unknown as { child: { kill(): void; once(e: string, f: () => void): void } })
      .child;
    await new Promise<void>((done) => {
      child.once('close', done);
      child.kill();
    });
    expect(
      await renderer.render(stepRenderRequest({ messages: [{ role: 'user', content: 'again' }] })),
    ).toContain('again');
  });

  it('says why when the template cannot be loaded', async () => {
    const broken = new ChatRenderer(await renderChatTool(), {
      tokenizerConfig: '/nonexistent/tokenizer_config.json',
    });
    await expect(broken.render({ messages: [] })).rejects.toThrow(/nonexistent/);
    broken.close();
  });
});
