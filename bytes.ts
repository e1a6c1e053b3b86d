// Bytes on Web APIs only (TextEncoder, atob/btoa, crypto.getRandomValues), so every module that needs them runs on
// any runtime, a Worker without Node compatibility included: UTF-8, base64 and base64url, hex and random bytes; MACs
// stay Web Crypto's (input.ts), the skills add-on's digest is its own (skills/sha256.ts). No state, no I/O; never
// throws but what a function documents.

const encoder = new TextEncoder();

/** The UTF-8 encoding of `text` (a lone surrogate becomes U+FFFD, as TextEncoder does). */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Bytes as base64 with padding. */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** Bytes as base64url without padding (RFC 4648 section 5). */
export function toBase64Url(bytes: Uint8Array): string {
  return toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Decodes base64 or base64url, padded or not; undefined when it is not base64 (a bad character or length). */
export function fromBase64(text: string): Uint8Array | undefined {
  let binary: string;
  try {
    binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  } catch {
    return undefined;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Bytes as lowercase hex. */
export function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/** `length` bytes from the runtime's cryptographically secure generator. */
export function randomBytes(length: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(length));
}
