/**
 * The MessagePack subset of the plugin protocol's `DynamicValue`: the exact bytes of each form the
 * encoder writes (msgpack spec.md "Formats"), every form the decoder reads, the unknown value
 * (extension code 0 written; any extension code read, code 12's refinements ignored), and the
 * errors of malformed input.
 */
import { describe, expect, it } from "vitest";
import { decode, encode, isUnknown, MsgpackError, UNKNOWN_VALUE } from "../../../provider/terraform/msgpack";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const bytes = (h: string) => Buffer.from(h.replace(/\s+/g, ""), "hex");

describe("encode: the most compact form of each value", () => {
  it.each([
    [null, "c0"],
    [false, "c2"],
    [true, "c3"],
    [0, "00"],
    [127, "7f"],
    [128, "cc80"],
    [255, "ccff"],
    [256, "cd0100"],
    [65535, "cdffff"],
    [65536, "ce00010000"],
    [4294967296, "cf0000000100000000"],
    [-1, "ff"],
    [-32, "e0"],
    [-33, "d0df"],
    [-128, "d080"],
    [-129, "d1ff7f"],
    [-32769, "d2ffff7fff"],
    [-2147483649, "d3ffffffff7fffffff"],
    [1.5, "cb3ff8000000000000"],
    [2 ** 53, "cb4340000000000000"],
    ["", "a0"],
    ["on", "a26f6e"],
    ["é", "a2c3a9"],
  ] as const)("%j → %s", (value, expected) => {
    expect(hex(encode(value))).toBe(expected);
  });

  it("strings of 32, 256 and 65536 bytes take str 8, str 16 and str 32", () => {
    expect(hex(encode("a".repeat(31)).subarray(0, 1))).toBe("bf");
    expect(hex(encode("a".repeat(32)).subarray(0, 2))).toBe("d920");
    expect(hex(encode("a".repeat(256)).subarray(0, 3))).toBe("da0100");
    expect(hex(encode("a".repeat(65536)).subarray(0, 5))).toBe("db00010000");
  });

  it("arrays and maps take the fix form below 16 members, then 16 bits", () => {
    expect(hex(encode([1, "a", null]))).toBe("9301a161c0");
    expect(hex(encode(new Array(16).fill(0)).subarray(0, 3))).toBe("dc0010");
    expect(hex(encode({ a: 1, b: [true] }))).toBe("82a16101a16291c3");
    expect(
      hex(encode(Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, i]))).subarray(0, 3)),
    ).toBe("de0010");
  });

  it("binaries take bin 8 and bin 16", () => {
    expect(hex(encode(Uint8Array.from([1, 2])))).toBe("c4020102");
    expect(hex(encode(new Uint8Array(256)).subarray(0, 3))).toBe("c50100");
  });

  it("the unknown value is fixext 1 with extension code 0", () => {
    expect(hex(encode(UNKNOWN_VALUE))).toBe("d40000");
    expect(hex(encode({ id: UNKNOWN_VALUE }))).toBe("81a26964d40000");
  });

  it("a member whose value is undefined is left out", () => {
    expect(hex(encode({ a: 1, b: undefined } as never))).toBe("81a16101");
  });
});

describe("decode", () => {
  it("reads back what encode writes", () => {
    const value = {
      name: "new-checkout",
      tags: ["web", "checkout"],
      allocation: 80,
      ratio: 0.25,
      negative: -300,
      big: 2 ** 40,
      killed: false,
      owners: null,
      nested: { deep: [{ a: "b" }] },
    };
    expect(decode(encode(value))).toEqual(value);
  });

  it("reads the forms encode never writes: float 32, int 8-64 of small values, str 8 of a short string", () => {
    expect(decode(bytes("ca3fc00000"))).toBe(1.5);
    expect(decode(bytes("d001"))).toBe(1);
    expect(decode(bytes("d10001"))).toBe(1);
    expect(decode(bytes("d2ffffffff"))).toBe(-1);
    expect(decode(bytes("d3ffffffffffffffff"))).toBe(-1);
    expect(decode(bytes("cf0000000000000005"))).toBe(5);
    expect(decode(bytes("d9026f6e"))).toBe("on");
    expect(decode(bytes("da00026f6e"))).toBe("on");
    expect(decode(bytes("dc0001c3"))).toEqual([true]);
    expect(decode(bytes("de0001a16101"))).toEqual({ a: 1 });
    expect(decode(bytes("c6000000020102"))).toEqual(Uint8Array.from([1, 2]));
  });

  it("any extension is the unknown value: code 0, and code 12 with refinements (ignored)", () => {
    expect(isUnknown(decode(bytes("d40000")))).toBe(true);
    // ext 8, code 12, payload {1: false} (not null) as a msgpack map: 81 01 c2, padded in fixext 4.
    expect(isUnknown(decode(bytes("d60c8101c200")))).toBe(true);
    expect(isUnknown(decode(bytes("c7030c8101c2")))).toBe(true);
    const obj = decode(bytes("82a16101a162d40000")) as Record<string, unknown>;
    expect(obj.a).toBe(1);
    expect(isUnknown(obj.b)).toBe(true);
  });

  it("keeps a __proto__ key as an own member (map keys are user data)", () => {
    const value = decode(bytes("81a95f5f70726f746f5f5f01")) as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  });

  it.each([
    ["a26f", "msgpack: truncated at byte 1"],
    ["c0c0", "msgpack: 1 trailing bytes"],
    ["c1", "msgpack: unsupported type byte 0xc1 at byte 0"],
    ["8101c0", "msgpack: a map key is not a string"],
    ["cfffffffffffffffff", "msgpack: integer 18446744073709551615 is outside the safe range"],
  ])("refuses %s: %s", (input, message) => {
    expect(() => decode(bytes(input))).toThrow(new MsgpackError(message));
  });
});
