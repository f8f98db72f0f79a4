/**
 * Server versions with Triton's burst-cancellation fault (upstream #7368/#8034, fixed in 24.12 =
 * server 2.53.0) are named with what to run instead; fixed and unknown versions say nothing. The
 * real server's answer (2.51) is checked through status, deploy and openai-serve in
 * test/integration/openai-front-hardening.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { containerTagWarning, FIRST_FIXED_SERVER, serverVersionWarning } from '../../client/serverVersion.js';

describe('serverVersionWarning', () => {
  it.each(['2.51.0', '2.52.0', '2.41.0', '2.9.0', '2.52.9'])(
    'warns for %s, naming the fixed release',
    (v) => {
      const warning = serverVersionWarning(v);
      expect(warning).toContain(`Triton ${v} has the burst-cancellation fault`);
      expect(warning).toContain('Triton 2.53.0 or newer (container 24.12+');
    },
  );

  it.each(['2.53.0', '2.53.1', '2.54.0', '2.60.0', '3.0.0', '', undefined])('is quiet for %s', (v) => {
    expect(serverVersionWarning(v)).toBeUndefined();
  });

  it('the first fixed release is 24.12 (server 2.53.0)', () => {
    expect(FIRST_FIXED_SERVER).toEqual({ version: '2.53.0', container: '24.12' });
  });
});

describe('containerTagWarning (k8s --triton-tag)', () => {
  it.each(['24.05-py3', '24.11-trtllm-python-py3', '23.12-py3', '24.08'])('warns for %s', (tag) => {
    expect(containerTagWarning(tag)).toMatch(
      /burst-cancellation fault.*Use --triton-tag 24\.12-py3 or newer/,
    );
  });
  it.each(['24.12-py3', '24.12-trtllm-python-py3', '25.01-py3', '26.06-py3', 'latest', 'my-build'])(
    'is quiet for %s',
    (tag) => expect(containerTagWarning(tag)).toBeUndefined(),
  );
});
