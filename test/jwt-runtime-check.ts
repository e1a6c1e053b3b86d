// Run by test/jwt-runtimes.test.ts under Bun and Deno: verifies the tokens its last argument gives (JSON:
// {issuer, audience, jwksUri, tokens}) with mcp-core/jwt against the test's loopback JWK Set, and prints one JSON
// object: each token's verdict (the subject, null when refused, or the name of what was thrown) and the refusals
// logged.

import { jwtVerifier } from '../jwt/jwt.ts';

const { issuer, audience, jwksUri, tokens } = JSON.parse(process.argv.at(-1)!) as {
  issuer: string;
  audience: string;
  jwksUri: string;
  tokens: string[];
};
const refusals: string[] = [];
const verifier = jwtVerifier({ issuer, audience, jwksUri, logger: { warn: (message) => void refusals.push(message) } });
const verdicts: (string | null)[] = [];
for (const token of tokens) {
  verdicts.push(
    await verifier.verifyToken(token).then(
      (info) => info?.subject ?? null,
      (error: Error) => error.name,
    ),
  );
}
process.stdout.write(JSON.stringify({ verdicts, refusals }));
