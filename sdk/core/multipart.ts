/**
 * `multipart/form-data` request bodies for the HTTP core (`request.ts`): a call's `FormData` (the
 * built-in one, with `Blob`/`File` parts) is encoded once, by the platform's own encoder (a
 * `Response` of the form), into bytes and a `content-type` carrying the boundary; every attempt of
 * the call, retries included, sends those same bytes.
 *
 * A file part is the payload, possibly a secret (a platform file secret, `POST
 * /ng/api/v2/secrets/files`): its text joins the call's redaction list, so a server that echoes it
 * (whole or in part) in an error answer does not get it into the error's message, details or body
 * (`redact.ts`). Text fields (the `spec` part of a file secret) are metadata and are not redacted.
 * @module
 */
import { usableSecrets } from "./redact";

/** The most of a file part's text that is searched for in error answers (fragments included). */
const MAX_REDACTED_FILE = 64 * 1024;

/** A multipart body ready to send. */
export interface EncodedMultipart {
  bytes: Uint8Array;
  /** `multipart/form-data; boundary=...` */
  contentType: string;
  /** The call's redaction list: the core's secrets and each file part's text. */
  secrets: readonly string[];
}

/** Whether a value is a form, the built-in `FormData`. */
export function isFormData(value: unknown): value is FormData {
  return value instanceof FormData;
}

/** Encodes `form` once; `secrets` are the core's own, to which each file part's text is added. */
export async function encodeMultipart(form: FormData, secrets: readonly string[]): Promise<EncodedMultipart> {
  const files: string[] = [];
  for (const [, value] of form.entries()) {
    if (typeof value !== "string") files.push((await value.slice(0, MAX_REDACTED_FILE).text()).trim());
  }
  const encoded = new Response(form);
  const contentType = encoded.headers.get("content-type") ?? "multipart/form-data";
  const bytes = new Uint8Array(await encoded.arrayBuffer());
  return { bytes, contentType, secrets: files.length > 0 ? usableSecrets([...secrets, ...files]) : secrets };
}
