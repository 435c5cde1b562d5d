/**
 * The server certificate of go-plugin's AutoMTLS: a self-signed ECDSA P-256 certificate for
 * `localhost`, made at start-up, whose DER the handshake line carries (base64 without padding) and
 * which the client then trusts as the only root (github.com/hashicorp/go-plugin `mtls.go`
 * `generateCert`: a CA certificate for the DNS name `localhost`, usable for client and server
 * authentication; `client.go` dials with `ServerName: "localhost"` and that certificate as its
 * root; `server.go` prints `base64.RawStdEncoding` of the DER).
 *
 * Node can make keys and sign but not write certificates, so the DER of the X.509 structure
 * (RFC 5280 §4.1) is written here: version 3, a random serial, ecdsa-with-SHA256, subject = issuer
 * = CN=localhost, valid from 30 s ago for 10 years, the key, and the extensions basicConstraints
 * (CA), keyUsage (digitalSignature, keyEncipherment, keyAgreement, keyCertSign), extKeyUsage
 * (serverAuth, clientAuth) and subjectAltName (DNS localhost).
 * @module
 */
import { createPrivateKey, generateKeyPairSync, randomBytes, sign } from "node:crypto";

// DER: tag, length, content (X.690 §8.1).
function der(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  const n = body.length;
  const len =
    n < 0x80
      ? Buffer.from([n])
      : n < 0x100
        ? Buffer.from([0x81, n])
        : n < 0x10000
          ? Buffer.from([0x82, n >> 8, n & 0xff])
          : Buffer.from([0x83, n >> 16, (n >> 8) & 0xff, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), len, body]);
}
const seq = (...c: Buffer[]) => der(0x30, ...c);
const set = (...c: Buffer[]) => der(0x31, ...c);
const oid = (dotted: string): Buffer => {
  const parts = dotted.split(".").map(Number);
  const bytes = [40 * (parts[0] as number) + (parts[1] as number)];
  for (const p of parts.slice(2)) {
    const chunk = [p & 0x7f];
    for (let v = p >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return der(0x06, Buffer.from(bytes));
};
const utf8 = (s: string) => der(0x0c, Buffer.from(s, "utf8"));
const bool = (b: boolean) => der(0x01, Buffer.from([b ? 0xff : 0]));
const octets = (b: Buffer) => der(0x04, b);
const bits = (b: Buffer, unused = 0) => der(0x03, Buffer.from([unused]), b);
/** GeneralizedTime (valid for any year; RFC 5280 wants UTCTime before 2050, which Go also reads). */
const time = (d: Date): Buffer => {
  const iso = d.toISOString().replace(/[-:T]/g, "").slice(0, 14);
  return d.getUTCFullYear() < 2050
    ? der(0x17, Buffer.from(`${iso.slice(2)}Z`))
    : der(0x18, Buffer.from(`${iso}Z`));
};

const ECDSA_SHA256 = "1.2.840.10045.4.3.2";

/** A server certificate and its key, as PEM, and the DER of the certificate. */
export interface ServerCertificate {
  certPem: string;
  keyPem: string;
  der: Buffer;
}

/** A new self-signed certificate for `localhost` (see the module notes). */
export function serverCertificate(
  now: Date = new Date(),
  random: (size: number) => Buffer = randomBytes,
): ServerCertificate {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const spki = publicKey.export({ type: "spki", format: "der" });
  const serial = random(16);
  // Positive, and never a leading zero byte: DER wants an INTEGER's shortest form, and a serial
  // 0x00 0x01... ("illegal padding") made the TLS credentials fail, which the start misread as
  // no free port (about one start in 256).
  serial[0] = ((serial[0] as number) & 0x7f) | 0x40;
  const name = seq(set(seq(oid("2.5.4.10"), utf8("flagstack"))), set(seq(oid("2.5.4.3"), utf8("localhost"))));
  const notBefore = new Date(now.getTime() - 30_000);
  const notAfter = new Date(now.getTime() + 10 * 365 * 24 * 3600_000);
  const extension = (id: string, critical: boolean, value: Buffer) =>
    seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));
  const extensions = der(
    0xa3,
    seq(
      // keyUsage: digitalSignature(0), keyEncipherment(2), keyAgreement(4), keyCertSign(5) → 1010 1100, 2 unused bits
      extension("2.5.29.15", true, bits(Buffer.from([0xac]), 2)),
      // extKeyUsage: clientAuth, serverAuth
      extension("2.5.29.37", false, seq(oid("1.3.6.1.5.5.7.3.2"), oid("1.3.6.1.5.5.7.3.1"))),
      // basicConstraints: CA
      extension("2.5.29.19", true, seq(bool(true))),
      // subjectAltName: dNSName localhost
      extension("2.5.29.17", false, seq(der(0x82, Buffer.from("localhost")))),
    ),
  );
  const algorithm = seq(oid(ECDSA_SHA256));
  const tbs = seq(
    der(0xa0, der(0x02, Buffer.from([2]))),
    der(0x02, serial),
    algorithm,
    name,
    seq(time(notBefore), time(notAfter)),
    name,
    spki,
    extensions,
  );
  const signature = sign("sha256", tbs, privateKey); // DER-encoded ECDSA signature
  const cert = seq(tbs, algorithm, bits(signature));
  const pem = (label: string, body: Buffer) =>
    `-----BEGIN ${label}-----\n${body
      .toString("base64")
      .match(/.{1,64}/g)
      ?.join("\n")}\n-----END ${label}-----\n`;
  const keyPem = createPrivateKey(privateKey.export({ type: "pkcs8", format: "pem" })).export({
    type: "pkcs8",
    format: "pem",
  }) as string;
  return { certPem: pem("CERTIFICATE", cert), keyPem, der: cert };
}
