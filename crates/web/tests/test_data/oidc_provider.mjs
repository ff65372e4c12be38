// A real OpenID provider (the npm package `oidc-provider`, pinned in xtask/peers) on
// 127.0.0.1, for the browser test of the server toolkit's OAuth-client pattern.
//
// Usage: node oidc_provider.mjs <port> <client_id> <client_secret> <redirect_uri>
// Prints "ready <issuer>" on stdout once it listens; stops when stdin closes (the test ended).
// Its development login and consent pages are the ones a person sees: any login name and
// password are accepted, as the package's development interactions do.

import { join } from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';

// The peers folder (`INTERLUDE_NPM_PEERS`) holds the pinned package.
const peers = process.env.INTERLUDE_NPM_PEERS;
const entry = join(peers, 'node_modules', 'oidc-provider', 'lib', 'index.js');
const { default: Provider } = await import(pathToFileURL(entry).href);

const [port, clientId, clientSecret, redirectUri] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;
const provider = new Provider(issuer, {
  clients: [{
    client_id: clientId,
    client_secret: clientSecret,
    redirect_uris: [redirectUri],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
  }],
  pkce: { required: () => true },
  // Plain http on loopback: development only.
  cookies: { keys: ['interlude-test-cookie-key'] },
  features: { devInteractions: { enabled: true } },
});
provider.proxy = false;
const server = provider.listen(Number(port), '127.0.0.1', () => {
  process.stdout.write(`ready ${issuer}\n`);
});
process.stdin.on('end', () => { server.close(); process.exit(0); });
process.stdin.resume();
