/**
 * The precomputed `GetMetadata` / `GetProviderSchema` answers (`provider/terraform/schema-answer.ts`):
 * the committed `provider-plugin/terraform-schema.json` is what the list of kinds derives (a kind
 * changed without `npm run schema` fails here), its text round-trips to the wire's messages, and a
 * started provider answers the schema from it without loading a kind (start time, issue 26); the
 * provider bundle sends them as the build encoded them, the same messages (issue 35).
 */
import { execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { generateSchemaAnswers, SCHEMA_ANSWER_FILE } from "../../../provider/terraform/generate";
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE, serve } from "../../../provider/terraform/plugin";
import { loadServices } from "../../../provider/terraform/protocol";
import {
  parseSchemaAnswers,
  readSchemaAnswers,
  schemaAnswerText,
} from "../../../provider/terraform/schema-answer";

const ROOT = join(__dirname, "..", "..", "..");

describe("the committed schema answers", () => {
  it("are exactly what the list of kinds derives (`npm run schema` to update them)", () => {
    expect(readFileSync(SCHEMA_ANSWER_FILE, "utf8")).toBe(schemaAnswerText(generateSchemaAnswers()));
  });

  it("read back as the dispatch's messages: each type constraint as the bytes of its JSON", () => {
    const derived = generateSchemaAnswers();
    const read = readSchemaAnswers();
    expect(read).toEqual(derived);
    if (read === undefined) throw new Error("no committed answers");
    const flag = (read.schema.resource_schemas as Record<string, { block: { attributes: unknown[] } }>)
      .flagstack_flag;
    const name = flag?.block.attributes.find((a) => (a as { name: string }).name === "name") as {
      type: Buffer;
    };
    expect(Buffer.isBuffer(name.type)).toBe(true);
    expect(name.type.toString()).toBe('"string"');
    expect(parseSchemaAnswers(schemaAnswerText(derived))).toEqual(derived);
  });
});

describe("a start", () => {
  it("answers GetMetadata and GetProviderSchema without loading a kind, the SDK, zod or undici", () => {
    // A process of its own (this one has loaded the kinds): serve, ask over gRPC, list the modules.
    const script = `
      const grpc = require("@grpc/grpc-js");
      const { serve, MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } = require("./provider/terraform/plugin");
      const { loadServices } = require("./provider/terraform/protocol");
      (async () => {
        const served = await serve({ [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE }, () => {}, () => {});
        const Provider = grpc.makeGenericClientConstructor(loadServices().provider, "Provider");
        const c = new Provider("127.0.0.1:" + served.port, grpc.credentials.createInsecure());
        const ask = (m) => new Promise((res, rej) => c[m]({}, (e, r) => (e ? rej(e) : res(r))));
        const meta = await ask("GetMetadata");
        const schema = await ask("GetProviderSchema");
        const loaded = Object.keys(require.cache).map((p) => p.slice(process.cwd().length + 1));
        const heavy = loaded.filter((p) => /^(provider\\/(kinds|flags|platform|core\\/config)|sdk\\/admin)|node_modules\\/(zod|undici)\\//.test(p));
        process.stdout.write(JSON.stringify({
          resources: meta.resources.length,
          schemas: Object.keys(schema.resource_schemas).length,
          flagType: schema.resource_schemas.flagstack_flag.block.attributes.find((a) => a.name === "name").type.toString(),
          heavy,
        }));
        c.close();
        await served.stop();
      })().catch((e) => { console.error(e); process.exit(1); });`;
    const out = execFileSync(process.execPath, ["--import", "tsx", "-e", script], {
      cwd: ROOT,
      encoding: "utf8",
    });
    const kinds = generateSchemaAnswers().metadata.resources as unknown[];
    expect(JSON.parse(out)).toEqual({
      resources: kinds.length,
      schemas: kinds.length,
      flagType: '"string"',
      heavy: [],
    });
  }, 60_000);
});

/** `GetMetadata` and `GetProviderSchema` asked of the provider at `port` (plain gRPC). */
async function askSchema(port: number): Promise<{ metadata: unknown; schema: unknown }> {
  const Provider = grpc.makeGenericClientConstructor(loadServices().provider, "Provider");
  const client = new Provider(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as Record<
    string,
    (req: unknown, cb: (e: unknown, r: unknown) => void) => void
  > &
    grpc.Client;
  const ask = (m: string) =>
    new Promise<unknown>((res, rej) => client[m]?.({}, (e, r) => (e ? rej(e) : res(r))));
  try {
    return { metadata: await ask("GetMetadata"), schema: await ask("GetProviderSchema") };
  } finally {
    client.close();
  }
}

describe("the provider bundle", () => {
  it("sends the answers encoded at build: the very messages the committed file reads as", async () => {
    // The bundle carries the two answers encoded (so a start sends them without encoding the file).
    const answers = readSchemaAnswers(join(ROOT, "provider")) as NonNullable<
      ReturnType<typeof readSchemaAnswers>
    >;
    const provider = loadServices().provider;
    const text = readFileSync(join(ROOT, "dist", "bundle", "flagstack-provider.js"), "utf8");
    for (const [method, message] of [
      ["GetMetadata", answers.metadata],
      ["GetProviderSchema", answers.schema],
    ] as const) {
      const serialize = provider[method]?.responseSerialize;
      if (serialize === undefined) throw new Error(`the protocol has no ${method}`);
      const wire = (serialize(message) as Buffer).toString("base64");
      expect({ method, carried: text.includes(JSON.stringify(wire)) }).toEqual({ method, carried: true });
    }
    const bundle = spawn(
      process.execPath,
      [join(ROOT, "dist", "bundle", "flagstack-provider.js"), "terraform"],
      {
        env: { ...process.env, [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE, PLUGIN_PROTOCOL_VERSIONS: "6" },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let text = "";
        bundle.stdout.on("data", (d: Buffer) => {
          text += String(d);
          if (text.includes("\n")) resolve(text.trim());
        });
        bundle.once("exit", (code) => reject(new Error(`the bundle exited (${code}) before its handshake`)));
      });
      const fromBundle = await askSchema(Number(line.split("|")[3]?.split(":")[1]));
      const served = await serve(
        { [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE },
        () => {},
        () => {},
      );
      try {
        const fromFile = await askSchema(served.port);
        expect(fromBundle).toEqual(fromFile);
        expect(
          Object.keys((fromBundle.schema as { resource_schemas: object }).resource_schemas),
        ).toHaveLength(30);
      } finally {
        await served.stop();
      }
    } finally {
      bundle.kill();
    }
  }, 60_000);
});
