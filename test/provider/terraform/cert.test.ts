/**
 * The plugin's self-signed server certificate (`provider/terraform/cert.ts`): valid DER whatever
 * the random serial, so the TLS credentials made from it load.
 */
import { X509Certificate } from "node:crypto";
import { describe, expect, it } from "vitest";
import { serverCertificate } from "../../../provider/terraform/cert";

describe("serverCertificate", () => {
  it.each([
    ["a serial whose first byte masks to zero", [0x80, 0x01]],
    ["a serial of zeros", [0x00, 0x00]],
    ["a serial with the high bit set", [0xff, 0xff]],
  ])("%s: a certificate that parses, with a positive serial of 16 bytes", (_, head) => {
    const random = (n: number) => Buffer.concat([Buffer.from(head), Buffer.alloc(n - head.length, 0x11)]);
    const cert = serverCertificate(new Date("2026-01-01T00:00:00Z"), random);
    const x509 = new X509Certificate(cert.certPem);
    expect(x509.serialNumber).toMatch(/^[4-7][0-9A-F]{31}$/);
    expect([x509.subject, x509.subjectAltName]).toEqual(["O=flagstack\nCN=localhost", "DNS:localhost"]);
    expect(Buffer.from(x509.raw).equals(cert.der)).toBe(true);
  });
});
