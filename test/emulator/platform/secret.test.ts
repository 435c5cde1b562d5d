/**
 * Secrets (`emulator/platform/secret.ts`) over HTTP with a state file: text and file secrets,
 * and the rule that a value is accepted and never shown: the sentinel is searched in every
 * response, the request log and the state file.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answers, answersNotFound, inProject, projectQuery, SENTINEL, textSecret } from "./entity-fixtures";
import {
  type CallInit,
  errorBody,
  failureBody,
  type HttpPlatform,
  type Reply,
  startPlatform,
  successBody,
} from "./harness";

let platform: HttpPlatform;
const statePath = join(mkdtempSync(join(tmpdir(), "flagstack-secrets-")), "state.json");
/** Every reply of this file, searched for the sentinel at the end. */
const replies: Reply[] = [];
const call = async (method: string, path: string, init: CallInit = {}) => {
  const reply = await platform.call(method, path, { query: projectQuery, ...init });
  replies.push(reply);
  return reply;
};

beforeAll(async () => {
  platform = await startPlatform({ statePath });
  await platform.call("POST", "/ng/api/projects", {
    json: { project: { identifier: "proj", name: "proj" } },
  });
});
afterAll(async () => {
  await platform.emu.stop();
});

const SECRETS = "/ng/api/v2/secrets";

/** A multipart body: the `spec` part and, unless null, a `file` part. */
function fileForm(identifier: string, content: string | null): FormData {
  const form = new FormData();
  const secret = {
    type: "SecretFile",
    name: identifier,
    identifier,
    ...inProject,
    spec: { secretManagerIdentifier: "harnessSecretManager" },
  };
  form.set("spec", JSON.stringify({ secret }));
  if (content !== null) form.set("file", new Blob([content]), "key.pem");
  return form;
}

/** Sends a multipart form to the emulator (the harness sends JSON and text bodies only). */
async function sendForm(method: string, path: string, form: FormData): Promise<Reply> {
  const qs = new URLSearchParams({ accountIdentifier: platform.emu.accountId, ...projectQuery });
  const res = await fetch(`${platform.emu.url}${path}?${qs}`, {
    method,
    headers: { "x-api-key": platform.emu.platformKey },
    body: form,
  });
  const text = await res.text();
  const reply = { status: res.status, headers: res.headers, body: JSON.parse(text) };
  replies.push(reply);
  return reply;
}

/** What the state file keeps of a file secret's content (`fields.file`). */
function storedFile(identifier: string): unknown {
  const find = (v: unknown): unknown => {
    if (typeof v !== "object" || v === null) return undefined;
    const o = v as Record<string, unknown>;
    if (o.identifier === identifier && typeof o.fields === "object" && o.fields !== null)
      return (o.fields as Record<string, unknown>).file;
    for (const child of Object.values(o)) {
      const found = find(child);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return find(JSON.parse(readFileSync(statePath, "utf8")));
}

describe("secrets", () => {
  it("creates an inline text secret and never reads its value back", async () => {
    const created = await call("POST", SECRETS, {
      json: textSecret("token", SENTINEL, { tags: { a: "b" } }),
    });
    const data = {
      secret: {
        type: "SecretText",
        name: "token",
        identifier: "token",
        ...inProject,
        tags: { a: "b" },
        description: "",
        spec: { value: null, secretManagerIdentifier: "harnessSecretManager", valueType: "Inline" },
      },
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
      draft: false,
    };
    answers(created, 200, successBody(data));
    expect((await call("GET", `${SECRETS}/token`)).body).toEqual(successBody(data));
    const updated = await call("PUT", `${SECRETS}/token`, { json: textSecret("token", `${SENTINEL}-2`) });
    expect([updated.status, updated.body.data.secret.spec.value]).toEqual([200, null]);
    const list = await call("GET", SECRETS, { query: { ...projectQuery, type: "SecretText" } });
    expect(
      list.body.data.content.map((s: { secret: { identifier: string } }) => s.secret.identifier),
    ).toEqual(["token"]);
  });

  it("reads a Reference value back: it names a path in the secret manager, not the secret", async () => {
    const ref = textSecret("vault_ref", "kv/app#password");
    ref.secret.spec.valueType = "Reference";
    const res = await call("POST", SECRETS, { json: ref });
    expect(res.body.data.secret.spec).toEqual({
      value: "kv/app#password",
      secretManagerIdentifier: "harnessSecretManager",
      valueType: "Reference",
    });
  });

  it("creates and replaces a file secret from a multipart form, never echoing the content", async () => {
    const created = await sendForm("POST", `${SECRETS}/files`, fileForm("cert", SENTINEL));
    expect([created.status, created.body.data.secret]).toEqual([
      200,
      {
        type: "SecretFile",
        name: "cert",
        identifier: "cert",
        ...inProject,
        tags: {},
        description: "",
        spec: { secretManagerIdentifier: "harnessSecretManager" },
      },
    ]);
    const noFile = await sendForm("POST", `${SECRETS}/files`, fileForm("cert2", null));
    expect(noFile.body).toEqual(
      failureBody("INVALID_REQUEST", "file: must not be null", [
        { fieldId: "file", error: "must not be null" },
      ]),
    );
    const replaced = await sendForm("PUT", `${SECRETS}/files/cert`, fileForm("cert", `${SENTINEL}-file`));
    expect(replaced.status).toBe(200);
  });

  it("keeps a file's SHA-256 and length only: a PUT with a file replaces them, one without keeps them", async () => {
    const digest = (text: string) => ({
      sha256: createHash("sha256").update(text).digest("hex"),
      size: Buffer.byteLength(text),
    });
    const first = `${SENTINEL}-bundle`;
    expect((await sendForm("POST", `${SECRETS}/files`, fileForm("bundle", first))).status).toBe(200);
    expect(storedFile("bundle")).toEqual(digest(first));
    const second = `${SENTINEL}-bundle-2`;
    expect((await sendForm("PUT", `${SECRETS}/files/bundle`, fileForm("bundle", second))).status).toBe(200);
    expect(storedFile("bundle")).toEqual(digest(second));
    const metadataOnly = await sendForm("PUT", `${SECRETS}/files/bundle`, fileForm("bundle", null));
    expect([metadataOnly.status, metadataOnly.body.data.secret.spec]).toEqual([
      200,
      { secretManagerIdentifier: "harnessSecretManager" },
    ]);
    expect(storedFile("bundle")).toEqual(digest(second));
    const read = await call("GET", `${SECRETS}/bundle`);
    expect(read.body.data.secret).not.toHaveProperty("file");
  });

  it("refuses a malformed file form as the service's validation failure (ref §2), naming the part", async () => {
    const notJson = new FormData();
    notJson.set("spec", `{"secret": ${SENTINEL}`);
    notJson.set("file", new Blob(["x"]), "x");
    const refused = await sendForm("POST", `${SECRETS}/files`, notJson);
    expect([refused.status, refused.body]).toEqual([
      400,
      failureBody("INVALID_REQUEST", "spec: must be the secret as JSON", [
        { fieldId: "spec", error: "must be the secret as JSON" },
      ]),
    ]);
    const textType = fileForm("text_type", "x");
    const spec = JSON.parse(textType.get("spec") as string) as { secret: Record<string, unknown> };
    textType.set("spec", JSON.stringify({ secret: { ...spec.secret, type: "SecretText" } }));
    const wrongType = await sendForm("POST", `${SECRETS}/files`, textType);
    expect(wrongType.status).toBe(400);
    expect(wrongType.body).toMatchObject({ status: "FAILURE", code: "INVALID_REQUEST" });
  });

  it("reads a file part sent as a plain field as the content all the same", async () => {
    const form = fileForm("plain_part", null);
    form.set("file", `${SENTINEL}-plain`);
    expect((await sendForm("POST", `${SECRETS}/files`, form)).status).toBe(200);
    expect(storedFile("plain_part")).toEqual({
      sha256: createHash("sha256").update(`${SENTINEL}-plain`).digest("hex"),
      size: Buffer.byteLength(`${SENTINEL}-plain`),
    });
  });

  it("refuses a scope other than the query's, a duplicate, and answers missing secrets as the service does", async () => {
    const elsewhere = await call("POST", SECRETS, {
      json: textSecret("t2", SENTINEL),
      query: { orgIdentifier: "default" },
    });
    answers(
      elsewhere,
      400,
      errorBody("INVALID_REQUEST", "Invalid request, scope in payload and params do not match."),
    );
    const dup = await call("POST", SECRETS, { json: textSecret("token", SENTINEL) });
    expect(dup.body).toEqual(
      errorBody("DUPLICATE_FIELD", "Duplicate identifier, please try again with a new identifier"),
    );
    const get = await call("GET", `${SECRETS}/none`);
    answersNotFound(get, "Secret with identifier [none] is not found in the given scope");
    const del = await call("DELETE", `${SECRETS}/none`);
    answers(
      del,
      404,
      errorBody("ENTITY_NOT_FOUND", "Secret with identifier [none] does not exist in the specified scope"),
    );
    const broken = await call("POST", SECRETS, {
      raw: `{"secret": {"spec": {"value": "${SENTINEL}"`,
      contentType: "application/json",
    });
    answers(broken, 400, errorBody("INVALID_REQUEST", "Unable to process JSON: the body is not valid JSON"));
    const bad = await call("POST", SECRETS, { json: textSecret("t3", SENTINEL, { type: "SecretNumber" }) });
    expect(bad.status).toBe(400);
    expect((await call("DELETE", `${SECRETS}/token`)).body).toEqual(successBody(true));
  });

  it("shows the value nowhere: no response, no request log entry, no state file", async () => {
    for (const reply of replies) expect(JSON.stringify(reply.body)).not.toContain(SENTINEL);
    expect(JSON.stringify(platform.emu.requests())).not.toContain(SENTINEL);
    // Each write answers once it is on disk (the commit gate), so the file holds every change.
    const state = readFileSync(statePath, "utf8");
    expect(state).toContain("cert");
    expect(state).not.toContain(SENTINEL);
  });
});
