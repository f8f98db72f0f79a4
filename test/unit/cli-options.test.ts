/**
 * The CLI's argument parsers, server addresses, gRPC failures as one-line errors, and the one
 * connection-options path.
 */
import { status } from '@grpc/grpc-js';
import { InvalidArgumentError, type Command } from 'commander';
import { describe, expect, it, vi } from 'vitest';
import { CliError } from '../../cli/io.js';
import { createProgram, runCli } from '../../cli/main.js';
import { header, seconds, wholeNumber } from '../../cli/options.js';
import { normalizeUrl, TritonClient } from '../../client/grpc/client.js';
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
    // A mistyped header still holds its secret: the error never quotes the argument.
    for (const mistyped of ['triton-grpc-protocol-key:s3cret', 's3cret', '=s3cret']) {
      expect(() => header(mistyped)).toThrow(
        new CliError(
          "option '--header <key=value>': expected KEY=VALUE (the argument is not shown: it may hold a secret)",
          2,
        ),
      );
    }
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
    // Empty: no server answered (the extension tells an unreachable server by it).
    expect(e.serverMessage).toBe('');
  });
});

describe('one connection-options path', () => {
  /** Every command, subcommands included, as `parent child`. */
  function commands(command: Command, prefix = ''): [string, Command][] {
    return command.commands.flatMap((c) => {
      const name = `${prefix}${c.name()}`;
      return [[name, c] as [string, Command], ...commands(c, `${name} `)];
    });
  }

  it('gives every command that takes --url the header and TLS options', () => {
    const connecting = commands(createProgram()).filter(([, c]) => c.options.some((o) => o.long === '--url'));
    expect(connecting.map(([name]) => name)).toEqual(
      expect.arrayContaining(['deploy', 'prompt', 'perf measure']),
    );
    for (const [name, command] of connecting) {
      const longs = command.options.map((o) => o.long);
      expect({ name, longs }).toEqual({
        name,
        longs: expect.arrayContaining([
          '--header',
          '--timeout',
          '--tls',
          '--tls-ca',
          '--tls-cert',
          '--tls-key',
          '--tls-server-name',
        ]),
      });
    }
  });

  it('refuses a header gRPC cannot carry without quoting its value (values are secrets)', () => {
    const secret = 'token-\u0007-s3cret';
    let message = '';
    try {
      new TritonClient('127.0.0.1:1', { headers: { 'triton-grpc-protocol-key': secret } });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe(
      "the value of header 'triton-grpc-protocol-key' has characters gRPC metadata cannot carry (printable ASCII only); the value is not shown",
    );
    expect(() => new TritonClient('127.0.0.1:1', { headers: { 'Bad Key': 'v' } })).toThrow(
      "header name 'Bad Key' is not a gRPC metadata key",
    );
  });
});

describe('a mistyped --header on the command line', () => {
  it('exits 2 naming the option, and the secret it holds appears nowhere', async () => {
    const written: string[] = [];
    const capture = (chunk: string | Uint8Array) => (written.push(chunk.toString()), true);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(capture);
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(capture);
    try {
      const code = await runCli([
        'status',
        '--url',
        '127.0.0.1:1',
        '--header',
        'studio-key:s3cret-value',
        '--json',
      ]);
      expect(code).toBe(2);
    } finally {
      err.mockRestore();
      out.mockRestore();
    }
    expect(written.join('')).toContain("option '--header <key=value>': expected KEY=VALUE");
    expect(written.join('')).not.toContain('s3cret-value');
  });
});

describe('TLS failures as user-facing errors', () => {
  const unavailable = (details: string) =>
    Object.assign(new Error(details), { code: status.UNAVAILABLE, details, metadata: {} });
  const plain = { tls: false, clientCertificate: false };
  const tls = { tls: true, clientCertificate: false };
  const failed =
    'No connection established. Last error: Failed to connect (2026-11-23T13:23:33.256Z). Resolution note: ';

  it('tells a plaintext client that the server may use TLS, and a TLS client that it may need a client certificate', () => {
    expect(toTritonError(unavailable(failed), 'h:1', 'ServerLive', 1, plain).message).toMatch(
      /^Triton at h:1 accepted the connection but not plaintext gRPC: if the server uses TLS \(--grpc-use-ssl\), pass --tls-ca FILE/,
    );
    expect(toTritonError(unavailable(failed), 'h:1', 'ServerLive', 1, tls).message).toMatch(
      /pass --tls-cert FILE and --tls-key FILE$/,
    );
    expect(
      toTritonError(unavailable(failed), 'h:1', 'ServerLive', 1, { tls: true, clientCertificate: true })
        .message,
    ).toMatch(/does not accept the client certificate/);
  });

  it('says a TLS client reached a plaintext port', () => {
    const wrongVersion =
      'No connection established. Last error: Error: 803C10645B7F0000:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/openssl/openssl/ssl/record/ssl3_record.c:350:\n. Resolution note: ';
    expect(toTritonError(unavailable(wrongVersion), 'h:1', 'ServerLive', 1, tls).message).toBe(
      'Triton at h:1 does not speak TLS on this port (wrong version number): leave out the --tls options, or check that the server runs with --grpc-use-ssl',
    );
  });
});

describe('perf --help', () => {
  it('shows the options of the default perf measure, not only the subcommands', () => {
    const perf = createProgram().commands.find((c) => c.name() === 'perf')!;
    let text = '';
    perf.configureOutput({ writeOut: (s) => (text += s) });
    perf.outputHelp();
    expect(text).toContain('compare [options] <a> <b>');
    expect(text).toMatch(/The default command, perf measure:[\s\S]*--model <name>[\s\S]*--concurrency <n,…>/);
  });
});
