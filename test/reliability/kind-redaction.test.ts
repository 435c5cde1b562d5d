/**
 * Redaction, on every kind of `provider/kinds.ts` (through its sample): a server that echoes
 * what it was sent and what it would have answered, in a 500, in a 400, or in a 200 whose body is
 * not the answer the client expects. The error the create ends with (if any: a create may also
 * recover by finding its object) carries none of the secrets of that exchange, in its message,
 * stack, fields, body, cause, `JSON.stringify` or `util.inspect`:
 * - the credentials the provider sends (the admin key, the platform key);
 * - the kind's secret inputs (a `Secret`'s value);
 * - the kind's secret outputs as the service answered them (a new `ApiKey`'s key, an
 *   `Environment`'s SDK keys), found in the answer where a clean create of the same sample had them.
 */
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checked, type KindBed, startKindBed } from "./kind-bed";
import { kindsUnderTest } from "./samples";

type Props = Record<string, unknown>;
type Path = (string | number)[];
const kinds = kindsUnderTest();

let bed: KindBed;
beforeAll(async () => {
  bed = await startKindBed();
});
afterAll(async () => {
  await bed?.stop();
});

/** Every path in `json` whose value is the string `value`. */
function pathsOf(json: unknown, value: string, path: Path = []): Path[] {
  if (json === value) return [path];
  if (json === null || typeof json !== "object") return [];
  return Object.entries(json as Props).flatMap(([k, v]) =>
    pathsOf(v, value, [...path, Array.isArray(json) ? Number(k) : k]),
  );
}

function at(json: unknown, path: Path): unknown {
  let v = json;
  for (const k of path) v = v !== null && typeof v === "object" ? (v as Props)[k as string] : undefined;
  return v;
}

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/** Everything an error shows, down its chain of causes. */
function everything(e: unknown): string {
  const parts: string[] = [];
  let c: unknown = e;
  for (let depth = 0; c !== undefined && c !== null && depth < 6; depth++) {
    parts.push(String(c), inspect(c, { depth: 12, showHidden: true }));
    try {
      parts.push(JSON.stringify(c));
    } catch {
      // a cycle: inspect above has it
    }
    if (c instanceof Error) parts.push(c.stack ?? "", c.message);
    c = (c as { cause?: unknown }).cause;
  }
  return parts.join("\n");
}

/** The secret string values among `names` of `values` (nested values too). */
function secretValues(values: Props, names: readonly string[]): string[] {
  const out: string[] = [];
  const collect = (v: unknown) => {
    if (typeof v === "string" && v.length >= 8) out.push(v);
    else if (v !== null && typeof v === "object") for (const x of Object.values(v as Props)) collect(x);
  };
  for (const n of names) collect(values[n]);
  return out;
}

const ANSWERS = {
  "a 500 that echoes it": (echo: string) => ({
    status: 500,
    text: JSON.stringify({ code: 500, message: echo }),
  }),
  "a 400 that echoes it": (echo: string) => ({
    status: 400,
    text: JSON.stringify({ status: "ERROR", code: "INVALID_REQUEST", message: echo, details: echo }),
  }),
  "a 200 whose body is not the answer": (_echo: string, request: string, upstream: string) => ({
    status: 200,
    text: JSON.stringify({ unexpected: parse(upstream), echo: parse(request) }),
  }),
} as const;

describe.each(kinds.map((k) => k.name))("%s: a server that echoes secrets", (name) => {
  const kind = kinds.find((k) => k.name === name);
  if (!kind) throw new Error(name);
  const { impl, sample } = kind;

  it.each(Object.keys(ANSWERS) as (keyof typeof ANSWERS)[])("%s: no secret in the error", async (answer) => {
    // A clean create: where the secret outputs are in the service's answers.
    const clean = await checked(name, await sample.inputs(bed.ctx));
    const answers: string[] = [];
    bed.proxy.reset();
    for (let i = 0; i < 12; i++)
      bed.proxy.onWrite(i, {
        respond: (u) => {
          answers.push(u.text);
          return u;
        },
      });
    const { outs } = await impl.create(clean);
    bed.proxy.reset();
    const located: { write: number; path: Path }[] = [];
    for (const value of secretValues(outs as Props, kind.secretOutputs ?? [])) {
      answers.forEach((text, write) => {
        for (const path of pathsOf(parse(text), value)) located.push({ write, path });
      });
    }
    // The attacked write: the first that carries a secret output, else the first.
    const write = located[0]?.write ?? 0;
    const inputs = await checked(name, await sample.inputs(bed.ctx));
    const secrets = [
      bed.emu.adminKey,
      bed.emu.platformKey,
      ...secretValues(inputs, [...(kind.secretInputs ?? []), ...(kind.secretOutputs ?? [])]),
    ];
    bed.proxy.onWrite(write, {
      respond: (upstream, request, path) => {
        // The server echoes the credential it was sent: the admin API's or the platform's.
        const credential = path.startsWith("/internal/api/") ? bed.emu.adminKey : bed.emu.platformKey;
        for (const { path } of located.filter((l) => l.write === write)) {
          const value = at(parse(upstream.text), path);
          if (typeof value === "string") secrets.push(value);
        }
        const echo = `sent ${request}; would have answered ${upstream.text}; with the key ${credential}`;
        return ANSWERS[answer](echo, request, upstream.text);
      },
    });
    let shown = "";
    try {
      await impl.create(inputs);
    } catch (e) {
      shown = everything(e);
    }
    expect(bed.proxy.writes().length).toBeGreaterThan(write);
    expect(secrets.filter((s) => shown.includes(s))).toEqual([]);
    // The secret outputs the service answers (not those that are the program's own secret inputs)
    // were found where the clean create had them, so the check above covered them.
    const answered = (kind.secretOutputs ?? []).filter((n) => !(kind.secretInputs ?? []).includes(n));
    expect(located.length > 0).toBe(answered.some((n) => typeof (outs as Props)[n] === "string"));
  });
});
