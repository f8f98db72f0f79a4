import { status } from '@grpc/grpc-js';
import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { header, seconds, wholeNumber } from '../../cli/options.js';
import { normalizeUrl } from '../../client/grpc/client.js';
import { toTritonError } from '../../client/grpc/errors.js';

describe('CLI argument parsers', () => {
  it('accepts whole numbers at or above the minimum and explains anything else', () => {
    expect(wholeNumber(1)('8')).toBe(8);
    expect(wholeNumber(0)('0')).toBe(0);
    for (const bad of ['0', '-3', '2.5', 'ten', '', '1e3']) {
      expect(() => wholeNumber(1)(bad)).toThrow(InvalidArgumentError);
    }
    expect(() => wholeNumber(1)('0')).toThrow("expected a whole number ≥ 1, got '0'");
  });

  it('accepts positive seconds, fractions included', () => {
    expect(seconds('2.5')).toBe(2.5);
    expect(() => seconds('0')).toThrow("expected a number of seconds > 0, got '0'");
    expect(() => seconds('soon')).toThrow(InvalidArgumentError);
  });

  it('collects repeated --header KEY=VALUE options, values may contain =', () => {
    const first = header('triton-grpc-protocol-key=a=b');
    expect(header('x-other=1', first)).toEqual({ 'triton-grpc-protocol-key': 'a=b', 'x-other': '1' });
    expect(() => header('novalue')).toThrow("expected KEY=VALUE, got 'novalue'");
  });
});

describe('server addresses', () => {
  it('takes HOST:PORT and strips the scheme people paste', () => {
    expect(normalizeUrl('127.0.0.1:8001')).toBe('127.0.0.1:8001');
    expect(normalizeUrl(' grpc://triton.example:443/ ')).toBe('triton.example:443');
    expect(normalizeUrl('http://[::1]:8001')).toBe('[::1]:8001');
    expect(() => normalizeUrl('127.0.0.1')).toThrow(/is not a Triton gRPC address: use HOST:PORT/);
  });
});

describe('gRPC failures as user-facing errors', () => {
  const failure = (code: number, details: string) =>
    Object.assign(new Error(details), { code, details, metadata: {} });

  it('keeps the server message verbatim for server-side errors', () => {
    const e = toTritonError(
      failure(status.INVALID_ARGUMENT, "unexpected inference input 'x'"),
      'h:1',
      'ModelInfer',
    );
    expect(e.message).toBe("ModelInfer failed: unexpected inference input 'x'");
    expect(e.serverMessage).toBe("unexpected inference input 'x'");
  });

  it('names the deadline and what to do when it passes', () => {
    const e = toTritonError(
      failure(status.DEADLINE_EXCEEDED, 'Deadline exceeded'),
      'h:1',
      'RepositoryModelLoad',
      5000,
    );
    expect(e.message).toBe(
      'Triton at h:1 did not answer RepositoryModelLoad within 5000 ms: raise the timeout or check the server log',
    );
  });

  it('says how to start a server when the connection is refused', () => {
    const e = toTritonError(
      failure(status.UNAVAILABLE, 'No connection established. Last error: connect ECONNREFUSED 127.0.0.1:9'),
      '127.0.0.1:9',
      'ServerLive',
    );
    expect(e.message).toBe(
      'cannot reach Triton at 127.0.0.1:9: is it running? start one with `triton-studio serve REPO` (connection refused)',
    );
  });
});
