/**
 * UTF-8 checks of the input. Decoding bytes that are not UTF-8 does not fail in JavaScript: each
 * bad sequence silently becomes U+FFFD, so a record with a stray Latin-1 byte in its key would be
 * imported with another key than the one in the file. The readers check the bytes of each record
 * first and reject a record that is not UTF-8, naming the byte and where it is.
 *
 * `buffer.isUtf8` (native, vectorised) answers for the common, valid case; the byte-by-byte scan
 * below runs only to locate a problem once it is known to exist. It follows the decoding rules of
 * the WHATWG Encoding standard (the ones `TextDecoder` applies): no overlong forms, no surrogates,
 * nothing above U+10FFFF, no truncated sequence.
 * @module
 */
import { isUtf8 } from "node:buffer";

/** Length of the sequence a lead byte starts, 0 when it cannot start one. */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/** Length of the valid sequence at `i` (1 to 4), or 0 when the bytes there are not UTF-8. */
function validAt(buf: Uint8Array, i: number, end: number): number {
  const lead = buf[i]!;
  const n = sequenceLength(lead);
  if (n <= 1) return n;
  if (i + n > end) return 0;
  // The second byte's range is narrower after some leads: it rules out overlong forms (E0, F0),
  // surrogates (ED) and code points above U+10FFFF (F4).
  const lo = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
  const hi = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
  const second = buf[i + 1]!;
  if (second < lo || second > hi) return 0;
  for (let k = 2; k < n; k++) {
    const c = buf[i + k]!;
    if (c < 0x80 || c > 0xbf) return 0;
  }
  return n;
}

/** Offset (from `start`) of the first byte of `buf[start, end)` that is not UTF-8, or -1. */
export function firstInvalidUtf8(buf: Buffer, start = 0, end = buf.length): number {
  if (isUtf8(buf.subarray(start, end))) return -1;
  for (let i = start; i < end; ) {
    const n = validAt(buf, i, end);
    if (n === 0) return i - start;
    i += n;
  }
  return -1;
}

/** Offsets (from `start`) of the first byte of each run of bytes that are not UTF-8. */
export function invalidUtf8Offsets(buf: Buffer, start = 0, end = buf.length): number[] {
  const out: number[] = [];
  if (isUtf8(buf.subarray(start, end))) return out;
  let inBad = false;
  for (let i = start; i < end; ) {
    const n = validAt(buf, i, end);
    if (n === 0) {
      if (!inBad) out.push(i - start);
      inBad = true;
      i++;
    } else {
      inBad = false;
      i += n;
    }
  }
  return out;
}

/**
 * Where in `buf` a possibly incomplete last character starts: `buf.length` when the buffer ends
 * on a whole character (or on a byte no character can start with). A stream checked chunk by
 * chunk carries the bytes from there into the next chunk.
 */
export function completeEnd(buf: Buffer): number {
  for (let back = 1; back <= 3 && back <= buf.length; back++) {
    const c = buf[buf.length - back]!;
    if (c >= 0x80 && c <= 0xbf) continue; // a continuation byte: look further back
    const n = sequenceLength(c);
    return n > back ? buf.length - back : buf.length;
  }
  return buf.length;
}

/**
 * The reject reason for bytes that are not UTF-8: `not valid UTF-8: byte 0xff at byte 31 of the
 * line; the input must be UTF-8 encoded`. `offset` is 0-based, the text says it 1-based.
 */
export function invalidUtf8Reason(byte: number, offset: number, where: string): string {
  const hex = byte.toString(16).padStart(2, "0");
  return `not valid UTF-8: byte 0x${hex} at byte ${offset + 1} of the ${where}; the input must be UTF-8 encoded`;
}

/**
 * `buf` as text for the rejects file, each byte that is not UTF-8 written as `\xNN` (instead of the
 * U+FFFD a decoder would put there, which would hide what the byte was).
 */
export function showBytes(buf: Buffer): string {
  let out = "";
  let from = 0;
  for (let i = 0; i < buf.length; ) {
    const n = validAt(buf, i, buf.length);
    if (n > 0) {
      i += n;
      continue;
    }
    out += `${buf.toString("utf8", from, i)}\\x${buf[i]!.toString(16).padStart(2, "0")}`;
    i++;
    from = i;
  }
  return out + buf.toString("utf8", from);
}
