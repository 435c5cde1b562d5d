/**
 * An undici dispatcher that records exactly what the SDK puts on the wire (method, path with
 * query, headers, body) before passing the request on, for asserting "the exact request sent".
 */
import { Agent, type Dispatcher } from "undici";

/** One request as the SDK sent it. */
export interface SentRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  /** The body as sent (`undefined` when none). */
  body: string | undefined;
}

/** A recording dispatcher and what it saw. */
export interface Recorder {
  dispatcher: Dispatcher;
  sent: SentRequest[];
  close(): Promise<void>;
}

function headerRecord(h: Dispatcher.DispatchOptions["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  if (Array.isArray(h)) {
    for (let i = 0; i + 1 < h.length; i += 2) out[String(h[i]).toLowerCase()] = String(h[i + 1]);
  } else if (typeof (h as Iterable<unknown>)[Symbol.iterator] === "function") {
    for (const [k, v] of h as Iterable<[string, string]>) out[k.toLowerCase()] = String(v);
  } else {
    for (const [k, v] of Object.entries(h as Record<string, unknown>))
      if (v !== undefined) out[k.toLowerCase()] = String(v);
  }
  return out;
}

/** Creates a recording dispatcher over a fresh keep-alive Agent. */
export function recordingDispatcher(): Recorder {
  const sent: SentRequest[] = [];
  const agent = new Agent();
  const dispatcher = agent.compose((dispatch) => (opts, handler) => {
    sent.push({
      method: opts.method,
      path: opts.path,
      headers: headerRecord(opts.headers),
      body:
        typeof opts.body === "string"
          ? opts.body
          : opts.body == null
            ? undefined
            : opts.body instanceof Uint8Array // a multipart body, as its text
              ? Buffer.from(opts.body).toString("utf8")
              : String(opts.body),
    });
    return dispatch(opts, handler);
  });
  return { dispatcher, sent, close: () => agent.close() };
}
