/**
 * `scripts/release-binary.mts`, the parts that need no download: Terraform's `h1:` hash (Go's
 * `dirhash.Hash1`, against a value computed apart with Python's hashlib; OpenTofu's own agreement is test/e2e/provider-binary.test.ts's lock file), the removal of a Mach-O code
 * signature (on a file laid out as Node's macOS build is: the signature the last load command and
 * the end of `__LINKEDIT` and of the file), and the platform names.
 */
import { describe, expect, it } from "vitest";
import { SOURCE_ADDRESS as CLI_SOURCE_ADDRESS } from "../../cli/terraform-command";
import {
  exeName,
  hashV1,
  parsePlatforms,
  removeMachOSignature,
  SOURCE_ADDRESS,
} from "../../scripts/release-binary.mts";

/** A thin 64-bit Mach-O: the header, `__LINKEDIT` (a segment command), a signature command, then data. */
function machO(signed: boolean): Buffer {
  const HEADER = 32;
  const segment = 72;
  const signature = signed ? 16 : 0;
  const dataStart = 4096;
  const linkeditData = Buffer.from("linkedit-bytes");
  const sig = Buffer.from("signature-bytes!");
  const file = Buffer.alloc(dataStart + linkeditData.length + (signed ? sig.length : 0));
  file.writeUInt32LE(0xfeedfacf, 0);
  file.writeUInt32LE(signed ? 2 : 1, 16);
  file.writeUInt32LE(segment + signature, 20);
  let at = HEADER;
  file.writeUInt32LE(0x19, at);
  file.writeUInt32LE(segment, at + 4);
  file.write("__LINKEDIT", at + 8, "latin1");
  file.writeBigUInt64LE(0x100000000n, at + 24);
  file.writeBigUInt64LE(BigInt(signed ? 8192 : 4096), at + 32);
  file.writeBigUInt64LE(BigInt(dataStart), at + 40);
  file.writeBigUInt64LE(BigInt(linkeditData.length + (signed ? sig.length : 0)), at + 48);
  at += segment;
  if (signed) {
    file.writeUInt32LE(0x1d, at);
    file.writeUInt32LE(16, at + 4);
    file.writeUInt32LE(dataStart + linkeditData.length, at + 8);
    file.writeUInt32LE(sig.length, at + 12);
  }
  linkeditData.copy(file, dataStart);
  if (signed) sig.copy(file, dataStart + linkeditData.length);
  return file;
}

describe("scripts/release-binary", () => {
  it("hashV1 is Go's dirhash.Hash1 of the package's files, as OpenTofu records it", () => {
    const files = new Map([
      ["terraform-provider-x_v1.0.0", Buffer.from("binary")],
      ["README.md", Buffer.from("hello\n")],
    ]);
    // sha256 of "<sha256 hex>  README.md\n<sha256 hex>  terraform-provider-x_v1.0.0\n", base64
    expect(hashV1(files)).toBe("h1:TGxqq0S7tzNN+qWcO/kH3HBuGuex+zFCFNUOg6dhH9A=");
    expect(hashV1(new Map([...files].reverse()))).toBe(hashV1(files));
  });

  it("removes a Mach-O code signature as codesign --remove-signature does", () => {
    const stripped = removeMachOSignature(machO(true));
    const unsigned = machO(false);
    // The same as the file never signed, but __LINKEDIT's vmsize (page-rounded from its new size).
    expect(stripped.length).toBe(unsigned.length);
    expect(stripped.readUInt32LE(16)).toBe(1);
    expect(stripped.readUInt32LE(20)).toBe(72);
    expect(Number(stripped.readBigUInt64LE(32 + 48))).toBe(Number(unsigned.readBigUInt64LE(32 + 48)));
    expect(Number(stripped.readBigUInt64LE(32 + 32))).toBe(4096);
    expect(stripped.subarray(32 + 72, 32 + 72 + 16)).toEqual(Buffer.alloc(16));
    expect(stripped.toString("latin1", 4096)).toBe("linkedit-bytes");
    expect(removeMachOSignature(unsigned)).toBe(unsigned);
    expect(() => removeMachOSignature(Buffer.from("MZ not a mach-o file ............"))).toThrow(
      "release: not a 64-bit little-endian Mach-O file",
    );
  });

  it("releases for the source address `flagstack terraform install` installs for", () => {
    expect(SOURCE_ADDRESS).toBe(CLI_SOURCE_ADDRESS);
  });

  it("names the platforms it can build, and refuses one it cannot, naming it", () => {
    expect(parsePlatforms("linux_amd64,windows_amd64")).toEqual(["linux_amd64", "windows_amd64"]);
    expect(() => parsePlatforms("linux_amd64,darwin_arm64")).toThrow(
      "release: --platforms: no Node 24 build for darwin_arm64 (released: linux_amd64, linux_arm64, windows_amd64, darwin_amd64)",
    );
    expect(exeName("terraform-provider-flagstack_v1", "windows_amd64")).toBe(
      "terraform-provider-flagstack_v1.exe",
    );
    expect(exeName("terraform-provider-flagstack_v1", "darwin_amd64")).toBe(
      "terraform-provider-flagstack_v1",
    );
  });
});
