/**
 * Streaming reader of one JSON array of records (`[ {...}, {...} ]`), without loading the input.
 *
 * A small byte-level tokenizer finds where each top-level element begins and ends (tracking
 * strings, escapes and nesting depth), and only that element's bytes are handed to `JSON.parse`.
 * Working on bytes is safe for UTF-8: every byte of a multi-byte character is >= 0x80, so it is
 * never mistaken for a quote, bracket, comma or newline. A malformed element is one rejected
 * record; a broken array structure (no `[`, a missing comma, an array that never closes) stops the
 * read with an {@link InputFormatError} naming the line. An element whose bytes are not UTF-8 is
 * rejected (see `utf8.ts`), never decoded with U+FFFD in its place.
 *
 * No streaming JSON library is used: the ones installed (`jsonparse`, a transitive dependency)
 * build every value token by token in JavaScript, which is several times slower than finding the
 * element's bounds and calling the native `JSON.parse`.
 * @module
 */
import { InputFormatError, MAX_RECORD_TEXT_BYTES, type SourceChunk, type SourceItem } from "./source";
import { firstInvalidUtf8, invalidUtf8Reason, showBytes } from "./utf8";

enum State {
  BeforeArray,
  BeforeValue,
  InValue,
  AfterValue,
  Done,
}
enum Kind {
  Container,
  String,
  Scalar,
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NL = 0x0a;

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** A byte for a message: the character when it is ASCII, else its value (it is part of one). */
const shown = (c: number): string =>
  c < 0x80 ? `'${String.fromCharCode(c)}'` : `byte 0x${c.toString(16).padStart(2, "0")}`;

/** Newlines before `offset` in `bytes`: an element may span lines. */
function lineOf(bytes: Buffer, offset: number): number {
  let n = 0;
  for (let i = bytes.indexOf(NL); i >= 0 && i < offset; i = bytes.indexOf(NL, i + 1)) n++;
  return n;
}

/** Reads a JSON array of records; see the module comment. */
export async function* readJsonArray(
  input: AsyncIterable<Buffer>,
): AsyncGenerator<SourceChunk, void, undefined> {
  let state = State.BeforeArray;
  let line = 1;
  let bytesRead = 0;
  let first = true;
  // Whether the last structural token was a comma (so `]` now would be a trailing comma).
  let afterComma = false;

  // The element being scanned.
  let kind = Kind.Scalar;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let valueLine = 0;
  let parts: Buffer[] = [];
  let partsBytes = 0;
  let overflow = false;

  // Emits the element scanned so far; the caller moves to AfterValue.
  const finish = (items: SourceItem[]): State => {
    if (overflow) {
      items.push({
        line: valueLine,
        error: `record is longer than ${MAX_RECORD_TEXT_BYTES} bytes (an event may be at most 32768)`,
        record: `${Buffer.concat(parts).toString("utf8", 0, 200)}...`,
      });
    } else {
      const bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
      const bad = firstInvalidUtf8(bytes);
      if (bad >= 0) {
        // The record's line is where it starts, as for every reject; a pretty-printed record
        // spans lines, so the reason also names the line of the bad byte.
        const at = valueLine + lineOf(bytes, bad);
        items.push({
          line: valueLine,
          error: invalidUtf8Reason(bytes[bad]!, bad, at === valueLine ? "record" : `record (line ${at})`),
          record: showBytes(bytes),
        });
        parts = [];
        partsBytes = 0;
        return State.AfterValue;
      }
      const text = bytes.toString("utf8");
      try {
        items.push({ line: valueLine, value: JSON.parse(text) });
      } catch (e) {
        items.push({ line: valueLine, error: `invalid JSON: ${(e as Error).message}`, record: text });
      }
    }
    parts = [];
    partsBytes = 0;
    overflow = false;
    return State.AfterValue;
  };
  // Keeps bytes [from, to) of the chunk as part of the current element.
  const keep = (chunk: Buffer, from: number, to: number): void => {
    if (to <= from || overflow) return;
    if (partsBytes + (to - from) > MAX_RECORD_TEXT_BYTES) {
      overflow = true;
      // Keep only a prefix, for the message.
      if (partsBytes < 200) parts.push(chunk.subarray(from, Math.min(to, from + 200)));
      return;
    }
    parts.push(chunk.subarray(from, to));
    partsBytes += to - from;
  };

  for await (const raw of input) {
    let chunk = typeof raw === "string" ? Buffer.from(raw) : raw;
    bytesRead += chunk.length;
    if (first) {
      first = false;
      if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) chunk = chunk.subarray(3);
    }
    const items: SourceItem[] = [];
    // Start, in this chunk, of the bytes of the current element not yet kept.
    let valueStart = state === State.InValue ? 0 : -1;
    const n = chunk.length;
    for (let i = 0; i < n; i++) {
      const c = chunk[i]!;
      if (state === State.InValue) {
        if (kind === Kind.Scalar) {
          if (c === 0x2c || c === 0x5d || isSpace(c)) {
            keep(chunk, valueStart, i);
            state = finish(items);
            valueStart = -1;
            i--; // the delimiter is handled in AfterValue
            continue;
          }
          continue;
        }
        if (c === NL) line++;
        if (inString) {
          if (escaped) escaped = false;
          else if (c === BACKSLASH) escaped = true;
          else if (c === QUOTE) {
            inString = false;
            if (kind === Kind.String) {
              keep(chunk, valueStart, i + 1);
              state = finish(items);
              valueStart = -1;
            }
          }
          continue;
        }
        if (c === QUOTE) inString = true;
        else if (c === 0x7b || c === 0x5b) depth++;
        else if (c === 0x7d || c === 0x5d) {
          depth--;
          if (depth === 0) {
            keep(chunk, valueStart, i + 1);
            state = finish(items);
            valueStart = -1;
          }
        }
        continue;
      }
      if (c === NL) {
        line++;
        continue;
      }
      if (isSpace(c)) continue;
      switch (state) {
        case State.BeforeArray:
          if (c !== 0x5b) throw new InputFormatError(`expected a JSON array ('['), found ${shown(c)}`, line);
          state = State.BeforeValue;
          afterComma = false;
          break;
        case State.BeforeValue:
          if (c === 0x5d) {
            if (afterComma) throw new InputFormatError("trailing comma before ']'", line);
            state = State.Done;
            break;
          }
          if (c === 0x2c) throw new InputFormatError("missing record before ','", line);
          state = State.InValue;
          valueLine = line;
          valueStart = i;
          inString = false;
          escaped = false;
          depth = 0;
          if (c === 0x7b || c === 0x5b) {
            kind = Kind.Container;
            depth = 1;
          } else if (c === QUOTE) {
            kind = Kind.String;
            inString = true;
          } else {
            kind = Kind.Scalar;
          }
          break;
        case State.AfterValue:
          if (c === 0x2c) {
            state = State.BeforeValue;
            afterComma = true;
          } else if (c === 0x5d) {
            state = State.Done;
          } else {
            throw new InputFormatError(`expected ',' or ']' after a record, found ${shown(c)}`, line);
          }
          break;
        case State.Done:
          throw new InputFormatError("unexpected data after the end of the array", line);
      }
    }
    if (state === State.InValue && valueStart >= 0) keep(chunk, valueStart, n);
    yield { items, bytesRead };
  }
  if (state === State.InValue && kind === Kind.Scalar) {
    const items: SourceItem[] = [];
    state = finish(items);
    yield { items, bytesRead };
  }
  // An empty input holds no records; anything else must be a closed array.
  if (state !== State.Done && state !== State.BeforeArray) {
    throw new InputFormatError("unexpected end of input: the JSON array is not closed with ']'", line);
  }
}
