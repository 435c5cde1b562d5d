/**
 * The MessagePack subset Terraform and OpenTofu use for a `DynamicValue` (the plugin protocol's
 * object wire format: OpenTofu's `docs/plugin-protocol/object-wire-format.md`, "MessagePack
 * Serialization Rules"): nil, booleans, integers, floats, strings, binaries, arrays, maps, and
 * extension values, which stand for a value not known until apply (extension code 0; code 12 a
 * "refined" unknown, whose refinements are ignored here, which the format allows).
 *
 * The encodings follow the MessagePack specification (github.com/msgpack/msgpack `spec.md`,
 * "Formats"): the encoder writes the most compact form of each value (positive/negative fixint,
 * uint/int 8-64, float 64, fixstr/str 8-32, bin 8-32, fixarray/array 16-32, fixmap/map 16-32,
 * fixext 1 for an unknown); the decoder reads every form of those types.
 *
 * No dependency: `@msgpack/msgpack` is not in the dependency tree, and this is the part of it
 * the protocol needs.
 * @module
 */

/** A value not known until apply (a MessagePack extension value in the wire format). */
export class Unknown {
  private constructor() {}
  /** The one unknown value. */
  static readonly value = new Unknown();
  toJSON(): string {
    return "(known after apply)";
  }
}

/** The unknown value (refinements, when the caller sent some, are not kept). */
export const UNKNOWN_VALUE = Unknown.value;

/** True when `value` is the unknown value. */
export const isUnknown = (value: unknown): value is Unknown => value === Unknown.value;

/** What the codec carries: JSON-like values, binaries, and the unknown value. */
export type MsgValue =
  | null
  | boolean
  | number
  | string
  | Uint8Array
  | Unknown
  | MsgValue[]
  | { [key: string]: MsgValue };

// ---------------------------------------------------------------------------------------------
// Encoding

class Writer {
  private buf = Buffer.allocUnsafe(256);
  private len = 0;

  private room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }
  u8(v: number): void {
    this.room(1);
    this.buf[this.len++] = v;
  }
  u16(v: number): void {
    this.room(2);
    this.buf.writeUInt16BE(v, this.len);
    this.len += 2;
  }
  u32(v: number): void {
    this.room(4);
    this.buf.writeUInt32BE(v, this.len);
    this.len += 4;
  }
  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }
  i64(v: bigint, signed: boolean): void {
    this.room(8);
    if (signed) this.buf.writeBigInt64BE(v, this.len);
    else this.buf.writeBigUInt64BE(v, this.len);
    this.len += 8;
  }
  f64(v: number): void {
    this.room(8);
    this.buf.writeDoubleBE(v, this.len);
    this.len += 8;
  }
  result(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.len));
  }
}

/** A type byte followed by `value` as a big-endian unsigned integer of `size` bytes (0, 1, 2, 4). */
function head(w: Writer, type: number, value = 0, size: 0 | 1 | 2 | 4 = 0): void {
  w.u8(type);
  if (size === 1) w.u8(value);
  else if (size === 2) w.u16(value);
  else if (size === 4) w.u32(value);
}

function writeNumber(w: Writer, v: number): void {
  if (!Number.isInteger(v) || !Number.isSafeInteger(v)) {
    w.u8(0xcb);
    w.f64(v);
  } else if (v >= 0) {
    if (v < 0x80) w.u8(v);
    else if (v < 0x100) head(w, 0xcc, v, 1);
    else if (v < 0x10000) head(w, 0xcd, v, 2);
    else if (v < 0x100000000) head(w, 0xce, v, 4);
    else {
      w.u8(0xcf);
      w.i64(BigInt(v), false);
    }
  } else if (v >= -32) w.u8(v & 0xff);
  else if (v >= -0x80) head(w, 0xd0, v & 0xff, 1);
  else if (v >= -0x8000) head(w, 0xd1, v & 0xffff, 2);
  else if (v >= -0x80000000) head(w, 0xd2, v >>> 0, 4);
  else {
    w.u8(0xd3);
    w.i64(BigInt(v), true);
  }
}

/** A length: in the fix form's low bits below `fixMax`, else the 8-, 16- or 32-bit form. */
function writeLength(
  w: Writer,
  n: number,
  fix: number,
  fixMax: number,
  c8: number | undefined,
  c16: number,
  c32: number,
): void {
  if (n < fixMax) w.u8(fix | n);
  else if (c8 !== undefined && n < 0x100) head(w, c8, n, 1);
  else if (n < 0x10000) head(w, c16, n, 2);
  else head(w, c32, n, 4);
}

function write(w: Writer, v: MsgValue): void {
  if (v === null || v === undefined) w.u8(0xc0);
  else if (v === false) w.u8(0xc2);
  else if (v === true) w.u8(0xc3);
  else if (typeof v === "number") writeNumber(w, v);
  else if (typeof v === "string") {
    const b = Buffer.from(v, "utf8");
    writeLength(w, b.length, 0xa0, 32, 0xd9, 0xda, 0xdb);
    w.bytes(b);
  } else if (v instanceof Uint8Array) {
    writeLength(w, v.length, 0, 0, 0xc4, 0xc5, 0xc6);
    w.bytes(v);
  } else if (isUnknown(v)) {
    // fixext 1, type 0, one ignored byte: the unrefined unknown.
    w.u8(0xd4);
    w.u8(0);
    w.u8(0);
  } else if (Array.isArray(v)) {
    writeLength(w, v.length, 0x90, 16, undefined, 0xdc, 0xdd);
    for (const item of v) write(w, item);
  } else {
    const entries = Object.entries(v).filter(([, x]) => x !== undefined);
    writeLength(w, entries.length, 0x80, 16, undefined, 0xde, 0xdf);
    for (const [k, x] of entries) {
      write(w, k);
      write(w, x);
    }
  }
}

/** The MessagePack encoding of `value` (a `null` or `undefined` member of a map is nil / left out). */
export function encode(value: MsgValue): Buffer {
  const w = new Writer();
  write(w, value);
  return w.result();
}

// ---------------------------------------------------------------------------------------------
// Decoding

/** A MessagePack document that is malformed or uses a form outside the subset. */
export class MsgpackError extends Error {
  override name = "MsgpackError";
}

class Reader {
  pos = 0;
  constructor(private readonly buf: Buffer) {}
  need(n: number): void {
    if (this.pos + n > this.buf.length) throw new MsgpackError(`msgpack: truncated at byte ${this.pos}`);
  }
  u8(): number {
    this.need(1);
    return this.buf[this.pos++] as number;
  }
  u16(): number {
    this.need(2);
    const v = this.buf.readUInt16BE(this.pos);
    this.pos += 2;
    return v;
  }
  u32(): number {
    this.need(4);
    const v = this.buf.readUInt32BE(this.pos);
    this.pos += 4;
    return v;
  }
  bytes(n: number): Buffer {
    this.need(n);
    const b = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }
}

function int64(r: Reader, signed: boolean): number {
  const b = r.bytes(8);
  const big = signed ? b.readBigInt64BE(0) : b.readBigUInt64BE(0);
  const n = Number(big);
  // Terraform numbers are arbitrary precision; a 64-bit integer beyond 2^53 is sent as a string.
  if (!Number.isSafeInteger(n)) throw new MsgpackError(`msgpack: integer ${big} is outside the safe range`);
  return n;
}

function read(r: Reader, depth: number): MsgValue {
  if (depth > 512) throw new MsgpackError("msgpack: nested too deep");
  const t = r.u8();
  if (t < 0x80) return t;
  if (t >= 0xe0) return t - 0x100;
  if (t >= 0x80 && t <= 0x8f) return readMap(r, t & 0x0f, depth);
  if (t >= 0x90 && t <= 0x9f) return readArray(r, t & 0x0f, depth);
  if (t >= 0xa0 && t <= 0xbf) return r.bytes(t & 0x1f).toString("utf8");
  switch (t) {
    case 0xc0:
      return null;
    case 0xc2:
      return false;
    case 0xc3:
      return true;
    case 0xc4:
      return Uint8Array.from(r.bytes(r.u8()));
    case 0xc5:
      return Uint8Array.from(r.bytes(r.u16()));
    case 0xc6:
      return Uint8Array.from(r.bytes(r.u32()));
    case 0xc7:
      return extension(r, r.u8());
    case 0xc8:
      return extension(r, r.u16());
    case 0xc9:
      return extension(r, r.u32());
    case 0xca: {
      const b = r.bytes(4);
      return b.readFloatBE(0);
    }
    case 0xcb: {
      const b = r.bytes(8);
      return b.readDoubleBE(0);
    }
    case 0xcc:
      return r.u8();
    case 0xcd:
      return r.u16();
    case 0xce:
      return r.u32();
    case 0xcf:
      return int64(r, false);
    case 0xd0: {
      const v = r.u8();
      return v >= 0x80 ? v - 0x100 : v;
    }
    case 0xd1: {
      const v = r.u16();
      return v >= 0x8000 ? v - 0x10000 : v;
    }
    case 0xd2:
      return r.bytes(4).readInt32BE(0);
    case 0xd3:
      return int64(r, true);
    case 0xd4:
      return extension(r, 1);
    case 0xd5:
      return extension(r, 2);
    case 0xd6:
      return extension(r, 4);
    case 0xd7:
      return extension(r, 8);
    case 0xd8:
      return extension(r, 16);
    case 0xd9:
      return r.bytes(r.u8()).toString("utf8");
    case 0xda:
      return r.bytes(r.u16()).toString("utf8");
    case 0xdb:
      return r.bytes(r.u32()).toString("utf8");
    case 0xdc:
      return readArray(r, r.u16(), depth);
    case 0xdd:
      return readArray(r, r.u32(), depth);
    case 0xde:
      return readMap(r, r.u16(), depth);
    case 0xdf:
      return readMap(r, r.u32(), depth);
    default:
      throw new MsgpackError(`msgpack: unsupported type byte 0x${t.toString(16)} at byte ${r.pos - 1}`);
  }
}

/** Any extension value is an unknown (object-wire-format.md); its type byte and payload are skipped. */
function extension(r: Reader, size: number): Unknown {
  r.u8();
  r.bytes(size);
  return UNKNOWN_VALUE;
}

function readArray(r: Reader, n: number, depth: number): MsgValue[] {
  const out: MsgValue[] = [];
  for (let i = 0; i < n; i++) out.push(read(r, depth + 1));
  return out;
}

function readMap(r: Reader, n: number, depth: number): { [key: string]: MsgValue } {
  const out: { [key: string]: MsgValue } = {};
  for (let i = 0; i < n; i++) {
    const key = read(r, depth + 1);
    if (typeof key !== "string") throw new MsgpackError("msgpack: a map key is not a string");
    const value = read(r, depth + 1);
    // Own property even for `__proto__` (a map key is user data); any other key by assignment,
    // which keeps the object in V8's fast mode.
    if (key === "__proto__")
      Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    else out[key] = value;
  }
  return out;
}

/** The value `bytes` encode; throws {@link MsgpackError} on a malformed or trailing document. */
export function decode(bytes: Uint8Array): MsgValue {
  const r = new Reader(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  const value = read(r, 0);
  if (r.pos !== bytes.byteLength)
    throw new MsgpackError(`msgpack: ${bytes.byteLength - r.pos} trailing bytes`);
  return value;
}
