import { describe, expect, it } from "vitest";
import {
  completeEnd,
  firstInvalidUtf8,
  invalidUtf8Offsets,
  invalidUtf8Reason,
  showBytes,
} from "../../../../sdk/events/import/utf8";

const b = (...bytes: number[]) => Buffer.from(bytes);

describe("UTF-8 checks", () => {
  it.each([
    ["ASCII", b(0x61, 0x62), -1],
    ["two-, three- and four-byte characters", Buffer.from("é€😀"), -1],
    ["U+FFFD itself", Buffer.from("a\uFFFD"), -1],
    ["a stray continuation byte", b(0x61, 0x80), 1],
    ["a Latin-1 byte", b(0x61, 0x62, 0xe9, 0x63), 2],
    ["C0 (only ever overlong)", b(0xc0, 0xaf), 0],
    ["an overlong three-byte form", b(0xe0, 0x80, 0xaf), 0],
    ["a surrogate", b(0xed, 0xa0, 0x80), 0],
    ["above U+10FFFF", b(0xf4, 0x90, 0x80, 0x80), 0],
    ["F5", b(0xf5, 0x80, 0x80, 0x80), 0],
    ["a sequence cut short", b(0x61, 0xe2, 0x82), 1],
    ["a lead byte followed by ASCII", b(0xc3, 0x28), 0],
  ])("firstInvalidUtf8: %s", (_, buf, at) => {
    expect(firstInvalidUtf8(buf)).toBe(at);
  });

  it("counts offsets from the start of the range", () => {
    const buf = Buffer.concat([b(0xff), Buffer.from("ab"), b(0xfe), Buffer.from("c")]);
    expect(firstInvalidUtf8(buf, 1)).toBe(2);
    expect(firstInvalidUtf8(buf, 1, 3)).toBe(-1);
  });

  it("lists the start of each run of bad bytes", () => {
    const buf = Buffer.concat([Buffer.from("a"), b(0xff, 0xfe), Buffer.from("é"), b(0x80), Buffer.from("z")]);
    expect(invalidUtf8Offsets(buf)).toEqual([1, 5]);
    expect(invalidUtf8Offsets(Buffer.from("fine é"))).toEqual([]);
  });

  it.each([
    ["whole characters", Buffer.from("aé€"), 6],
    ["a cut two-byte character", b(0x61, 0xc3), 1],
    ["a three-byte character missing one byte", b(0x61, 0xe2, 0x82), 1],
    ["a four-byte character missing one byte", b(0x61, 0xf0, 0x9f, 0x98), 1],
    ["a complete four-byte character", Buffer.from("a😀"), 5],
    ["a byte no character starts with", b(0x61, 0xff), 2],
    ["nothing", b(), 0],
  ])("completeEnd: %s", (_, buf, end) => {
    expect(completeEnd(buf)).toBe(end);
  });

  it("names the byte 1-based and shows bad bytes as \\xNN", () => {
    expect(invalidUtf8Reason(0xe9, 0, "line")).toBe(
      "not valid UTF-8: byte 0xe9 at byte 1 of the line; the input must be UTF-8 encoded",
    );
    expect(showBytes(Buffer.concat([Buffer.from("ren"), b(0xe9, 0x0f), Buffer.from("é"), b(0xc3)]))).toBe(
      "ren\\xe9\x0fé\\xc3",
    );
  });
});
