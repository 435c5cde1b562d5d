import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { bodySecrets, redactCause, redactText, redactValue, usableSecrets } from "../../../sdk/core/redact";

const KEY = "adm-4f1c9e2a7b3d5068a1f2e3d4c5b6a798";

describe("redactText", () => {
  it.each([
    [`key ${KEY} refused`, "key *** refused"],
    // a cut key: any fragment of 12 or more characters goes, adjacent fragments as one
    [`key ${KEY.slice(5, 30)}… refused`, "key ***… refused"],
    [
      `key ${KEY.slice(0, 11)} is too short a fragment to tell`,
      `key ${KEY.slice(0, 11)} is too short a fragment to tell`,
    ],
    ["Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc123", "Authorization: Bearer ***"],
    ["x-api-key: pat.acct.abc123def.456ghi", "x-api-key: ***"],
    ['{"apiKey":"k-1234567890"}', '{"apiKey":"***"}'],
    ["token=abcdef123456&x=1", "token=***&x=1"],
    ["sat.acct.abc123def.456ghi in a sentence", "*** in a sentence"],
    // prose is left alone
    ["Bearer token required", "Bearer token required"],
    ["invalid token: expired", "invalid token: expired"],
    ["Bearer ***", "Bearer ***"],
  ])("%s → %s", (input, output) => {
    expect(redactText(input, usableSecrets([KEY]))).toBe(output);
  });

  it("ignores secrets too short to be keys, so text stays readable", () => {
    expect(usableSecrets(["k", "", undefined, "short", KEY, KEY])).toEqual([KEY]);
    expect(redactText("check the key", usableSecrets(["k"]))).toBe("check the key");
  });
});

describe("fields a route declares secret", () => {
  const NEW = "7s2kq9x1b3c5d7e9f0a2b4c6";
  it.each([
    [`created {"id":"k1","key":"${NEW}"}`, 'created {"id":"k1","key":"***"}'],
    // a JSON text inside a JSON string, as a raw error body carries it
    [JSON.stringify({ m: `created {"key":"${NEW}"}` }), '{"m":"created {\\"key\\":\\"***\\"}"}'],
    [`'key': 'any value at all'`, `'key': '***'`],
    [`key=${NEW}; KEY: ${NEW}`, "key=***; KEY: ***"],
    // prose, other names, and values already redacted stay as they are
    ["the key k1 is unknown", "the key k1 is unknown"],
    [`monkey=${NEW}`, `monkey=${NEW}`],
    ['"key": "***"', '"key": "***"'],
  ])("%s → %s", (input, output) => {
    expect(redactText(input, [], ["key"])).toBe(output);
  });

  it("leaves text alone when no field is declared", () => {
    expect(redactText(`{"key":"${NEW}"}`)).toBe(`{"key":"${NEW}"}`);
  });

  it("replaces a declared field's value at any depth of a body, whatever its case", () => {
    expect(
      redactValue({ id: "k1", key: NEW, keys: ["user-1"], created: { Key: NEW, name: "ci" } }, [], ["key"]),
    ).toEqual({ id: "k1", key: "***", keys: ["user-1"], created: { Key: "***", name: "ci" } });
    expect(redactValue({ key: NEW }, [])).toEqual({ key: NEW });
  });

  it("copies an error of the cause chain whose message holds a declared field", () => {
    const cause = new Error(`echo {"key":"${NEW}"}`);
    expect((redactCause(cause, [], ["key"]) as Error).message).toBe('echo {"key":"***"}');
    expect(redactCause(cause, [])).toBe(cause);
  });
});

describe("bodySecrets", () => {
  const NEW = "sdk-7s2kq9x1b3c5d7e9f0a2b4c6";
  it("collects the credential-named and declared fields' values, at any depth and inside JSON texts of its strings", () => {
    const body = {
      message: `made key ${NEW} but failed`,
      details: JSON.stringify({
        id: "k1",
        apiKey: { key: NEW },
        nested: JSON.stringify({ token: "tok-0123456789" }),
      }),
      answer: [{ id: "k2", key: 'quo"te-0123' }],
      token: "short",
    };
    expect(bodySecrets(body, ["key"])).toEqual([NEW, "tok-0123456789", 'quo"te-0123', 'quo\\"te-0123']);
    // a text is parsed when it looks like JSON; without the declared field, only credential names
    expect(bodySecrets(JSON.stringify(body))).toEqual(["tok-0123456789"]);
    expect(bodySecrets(`made key ${NEW}`, ["key"])).toEqual([]);
  });

  it("parses no text over 1 MiB for them (a large body is no error message; the other layers still redact it)", () => {
    const small = JSON.stringify({ key: NEW, pad: "x".repeat(1000) });
    const large = JSON.stringify({ key: NEW, pad: "x".repeat(1 << 20) });
    expect(bodySecrets(small, ["key"])).toEqual([NEW]);
    expect(bodySecrets(large, ["key"])).toEqual([]);
  });

  it("removed as known secrets, they leave no fragment in the text that repeats them unnamed", () => {
    const text = `made key ${NEW} (${NEW.slice(3, 20)}...)`;
    expect(redactText(text, usableSecrets(bodySecrets({ key: NEW }, ["key"])))).toBe("made key *** (***...)");
  });
});

describe("redactValue", () => {
  it("copies a body with credential fields and echoed keys removed, leaving the original as it was", () => {
    const body = {
      id: "e1",
      apiTokens: [{ id: "t", key: "sdk-0b1c2d3e4f5a6b7c8d9e" }],
      nested: { "x-api-key": "anything", note: `echo ${KEY}`, list: [KEY, 1, null, true] },
      password: "",
    };
    const copy = redactValue(body, [KEY]);
    expect(copy).toEqual({
      id: "e1",
      apiTokens: "***",
      nested: { "x-api-key": "***", note: "echo ***", list: ["***", 1, null, true] },
      password: "",
    });
    expect(body.nested.note).toBe(`echo ${KEY}`);
  });

  it("survives cycles and replaces objects it cannot copy when they hold a key", () => {
    const cyclic: Record<string, unknown> = { a: KEY };
    cyclic.self = cyclic;
    expect(redactValue(cyclic, [KEY])).toEqual({ a: "***", self: "[...]" });
    const buffer = Buffer.from(KEY);
    expect(redactValue({ b: new Map([["k", KEY]]) }, [KEY])).toEqual({
      b: "[Map removed: it held a credential]",
    });
    expect(redactValue({ b: buffer }, [KEY])).toEqual({ b: buffer });
  });
});

describe("redactCause", () => {
  it("keeps a clean error as it is, and copies one that holds a key, prototype, code and cause chain included", () => {
    const clean = new TypeError("fetch failed");
    expect(redactCause(clean, [KEY])).toBe(clean);
    const inner = new Error(`upstream saw ${KEY}`);
    const leaky = Object.assign(new RangeError(`refused ${KEY}`, { cause: inner }), { code: "E1" });
    const copy = redactCause(leaky, [KEY]) as RangeError & { code: string };
    expect(copy).toBeInstanceOf(RangeError);
    expect([copy.message, copy.code, (copy.cause as Error).message]).toEqual([
      "refused ***",
      "E1",
      "upstream saw ***",
    ]);
    expect(inspect(copy, { depth: 8, showHidden: true })).not.toContain(KEY.slice(4, 16));
    expect(leaky.message).toBe(`refused ${KEY}`);
  });
});
