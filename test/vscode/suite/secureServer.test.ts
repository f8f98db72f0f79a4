/**
 * The extension against a mutual-TLS server with a restricted repository endpoint: secrets, TLS
 * files and refusals.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { startLocalServer, type LocalServer } from '../../../client/server/localServer.js';
import type { TritonStudioApi } from '../../../extension/extension.js';

const SECRET = `vscode-s3cret-${process.pid}`;
const HEADER = 'triton-grpc-protocol-studio-key';

function api(): TritonStudioApi {
  return vscode.extensions.getExtension<TritonStudioApi>('triton-studio.triton-studio')!.exports;
}

/** A CA, a server certificate for `triton.test` only, and a client certificate, made with openssl. */
function makeCertificates(dir: string): void {
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=ca');
  for (const [name, ext] of [
    ['server', 'subjectAltName=DNS:triton.test\nextendedKeyUsage=serverAuth\n'],
    ['client', 'extendedKeyUsage=clientAuth\n'],
  ] as const) {
    writeFileSync(join(dir, `${name}.ext`), ext);
    openssl('req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
    openssl(
      'x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial',
      '-out', `${name}.crt`, '-days', '2', '-extfile', `${name}.ext`,
    ); // prettier-ignore
  }
}

/**
 * The extension's connection settings against a tritonserver that requires mutual TLS and
 * restricts its repository endpoint: the TLS files and server name from `tritonStudio.tls.*`, the
 * endpoint's key from SecretStorage (Set Secret Header), never from settings.json.
 */
describe('Triton Studio: a mutual-TLS server with a restricted repository endpoint', function () {
  this.timeout(120_000);
  const scratch = mkdtempSync(join(tmpdir(), 'ts-vscode-tls-'));
  const pki = join(scratch, 'pki');
  const config = () => vscode.workspace.getConfiguration('tritonStudio');
  const settings: Record<string, string> = {};
  /** The runner's own workspace values (serverUrl), put back for the suites after this one. */
  const original: Record<string, unknown> = {};
  let server: LocalServer;

  before(async () => {
    mkdirSync(pki);
    makeCertificates(pki);
    const repo = join(scratch, 'repo');
    // One model folder, so the repository index has something to list (never loaded).
    mkdirSync(join(repo, 'listed', '1'), { recursive: true });
    writeFileSync(join(repo, 'listed', 'config.pbtxt'), 'backend: "identity"\n');
    server = await startLocalServer({
      modelRepository: repo,
      grpcTls: {
        certificate: join(pki, 'server.crt'),
        key: join(pki, 'server.key'),
        rootCertificate: join(pki, 'ca.crt'),
        mutual: true,
      },
      extraArgs: [`--grpc-restricted-protocol=model-repository:studio-key=${SECRET}`],
    });
    Object.assign(settings, {
      serverUrl: server.grpcUrl,
      'tls.rootCertificate': join(pki, 'ca.crt'),
      'tls.clientCertificate': join(pki, 'client.crt'),
      'tls.clientKey': join(pki, 'client.key'),
      'tls.serverName': 'triton.test',
    });
    for (const key of Object.keys(settings)) original[key] = config().inspect(key)?.workspaceValue;
  });

  after(async () => {
    await vscode.commands.executeCommand('tritonStudio.clearSecrets');
    for (const key of Object.keys(settings)) {
      await config().update(key, original[key], vscode.ConfigurationTarget.Workspace);
    }
    await server?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('lists the repository once the TLS settings and the secret header are set, and refuses without each', async () => {
    for (const [key, value] of Object.entries(settings)) {
      await config().update(key, value, vscode.ConfigurationTarget.Workspace);
    }
    const view = api().serverView;

    const noHeader = await view.refresh();
    assert.equal(noHeader.up, false);
    assert.match(noHeader.error ?? '', /restricted.*--header triton-grpc-protocol-studio-key=VALUE/);

    await vscode.commands.executeCommand('tritonStudio.setSecretHeader', HEADER, SECRET);
    const served = await view.refresh();
    assert.equal(served.error, undefined);
    assert.equal(served.up, true);
    assert.deepEqual(
      served.models.map((m) => m.name),
      ['listed'],
    );

    await config().update('tls.serverName', undefined, vscode.ConfigurationTarget.Workspace);
    const wrongName = await view.refresh();
    assert.match(wrongName.error ?? '', /TLS certificate for another name/);
    await config().update('tls.serverName', 'triton.test', vscode.ConfigurationTarget.Workspace);

    await config().update('tls.clientKey', undefined, vscode.ConfigurationTarget.Workspace);
    const halfPair = await view.refresh();
    assert.match(
      halfPair.error ?? '',
      /tritonStudio\.tls\.clientCertificate and tritonStudio\.tls\.clientKey go together/,
    );

    const settingsFile = join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, '.vscode', 'settings.json');
    const written = readFileSync(settingsFile, 'utf8');
    assert.match(written, /tritonStudio\.tls\.serverName|tritonStudio\.tls\.rootCertificate/);
    assert.doesNotMatch(written, new RegExp(SECRET));
    const key = readFileSync(join(pki, 'client.key'), 'utf8').split('\n')[1]!;
    assert.doesNotMatch(written, new RegExp(key.replace(/[+/]/g, '\\$&')));
  });
});
